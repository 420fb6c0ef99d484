package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// maxResourceBytes bounds what one resource read returns.
const maxResourceBytes = 16 << 20

// BlobGetter reads content-addressed blobs (cid:// resources).
type BlobGetter interface {
	Get(ctx context.Context, id string) ([]byte, error)
}

// resourceHandler reads a resource from the source that offers it, at request time.
func (g *Gateway) resourceHandler(e *Entry, uri string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		st, entered := e.enter()
		if entered {
			defer st.live.exit()
		}
		r, p := st.readers[uri], auth.FromContext(ctx)
		if r == nil || !mayRead(p, st, uri, false) {
			// A resource the principal may not read is answered as one that does not
			// exist: resources/list does not show it either.
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return g.scrubRead(r.ReadResource(ctx, p, uri))
	}
}

// templateHandler reads a resource whose URI matched one of the backend's templates.
func (g *Gateway) templateHandler(e *Entry, template string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		st, entered := e.enter()
		if !entered {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		defer st.live.exit()
		r, p := st.templates[template], auth.FromContext(ctx)
		if r == nil || !mayRead(p, st, template, true) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return g.scrubRead(r.ReadResource(ctx, p, req.Params.URI))
	}
}

// configured serves a definition's configured resources and prompts: one more source
// behind the same abilities as a backend's own.
type configured struct {
	g *Gateway
	s *config.Server
}

// ReadResource reads one configured resource, lazily, for principal p (who is also the
// principal on ctx): a resource whose roles p lacks is not found.
func (c configured) ReadResource(ctx context.Context, p auth.Principal, uri string) (*mcp.ReadResourceResult, error) {
	var r *config.Resource
	for _, x := range c.s.Resources {
		if x.URI == uri {
			r = x
		}
	}
	if r == nil {
		return c.readTemplate(ctx, p, uri)
	}
	if !auth.MayCallTool(p, r.Roles) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rc, err := c.g.readResource(ctx, c.s, r)
	if err != nil {
		return nil, err
	}
	rc.URI = r.URI
	if rc.MIMEType == "" {
		rc.MIMEType = r.MimeType
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{rc}}, nil
}

// readTemplate reads uri through the configured template it matches: a server:// template
// runs the tool with the URI's query, a file template reads the file named by the URI's
// variables (each one path segment).
func (c configured) readTemplate(ctx context.Context, p auth.Principal, uri string) (*mcp.ReadResourceResult, error) {
	for _, name := range c.s.ResourceNames() {
		r := c.s.Resources[name]
		if r.URITemplate == "" || !auth.MayCallTool(p, r.Roles) {
			continue
		}
		tpl, err := uritemplate.New(r.URITemplate)
		if err != nil {
			continue
		}
		vals := tpl.Match(uri)
		if vals == nil {
			continue
		}
		var rc *mcp.ResourceContents
		if strings.HasPrefix(r.URITemplate, "server://") {
			u, err := url.Parse(uri)
			if err != nil {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			if rc, err = c.g.readServerOutput(ctx, c.s.Name, uri, u); err != nil {
				return nil, err
			}
		} else {
			path, ok := fillPath(r.File, vals)
			if !ok {
				return nil, resourceError(uri, "a template variable is empty or not a single path segment")
			}
			data, err := c.g.readConfinedFile(path)
			if err != nil {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			rc = contentsOf(data)
		}
		rc.URI = uri
		if rc.MIMEType == "" {
			rc.MIMEType = r.MimeType
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{rc}}, nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}

// fillPath replaces the {variables} of a file pattern with values that are single path
// segments (no separator, not "." or "..").
func fillPath(pattern string, vals uritemplate.Values) (string, bool) {
	ok := true
	out := templateVar.Get().ReplaceAllStringFunc(pattern, func(m string) string {
		v := vals.Get(m[1 : len(m)-1]).String()
		if v == "" || v == "." || v == ".." || strings.ContainsAny(v, "/\\\x00") {
			ok = false
		}
		return v
	})
	return out, ok
}

var templateVar = lazy.Regexp{Expr: `\{[A-Za-z0-9_]+\}`}

// Complete offers the configured values of a prompt argument that start with what the
// client typed (case-insensitive), at most 100.
func (c configured) Complete(_ context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	out := []string{}
	total := 0
	if p.Ref != nil && p.Ref.Type == "ref/prompt" {
		if pr := c.s.Prompts[p.Ref.Name]; pr != nil {
			for _, a := range pr.Arguments {
				if a.Name != p.Argument.Name {
					continue
				}
				for _, v := range a.Values {
					if strings.HasPrefix(strings.ToLower(v), strings.ToLower(p.Argument.Value)) {
						total++
						if len(out) < 100 {
							out = append(out, v)
						}
					}
				}
			}
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: out, Total: total, HasMore: total > len(out)}}, nil
}

// GetPrompt expands a configured prompt's messages with the arguments.
func (c configured) GetPrompt(ctx context.Context, r *backend.PromptRequest) (*mcp.GetPromptResult, error) {
	name, args := r.Name, r.Arguments
	p := c.s.Prompts[name]
	if p == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
	}
	known := map[string]bool{}
	for _, a := range p.Arguments {
		known[a.Name] = true
		if a.Required && args[a.Name] == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s: missing required argument %q", name, a.Name)}
		}
	}
	for k := range args {
		if !known[k] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s: unknown argument %q", name, k)}
		}
	}
	res := &mcp.GetPromptResult{Description: p.Description}
	for _, m := range p.Messages {
		var content mcp.Content
		switch {
		case m.Resource != "":
			rr, err := c.ReadResource(ctx, r.Principal, m.Resource)
			if err != nil {
				return nil, err
			}
			content = &mcp.EmbeddedResource{Resource: rr.Contents[0]}
		case m.Image != "":
			data, err := c.g.readConfinedFile(m.Image)
			if err != nil {
				c.g.log.WarnContext(ctx, "prompt image", "server", c.s.Name, "prompt", name, "error", err)
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("prompt %s: the image %s is not readable; check the prompt's image path", name, m.Image)}
			}
			content = &mcp.ImageContent{Data: data, MIMEType: imageType(m.Image, data)}
		default:
			content = &mcp.TextContent{Text: config.Expand(m.Text, args)}
		}
		res.Messages = append(res.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: content})
	}
	return res, nil
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
		return g.readServerOutput(ctx, s.Name, r.URI, u)
	}
	return nil, mcp.ResourceNotFoundError(r.URI)
}

// readServerOutput runs server://SERVER/TOOL?arg=value for the reader — the principal and
// client on ctx — and returns the tool's output. The read of a resource of server via takes
// the path of a tools/call of TOOL on SERVER by the same caller: SERVER's rule and the
// principal's server list, SERVER's rate limit (charged here when SERVER is not via, whose
// read request was charged already), then runTool — the tool's roles, argument validation,
// the caller's and the server's call slots, the call timeout, metrics — and report, the
// log line and the audit row.
func (g *Gateway) readServerOutput(ctx context.Context, via, uri string, u *url.URL) (*mcp.ResourceContents, error) {
	e := g.reg.get(u.Host)
	tool := strings.Trim(u.Path, "/")
	if e == nil {
		return nil, resourceError(uri, "server %q does not exist", u.Host)
	}
	p := auth.FromContext(ctx)
	switch auth.AuthorizeServer(p, e.Name, g.serverRule(e.Config())) {
	case auth.Allow:
	case auth.Unauthenticated:
		g.log.InfoContext(ctx, "server resource refused: the target server needs credentials", "server", via, "target", e.Name, "tool", tool, "request_id", requestID(ctx))
		return nil, refusedRead(uri, "server %q needs credentials: read it with an API key or access token that server admits", e.Name)
	default:
		g.log.InfoContext(ctx, "server resource refused: not for this principal", "server", via, "target", e.Name, "tool", tool, "user", p.User, "via", p.Via, "request_id", requestID(ctx))
		return nil, refusedRead(uri, "these credentials may not use server %q", e.Name)
	}
	if !e.Config().IsEnabled() {
		return nil, resourceError(uri, "server %q is disabled (enabled: false in its definition)", e.Name)
	}
	name := e.Name
	e, err := g.opened(ctx, e)
	switch {
	case err != nil:
		return nil, resourceError(uri, "server %q is being opened (its first use); retry", name)
	case e == nil:
		return nil, resourceError(uri, "server %q does not exist", name)
	}
	if reason := e.Unavailable(); reason != "" {
		return nil, resourceError(uri, "server %q is unavailable", e.Name)
	}
	if e.Name != via {
		if err := g.chargeMessage(ctx, e, "tools/call", nil); err != nil {
			return nil, readError(uri, err)
		}
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
	// No header: the call takes the caller's slot (the edge took none for a read), and its
	// caller and client come from ctx (principalMiddleware, withCaller).
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: raw}}
	res, rec, err := g.runTool(ctx, e, tool, req)
	g.report(ctx, e, tool, req, rec, res, err)
	if err != nil {
		return nil, readError(uri, err)
	}
	text := resultText(res)
	if res.IsError {
		return nil, resourceError(uri, "%s", text)
	}
	return &mcp.ResourceContents{Text: text}, nil
}

// readError is the error of a server:// read whose tool call failed with err: the call's
// JSON-RPC error (code and data kept: a limit stays a limit) with the URI in its message.
func readError(uri string, err error) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return &jsonrpc.Error{Code: je.Code, Message: fmt.Sprintf("reading %s: %s", uri, je.Message), Data: je.Data}
	}
	return resourceError(uri, "the tool failed inside the gateway")
}

// refusedRead is the error of a server:// read the reader may not make: invalid params
// (the URI names what the caller may not use), with what to do.
func refusedRead(uri, format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("reading %s: ", uri) + fmt.Sprintf(format, args...)}
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

// imageType names the MIME type of an image file by its extension, else by its content.
func imageType(name string, data []byte) string {
	if t := mime.TypeByExtension(strings.ToLower(filepath.Ext(name))); strings.HasPrefix(t, "image/") {
		return t
	}
	return http.DetectContentType(data)
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
