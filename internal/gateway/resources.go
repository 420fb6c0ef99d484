package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// maxResourceBytes bounds what one resource read returns.
const maxResourceBytes = 16 << 20

// BlobGetter reads content-addressed blobs (cid:// resources).
type BlobGetter interface {
	Get(ctx context.Context, id string) ([]byte, error)
}

// resourceHandler reads one configured resource, lazily, at request time.
func (g *Gateway) resourceHandler(e *Entry, uri string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		s := e.Config()
		var r *config.Resource
		for _, x := range s.Resources {
			if x.URI == uri {
				r = x
			}
		}
		if r == nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		c, err := g.readResource(ctx, s, r)
		if err != nil {
			return nil, err
		}
		c.URI = r.URI
		if c.MIMEType == "" {
			c.MIMEType = r.MimeType
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
	}
}

func resourceError(uri, format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: ", uri) + fmt.Sprintf(format, args...)}
}

func (g *Gateway) readResource(ctx context.Context, s *config.Server, r *config.Resource) (*mcp.ResourceContents, error) {
	u, _ := url.Parse(r.URI)
	switch {
	case r.Text != nil:
		return &mcp.ResourceContents{Text: *r.Text}, nil
	case r.Blob != nil:
		return &mcp.ResourceContents{Blob: r.Blob}, nil
	case r.File != "":
		data, err := g.readConfinedFile(r.File)
		if err != nil {
			g.log.WarnContext(ctx, "resource file", "server", s.Name, "uri", r.URI, "error", err)
			return nil, resourceError(r.URI, "the file is not readable; check the resource's file path")
		}
		return contentsOf(data), nil
	case u != nil && u.Scheme == "cid":
		if g.opts.Blobs == nil {
			return nil, resourceError(r.URI, "no content store is configured")
		}
		data, err := g.opts.Blobs.Get(ctx, strings.TrimPrefix(r.URI, "cid://"))
		if err != nil {
			return nil, mcp.ResourceNotFoundError(r.URI)
		}
		return contentsOf(data), nil
	case u != nil && u.Scheme == "variable":
		v, ok := g.cfg.Variables[u.Host]
		if !ok {
			return nil, mcp.ResourceNotFoundError(r.URI)
		}
		if str, ok := v.(string); ok {
			return &mcp.ResourceContents{Text: str}, nil
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		return &mcp.ResourceContents{Text: string(b), MIMEType: "application/json"}, nil
	case u != nil && u.Scheme == "server":
		return g.readServerOutput(ctx, r.URI, u)
	}
	return nil, mcp.ResourceNotFoundError(r.URI)
}

// readServerOutput runs server://SERVER/TOOL?arg=value and returns the tool's output.
func (g *Gateway) readServerOutput(ctx context.Context, uri string, u *url.URL) (*mcp.ResourceContents, error) {
	e := g.reg.get(u.Host)
	tool := strings.Trim(u.Path, "/")
	if e == nil || e.Backend() == nil {
		return nil, resourceError(uri, "server %q does not exist or is disabled", u.Host)
	}
	args := map[string]any{}
	for k, vs := range u.Query() {
		if len(vs) == 1 {
			args[k] = vs[0]
		} else {
			args[k] = vs
		}
	}
	raw, _ := json.Marshal(args)
	st := e.state.Load()
	schema, ok := st.schemas[tool]
	if !ok {
		return nil, resourceError(uri, "server %s has no tool %q", u.Host, tool)
	}
	valid, msg := validateArgs(schema, raw)
	if msg != "" {
		return nil, resourceError(uri, "%s", msg)
	}
	release, err := e.calls.acquire(ctx, e.Name, g.cfg.Limits.CallQueueWait)
	if err != nil {
		return nil, err
	}
	defer release()
	res, err := st.backend.CallTool(ctx, auth.FromContext(ctx), tool, valid)
	if err != nil {
		g.log.ErrorContext(ctx, "server resource", "uri", uri, "error", err)
		return nil, resourceError(uri, "the tool failed inside the gateway")
	}
	text := resultText(res)
	if res.IsError {
		return nil, resourceError(uri, "%s", text)
	}
	return &mcp.ResourceContents{Text: text}, nil
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// readConfinedFile reads a file inside the config directory; symlinks may not lead out of it.
func (g *Gateway) readConfinedFile(rel string) ([]byte, error) {
	base, err := filepath.EvalSymlinks(g.cfg.Dir)
	if err != nil {
		return nil, err
	}
	p, err := filepath.EvalSymlinks(filepath.Join(base, rel))
	if err != nil {
		return nil, err
	}
	if r, err := filepath.Rel(base, p); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is outside %s", p, base)
	}
	if g.isStoreFile(p) {
		return nil, fmt.Errorf("%s is a file of the gateway's store, which is never served", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxResourceBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, maxResourceBytes)
	}
	data := make([]byte, st.Size())
	_, err = io.ReadFull(f, data)
	return data, err
}

// contentsOf returns text contents for UTF-8 data and blob contents otherwise.
func contentsOf(data []byte) *mcp.ResourceContents {
	if isText(data) {
		return &mcp.ResourceContents{Text: string(data)}
	}
	return &mcp.ResourceContents{Blob: data}
}

// storeFiles lists the SQLite store's files that file resources must never serve: the
// database named by Options.StoreFile, by the config's store (sqlite:PATH) and the default
// mcpbridge.db beside the config, each with its -wal, -shm and -journal companions.
func storeFiles(cfg *config.Config, opts Options) []string {
	var dbs []string
	if opts.StoreFile != "" {
		dbs = append(dbs, opts.StoreFile)
	}
	if p, ok := strings.CutPrefix(cfg.Store, "sqlite:"); ok {
		p = strings.TrimPrefix(p, "//")
		if !filepath.IsAbs(p) {
			p = filepath.Join(cfg.Dir, p)
		}
		dbs = append(dbs, p)
	}
	if cfg.Dir != "" {
		dbs = append(dbs, filepath.Join(cfg.Dir, config.DefaultStoreFile))
	}
	var files []string
	for _, db := range dbs {
		db = resolvePath(db)
		files = append(files, db, db+"-wal", db+"-shm", db+"-journal")
	}
	return files
}

// resolvePath makes p absolute and resolves its symlinks, as far as they exist.
func resolvePath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

// isStoreFile reports whether the file at p is one of the store's files: by its resolved
// path, or by identity (a hard link).
func (g *Gateway) isStoreFile(p string) bool {
	p = resolvePath(p)
	fi, statErr := os.Stat(p)
	for _, f := range g.storeFiles {
		if p == f {
			return true
		}
		if statErr == nil {
			if sf, err := os.Stat(f); err == nil && os.SameFile(fi, sf) {
				return true
			}
		}
	}
	return false
}

// checkResourceFiles refuses file resources that name a store file.
func (g *Gateway) checkResourceFiles(s *config.Server) error {
	for _, name := range s.ResourceNames() {
		r := s.Resources[name]
		if r.File == "" {
			continue
		}
		if g.isStoreFile(filepath.Join(g.cfg.Dir, r.File)) {
			return fmt.Errorf("server %s: resource %s: file %s is the gateway's store database (or its -wal, -shm or -journal file), which holds every stored definition, API key hash and audit row; it is never served: point the resource at another file", s.Name, name, r.File)
		}
	}
	return nil
}
