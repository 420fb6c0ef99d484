// Package backend defines what the gateway needs from a source of tools, and the registry of
// backend kinds. A kind (command, http, ...) registers itself from init with Register; the
// package internal/backend/all imports every kind.
package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// A Catalog is what a backend offers: tools, and optionally resources, resource templates
// and prompts of its own (configured resources and prompts are served by the gateway).
type Catalog struct {
	Tools     []*mcp.Tool
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt
}

// A Backend serves the tools of one configured server. Its methods must be safe for
// concurrent use.
type Backend interface {
	// Catalog returns the current tools (and the backend's own resources and prompts).
	Catalog(ctx context.Context) (*Catalog, error)
	// CallTool runs a tool for a principal. Arguments have already been validated against
	// the tool's input schema. A failure the model can act on is a result with IsError set;
	// a returned error means the gateway itself failed.
	CallTool(ctx context.Context, p auth.Principal, name string, args json.RawMessage) (*mcp.CallToolResult, error)
}

// Watcher is implemented by backends whose catalog changes while they run.
type Watcher interface {
	// Changes receives a value whenever the catalog changed.
	Changes() <-chan struct{}
}

// Deps are the services a backend may use. They are passed in, never read from globals.
type Deps struct {
	// Dir is the directory relative paths resolve against (the config file's directory).
	Dir string
	// Variables are the config's variables.
	Variables map[string]any
}

// OpenFunc creates a backend for a validated server definition.
type OpenFunc func(ctx context.Context, s *config.Server, deps Deps) (Backend, error)

var (
	mu    sync.RWMutex
	kinds = map[string]OpenFunc{}
)

// Register makes a backend kind available. It panics on a duplicate kind (a programming
// error found at start-up).
func Register(kind string, open OpenFunc) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := kinds[kind]; dup {
		panic("backend: kind registered twice: " + kind)
	}
	kinds[kind] = open
}

// Kinds returns the registered kinds in sorted order.
func Kinds() []string {
	mu.RLock()
	defer mu.RUnlock()
	ks := make([]string, 0, len(kinds))
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Open creates the backend of a server definition.
func Open(ctx context.Context, s *config.Server, deps Deps) (Backend, error) {
	mu.RLock()
	open, ok := kinds[s.Kind]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("server %s: kind %q is not available in this build (have %v)", s.Name, s.Kind, Kinds())
	}
	b, err := open(ctx, s, deps)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", s.Name, err)
	}
	return b, nil
}

// ProgressFunc reports progress of a running tool call. total is 0 when unknown.
type ProgressFunc func(progress, total float64, message string)

type progressKey struct{}

// WithProgress returns a context whose tool call reports progress to f.
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// Progress returns the progress reporter on ctx, or nil when the client asked for none.
func Progress(ctx context.Context) ProgressFunc {
	f, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return f
}

// ErrorResult returns a tool result with IsError set and a text for the model.
func ErrorResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// TextResult returns a successful tool result with one text content.
func TextResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// ToolFromConfig builds the MCP tool description of a configured tool.
func ToolFromConfig(name string, t *config.Tool) *mcp.Tool {
	tool := &mcp.Tool{Name: name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema}
	if t.OutputSchema != nil {
		tool.OutputSchema = t.OutputSchema
	}
	if a := t.Annotations; a != nil {
		tool.Annotations = &mcp.ToolAnnotations{Title: a.Title, ReadOnlyHint: deref(a.ReadOnlyHint), DestructiveHint: a.DestructiveHint, IdempotentHint: deref(a.IdempotentHint), OpenWorldHint: a.OpenWorldHint}
	}
	return tool
}

func deref(b *bool) bool { return b != nil && *b }
