package gateway

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/web"
)

func (g *Gateway) serveIndex(w http.ResponseWriter, r *http.Request) {
	p := &web.IndexPage{Version: g.opts.Version}
	for _, e := range g.reg.all() {
		s := e.Config()
		sum := web.ServerSummary{Name: s.Name, Title: s.Title, Description: s.Description, Kind: s.Kind, Enabled: s.IsEnabled(),
			NotOpened: e.stored != nil}
		if c := e.Catalog(); c != nil && e.stored == nil {
			sum.Tools, sum.Resources, sum.Prompts = len(c.Tools), len(c.Resources), len(c.Prompts)
			// The names of the tools the caller may call, on a server it may use.
			pr := auth.FromContext(r.Context())
			if auth.AuthorizeServer(pr, e.Name, g.serverRule(s)) == auth.Allow {
				st := e.state.Load()
				sum.ToolNames = []string{}
				for _, t := range c.Tools {
					if !mayCall(pr, st, t.Name) {
						continue
					}
					if len(sum.ToolNames) < web.MaxIndexTools {
						sum.ToolNames = append(sum.ToolNames, t.Name)
					} else {
						sum.MoreTools++
					}
				}
			}
		}
		p.Servers = append(p.Servers, sum)
	}
	if strings.Contains(r.Header.Get("Accept"), "application/json") && !strings.Contains(r.Header.Get("Accept"), "text/html") {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(p)
		return
	}
	if err := web.RenderIndex(w, p); err != nil {
		g.log.Error("rendering index", "error", err)
	}
}

// baseURL is the base of the URLs the pages and the admin API give out (setup snippets,
// endpoints): the address the gateway accepted the connection on. It never comes from a
// request header — Host and X-Forwarded-* are the client's to choose, and a page that
// pasted them into copy-paste commands would send users wherever a link's author liked.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && la != nil {
		return scheme + "://" + la.String()
	}
	return scheme + "://" + config.DefaultListen
}

func (g *Gateway) serveMeta(w http.ResponseWriter, r *http.Request, name string) {
	e := g.reg.get(name)
	if e != nil && e.stored != nil { // its page is a first use: the page lists its tools
		var err error
		if e, err = g.opened(r.Context(), e); err != nil {
			web.RenderError(w, http.StatusServiceUnavailable, fmt.Sprintf("Server %q is being opened; reload the page.", name))
			return
		}
	}
	if e == nil || !config.NamePattern.Get().MatchString(name) {
		web.RenderError(w, http.StatusNotFound, fmt.Sprintf("There is no server named %q.", name))
		return
	}
	s := e.Config()
	endpoint := baseURL(r) + "/mcp/" + name
	p := &web.MetaPage{
		Name: name, Title: s.Title, Description: s.Description, Kind: s.Kind, Enabled: s.IsEnabled(),
		Endpoint: endpoint, SSE: endpoint + "/sse", ToolsURL: "/api/mcp/" + name + "/tools",
		TransformError: transformError(e.state.Load()),
	}
	if c := e.Catalog(); c != nil {
		tools := g.callableTools(r, e, c.Tools)
		p.ToolCount, p.ToolGroups = len(tools), web.GroupTools(tools)
		// The resources and prompts the caller may read and get, as their lists show them.
		who, st := auth.FromContext(r.Context()), e.state.Load()
		for _, res := range c.Resources {
			if g.listable(who, st, res.URI, false) {
				p.Resources = append(p.Resources, web.Resource{URI: res.URI, Name: res.Name, Description: res.Description, MimeType: res.MIMEType})
			}
		}
		for _, pr := range c.Prompts {
			if !mayGetPrompt(who, st, pr.Name) {
				continue
			}
			pv := web.Prompt{Name: pr.Name, Description: pr.Description}
			for _, a := range pr.Arguments {
				pv.Arguments = append(pv.Arguments, web.PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			p.Prompts = append(p.Prompts, pv)
		}
	}
	args := stdioArgs(g.opts.ConfigLabel, name)
	if _, inFile := g.cfg.Servers[name]; !inFile && g.opts.StoreFile != "" {
		// A server added through the admin API lives in the store, not the file.
		args = append(args[:len(args)-1], "--store", "sqlite:"+g.opts.StoreFile, name)
	}
	if g.opts.StdioArgs != nil {
		args = g.opts.StdioArgs(name)
	}
	command, note := stdioCommand()
	desktop := map[string]any{"mcpServers": map[string]any{name: map[string]any{
		"command": command,
		"args":    args,
	}}}
	db, _ := json.MarshalIndent(desktop, "", "  ")
	p.Desktop, p.DesktopNote = string(db), note
	p.HTTPClient = fmt.Sprintf("claude mcp add --transport http %s %s", name, endpoint)
	p.Inspector = fmt.Sprintf("npx -y @modelcontextprotocol/inspector@2 --cli %s --transport http --method tools/list", endpoint)
	p.Curl = fmt.Sprintf(`curl -s %s \
  -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  -H 'MCP-Protocol-Version: 2026-07-28' \
  -H 'Mcp-Method: tools/list' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'`, endpoint)
	if err := web.RenderMeta(w, p); err != nil {
		g.log.Error("rendering meta page", "server", name, "error", err)
	}
}

// stdioCommand is the command of the stdio snippets: the absolute path of the running
// binary, so the snippet works when pasted whether or not mcpbridge is on PATH. A binary of
// `go run` is deleted when the run ends, so then the command is a binary to build first,
// and note says how.
func stdioCommand() (command, note string) {
	exe, err := os.Executable()
	if err != nil {
		return "mcpbridge", "Put mcpbridge on your PATH first (its path could not be found)."
	}
	wd, _ := os.Getwd()
	return snippetCommand(exe, wd)
}

// snippetCommand is stdioCommand for the running binary exe and working directory wd.
func snippetCommand(exe, wd string) (command, note string) {
	if abs, err := filepath.EvalSymlinks(exe); err == nil {
		exe = abs
	}
	if !isGoRunBinary(exe) {
		return exe, ""
	}
	if root := moduleRoot(wd); root != "" {
		bin := filepath.Join(root, "mcpbridge")
		return bin, fmt.Sprintf("This gateway runs from go run, whose binary is deleted when it stops. Build the binary this snippet runs first: cd %s && go build -o mcpbridge ./cmd/mcpbridge", root)
	}
	return "mcpbridge", "This gateway runs from go run, whose binary is deleted when it stops. Install mcpbridge on your PATH first (go install github.com/mcpbridge/mcpbridge/cmd/mcpbridge@latest), or put the absolute path of a built binary as the command."
}

// isGoRunBinary reports whether exe is a temporary binary of `go run` (in its go-build work
// folder).
func isGoRunBinary(exe string) bool {
	for _, dir := range strings.Split(filepath.ToSlash(filepath.Dir(exe)), "/") {
		if strings.HasPrefix(dir, "go-build") {
			return true
		}
	}
	return false
}

// moduleRoot returns the folder at or above dir whose go.mod is mcpbridge's module, or "".
func moduleRoot(dir string) string {
	for dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimSpace(first) == "module github.com/mcpbridge/mcpbridge" {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

func stdioArgs(cfgPath, name string) []string {
	if cfgPath == "" {
		return []string{"stdio", name}
	}
	return []string{"stdio", "--config", cfgPath, name}
}

// callableTools are the summaries of the tools of e the caller may call, for its page; the
// rest of each tool (schemas, the try-it form) the page loads from the REST route when the
// tool is opened, so the page of a server with a thousand tools stays small.
func (g *Gateway) callableTools(r *http.Request, e *Entry, tools []*mcp.Tool) []web.ToolSummary {
	p := auth.FromContext(r.Context())
	st := e.state.Load()
	out := make([]web.ToolSummary, 0, len(tools))
	for _, t := range tools {
		if mayCall(p, st, t.Name) {
			out = append(out, web.ToolSummary{Name: t.Name, Title: t.Title, Summary: web.Summarize(t.Description), Generated: generatedBy(t)})
		}
	}
	return out
}
