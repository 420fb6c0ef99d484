// Package backend defines what the gateway needs from a source of tools, and the registry of
// backend kinds. A kind (command, http, ...) registers itself from init with Register; the
// package internal/backend/all imports every kind.
package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// A Catalog is what a backend offers: tools, and optionally resources, resource templates
// and prompts of its own. The gateway serves all four; reads and gets go to the backend
// through ResourceReader and PromptGetter.
type Catalog struct {
	Tools     []*mcp.Tool
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt
}

// A Backend serves the tools of one configured server. Its methods must be safe for
// concurrent use. See Kind for its lifecycle.
//
// Optional abilities are found by type assertion and used by the gateway: ResourceReader,
// PromptGetter, Completer, Watcher, Subscriber, SessionEnder, ToolGate, Quiet, Generator and
// io.Closer.
type Backend interface {
	// Catalog returns what the backend offers now.
	Catalog(ctx context.Context) (*Catalog, error)
	// CallTool runs a tool. Arguments have already been validated against the tool's
	// input schema. A failure the model can act on is a result with IsError set. A returned
	// *jsonrpc.Error is a protocol error the client made (a retry with a stale
	// requestState, a capability it did not declare): it reaches the client as it is. Any
	// other returned error means the gateway itself failed. ctx ends when the client
	// cancels the call or goes away.
	CallTool(ctx context.Context, c *Call) (*mcp.CallToolResult, error)
}

// A Call is one tool call and its caller.
type Call struct {
	// Name is the tool's name.
	Name string
	// Arguments is the arguments object, validated against the tool's input schema.
	Arguments json.RawMessage
	// Principal is who is calling (the zero Principal when authentication is off).
	Principal auth.Principal
	// Session is the caller's MCP session. It is never nil: without a session (a stateless
	// request, an internal call) its requests fail with ErrNoSession and its notifications
	// go nowhere.
	Session Session
	// InputResponses and RequestState carry the client's answers to input requests a
	// previous result of this call asked for (the 2026-07-28 multi-round-trip flow).
	InputResponses mcp.InputResponseMap
	RequestState   string
	// Client is what the client declared about itself (see Declared); nil when unknown
	// (an internal call). A backend must not ask the client for what it did not declare
	// (sampling, elicitation, roots).
	Client Declared
}

// Declared is what a client declared about itself: in its initialize request (legacy era)
// or in each request's _meta (2026-07-28). Reading it decodes the request's _meta, so it
// is read only when a backend needs it; *mcp.CallToolRequest and *mcp.GetPromptRequest
// satisfy it.
type Declared interface {
	ClientInfo() *mcp.Implementation
	ClientCapabilities() *mcp.ClientCapabilities
}

// DeclaredBy returns what d declares, nil for each part that is unknown (or d nil).
func DeclaredBy(d Declared) (*mcp.Implementation, *mcp.ClientCapabilities) {
	if d == nil {
		return nil, nil
	}
	return d.ClientInfo(), d.ClientCapabilities()
}

// A PromptRequest is one prompts/get and its caller. Like a tool call, a prompt may ask
// the client for input (2026-07-28 input_required results) and be retried with the
// answers.
type PromptRequest struct {
	// Name is the prompt's name, Arguments the values the client gave.
	Name      string
	Arguments map[string]string
	// Principal, Session, InputResponses, RequestState and Client are as in Call.
	Principal      auth.Principal
	Session        Session
	InputResponses mcp.InputResponseMap
	RequestState   string
	Client         Declared
}

// Session is a handle on the caller's MCP session, for a backend that forwards what an
// upstream asks: progress and log notifications, and requests back to the client.
type Session interface {
	// ID is the MCP session id: "" for a stateless (2026-07-28) request, and for a legacy
	// session whose transport has none (HTTP+SSE, stdio) one the gateway gives it, so a
	// non-empty ID always means a client that can be sent requests in the middle of a call.
	ID() string
	// Progress reports progress of the running call; it does nothing when the client
	// asked for none. total is 0 when unknown.
	Progress(ctx context.Context, progress, total float64, message string)
	// Log sends a log notification (the client's logging level applies).
	Log(ctx context.Context, p *mcp.LoggingMessageParams) error
	// CreateMessage asks the client's model for a completion (sampling).
	CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// Elicit asks the user for input.
	Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// ListRoots asks the client for its roots.
	ListRoots(ctx context.Context) (*mcp.ListRootsResult, error)
}

// ErrNoSession is returned by requests of a Session that has no client to ask.
var ErrNoSession = errors.New("the caller has no MCP session to send requests to (a stateless request)")

// NoSession is the Session of a call without one.
type NoSession struct{}

// ID returns "".
func (NoSession) ID() string { return "" }

// Progress does nothing.
func (NoSession) Progress(context.Context, float64, float64, string) {}

// Log does nothing.
func (NoSession) Log(context.Context, *mcp.LoggingMessageParams) error { return nil }

// CreateMessage fails with ErrNoSession.
func (NoSession) CreateMessage(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return nil, ErrNoSession
}

// Elicit fails with ErrNoSession.
func (NoSession) Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return nil, ErrNoSession
}

// ListRoots fails with ErrNoSession.
func (NoSession) ListRoots(context.Context) (*mcp.ListRootsResult, error) { return nil, ErrNoSession }

// ResourceReader is implemented by backends that serve resources (or templates) of their
// own; the gateway sends reads of the URIs in their catalog here.
type ResourceReader interface {
	ReadResource(ctx context.Context, p auth.Principal, uri string) (*mcp.ReadResourceResult, error)
}

// PromptGetter is implemented by backends with prompts of their own. A returned
// *jsonrpc.Error reaches the client as it is.
type PromptGetter interface {
	GetPrompt(ctx context.Context, r *PromptRequest) (*mcp.GetPromptResult, error)
}

// Completer is implemented by backends that complete prompt or resource template
// arguments (completion/complete).
type Completer interface {
	Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error)
}

// Watcher is implemented by backends whose catalog changes while they run. The gateway
// reads Changes until the backend is closed, lists the catalog again and tells connected
// clients (list_changed).
type Watcher interface {
	// Changes receives a value whenever the catalog changed.
	Changes() <-chan struct{}
}

// Subscriber is implemented by backends whose resources change while they run (an upstream
// MCP server that offers subscriptions). The gateway passes on the first client subscription
// to a URI and the last unsubscription, and reads ResourceUpdates until the backend is
// closed, telling the clients that subscribed to each URI received.
type Subscriber interface {
	SubscribeResource(ctx context.Context, uri string) error
	UnsubscribeResource(ctx context.Context, uri string) error
	ResourceUpdates() <-chan string
}

// ToolGate is implemented by backends whose tools are not all for every principal (a
// Lowdefy app's pages under its auth rules): the gateway lists, shows and dispatches a tool
// only when ToolAllowed, on top of the roles of the server's config.
type ToolGate interface {
	ToolAllowed(p auth.Principal, tool string) bool
}

// Quiet is implemented by backends whose tool calls send the client nothing but their
// result, except progress when the call carries a progress token and log notifications when
// the client set a log level: no requests back to the client (sampling, elicitation, roots).
// The gateway may answer such a call on a legacy session with one JSON body instead of an
// event stream, when neither a progress token nor a log level is in play.
type Quiet interface {
	Quiet() bool
}

// QuietFor is implemented by backends whose tool calls are quiet (as Quiet says) for a
// client that declared caps, though not for every client: a `kind: mcp` server forwards an
// upstream's requests (sampling, elicitation, roots) only to a client that declared it can
// answer them, and refuses them otherwise, so its calls are quiet for a client that
// declared none of those. caps is nil when the client declared nothing.
type QuietFor interface {
	QuietFor(caps *mcp.ClientCapabilities) bool
}

// Generator is implemented by backends whose lists are generated (tools_transform,
// resources_transform, prompts_transform; see internal/transform): Generated returns the
// server's definition with the generated resources and prompts in, which the gateway serves
// as it serves configured ones, or nil when nothing was generated.
type Generator interface {
	Generated() *config.Server
	// GenerateError is the error of the last run of the transforms, nil when it succeeded.
	GenerateError() error
}

// MetaGenerated is the _meta key of a generated tool: its value names the module that
// generated it. The server page and the tools CLI show it.
const MetaGenerated = "io.mcpbridge/generated"

// SessionEnder is implemented by backends that keep state per client session (an upstream
// connection, a work session): the gateway calls SessionEnded when a client session ends.
type SessionEnder interface {
	SessionEnded(sessionID string)
}

// Deps are the services a backend may use. They are passed in, never read from globals.
type Deps struct {
	// Dir is the directory relative paths resolve against (the config file's directory).
	Dir string
	// Variables are the config's variables.
	Variables map[string]any
	// Logger is the backend's logger, carrying the server's name (never nil when opened by
	// the gateway).
	Logger *slog.Logger
	// HTTPClient returns an SSRF-guarded HTTP client for a policy; clients of the same
	// policy share one connection pool. nil means safehttp.NewClient.
	HTTPClient func(safehttp.Policy, safehttp.Options) *http.Client
	// Secrets resolves secret references (secret:NAME, env:NAME, file:PATH).
	Secrets SecretResolver
	// WorkSessions and Blobs are the store's, for kinds that keep work sessions or
	// content-addressed data (nil when there is no store).
	WorkSessions store.WorkSessions
	Blobs        store.Blobs
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// SecretResolver resolves a secret reference to its value. where names the field in errors.
type SecretResolver interface {
	Resolve(where, ref string) (string, error)
}

// Clock returns d.Now, or time.Now when unset.
func (d Deps) Clock() func() time.Time {
	if d.Now != nil {
		return d.Now
	}
	return time.Now
}

// Client returns an HTTP client from d.HTTPClient, or from safehttp.NewClient when unset.
func (d Deps) Client(p safehttp.Policy, o safehttp.Options) *http.Client {
	if d.HTTPClient != nil {
		return d.HTTPClient(p, o)
	}
	return safehttp.NewClient(p, o)
}

// Log returns d.Logger, or a logger that discards when unset.
func (d Deps) Log() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// A Kind is a backend kind: its name in configuration, the fields it adds to a server
// definition and to each tool (beyond the common ones in config), and how it decodes them.
//
// The lifecycle of a backend: Decode checks a definition once, when it is loaded (by
// `mcpbridge check`, at start-up, or when the admin API receives it); Spec.Open creates the
// backend; the gateway then reads its Catalog and sends it calls, concurrently; when the
// definition is replaced or removed, the gateway stops sending new calls, waits for the
// calls in flight, and then closes the backend if it implements io.Closer.
type Kind struct {
	// Name is the value of kind: in a server definition.
	Name string
	// ServerFields and ToolFields are the keys the kind reads from a server definition and
	// from each of its tools. They let a field written under the wrong kind be named.
	ServerFields, ToolFields []string
	// Decode decodes and checks the kind's sections of s (s.Section and each tool's
	// Section) strictly, reporting problems with Section.Problem, and returns the spec to
	// open. It must not resolve secrets or touch the network.
	Decode func(s *config.Server) (Spec, config.Problems)
}

// A Spec is a server definition decoded and checked by its kind, ready to open.
type Spec interface {
	// Open creates the backend. A slow open (connecting to an upstream) does not block
	// other servers: the gateway opens each server on its own.
	Open(ctx context.Context, deps Deps) (Backend, error)
}

var (
	mu    sync.RWMutex
	kinds = map[string]Kind{}
)

// Register makes a backend kind available. It panics on a duplicate kind (a programming
// error found at start-up).
func Register(k Kind) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := kinds[k.Name]; dup {
		panic("backend: kind registered twice: " + k.Name)
	}
	kinds[k.Name] = k
}

// Kinds returns the registered kinds as configuration sees them.
func Kinds() config.Kinds { return registry{} }

type registry struct{}

// Names returns the registered kinds in sorted order.
func (registry) Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	ks := slices.Sorted(maps.Keys(kinds))
	return ks
}

// Decode decodes the kind sections of s with its kind, after naming the fields that belong
// to another kind.
func (registry) Decode(s *config.Server) config.Problems {
	mu.RLock()
	k, ok := kinds[s.Kind]
	others := make([]Kind, 0, len(kinds))
	for _, o := range kinds {
		if o.Name != s.Kind {
			others = append(others, o)
		}
	}
	mu.RUnlock()
	if !ok {
		return config.Problems{s.Section.Problem("kind", "unknown kind %q", s.Kind)}
	}
	sort.Slice(others, func(i, j int) bool { return others[i].Name < others[j].Name })
	var ps config.Problems
	foreign := func(sec config.Section, own []string, theirs func(Kind) []string) config.Section {
		for _, key := range sec.Keys() {
			if slices.Contains(own, key) {
				continue
			}
			for _, o := range others {
				if slices.Contains(theirs(o), key) {
					ps = append(ps, sec.Problem(key, "field %q belongs to kind %s, not %s", key, o.Name, s.Kind))
					sec = sec.Without(key)
					break
				}
			}
		}
		return sec
	}
	s.Section = foreign(s.Section, k.ServerFields, func(o Kind) []string { return o.ServerFields })
	for _, t := range s.Tools {
		if t != nil {
			t.Section = foreign(t.Section, k.ToolFields, func(o Kind) []string { return o.ToolFields })
		}
	}
	spec, kps := k.Decode(s)
	ps = append(ps, kps...)
	if !slices.ContainsFunc(ps, func(p config.Problem) bool { return !p.Warning }) {
		s.Spec = spec // warnings do not stop a definition from being served
	}
	return ps
}

// A Checker is a Spec that can check, without opening the backend, what only the running
// system can tell: that the secrets the definition names are set. `mcpbridge check` and
// the admin API refuse a definition whose Check fails.
type Checker interface {
	// Check reports problems located like decoding ones (Section.Problem).
	Check(deps Deps) config.Problems
}

// Check runs the spec's Check, if it has one, on a definition decoded by its kind.
func Check(s *config.Server, deps Deps) config.Problems {
	if c, ok := s.Spec.(Checker); ok {
		return c.Check(deps)
	}
	return nil
}

// A ToolLister is a Spec whose tools are not just the tools of its definition (a Lowdefy
// app's come from the app, an upstream's from the upstream): ToolNames returns the names of
// the tools the server will offer, before tools_include and tools_exclude, or known false
// when only the running server can tell (an upstream lists its tools when it starts).
// `mcpbridge check` counts them.
type ToolLister interface {
	ToolNames(deps Deps) (names []string, known bool)
}

// ToolNames returns the names of the tools server s will offer, after its tools_include
// and tools_exclude (see ToolLister); known is false when only the running server can
// tell.
func ToolNames(s *config.Server, deps Deps) (names []string, known bool) {
	names, known = s.ToolNames(), true
	if l, ok := s.Spec.(ToolLister); ok {
		names, known = l.ToolNames(deps)
	}
	f := s.Filter()
	return slices.DeleteFunc(names, func(n string) bool { return !f.Keep(n) }), known
}

// Open creates the backend of a server definition decoded by its kind.
func Open(ctx context.Context, s *config.Server, deps Deps) (Backend, error) {
	spec, ok := s.Spec.(Spec)
	if !ok {
		return nil, fmt.Errorf("server %s: the definition of kind %q was not decoded (kinds in this build: %v)", s.Name, s.Kind, registry{}.Names())
	}
	b, err := spec.Open(ctx, deps)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", s.Name, err)
	}
	return b, nil
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

// SpecFunc is a Spec that is just an open function, for kinds with nothing to decode.
type SpecFunc func(ctx context.Context, deps Deps) (Backend, error)

// Open calls f.
func (f SpecFunc) Open(ctx context.Context, deps Deps) (Backend, error) { return f(ctx, deps) }
