// Package web renders mcpbridge's HTML pages: /mcp lists the servers, /mcp/meta/{server}
// shows a server's copy-paste client setup, its tools (a searchable list with a table of
// contents; static/tryit.js loads a tool's schema and builds a form to try it when the tool
// is opened), resources and prompts. Templates are embedded; everything user-supplied is
// escaped by html/template, or set as text by the scripts, and pages are served with a strict
// Content-Security-Policy (no inline script).
package web

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/*
var staticFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{}).ParseFS(templateFS, "templates/*.html"))

// csp forbids inline script and any third-party origin.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// ServerSummary is one line of the server list.
type ServerSummary struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	Kind        string `json:"kind"`
	Enabled     bool   `json:"enabled"`
	Tools       int    `json:"tools"`
	// ToolNames are the names of the tools the caller may call (at most MaxIndexTools;
	// MoreTools counts the rest); none for a server the caller may not use.
	ToolNames []string `json:"toolNames"`
	MoreTools int      `json:"moreTools,omitempty"`
	Resources int      `json:"resources"`
	Prompts   int      `json:"prompts"`
	// NotOpened says the server is stored and not opened yet: its tools, resources and
	// prompts are known once it is first used (its page, a request), and are not counted.
	NotOpened bool `json:"notOpened,omitempty"`
}

// MaxIndexTools is how many tool names the index lists per server.
const MaxIndexTools = 12

// IndexPage is the data of /mcp.
type IndexPage struct {
	Version string          `json:"version"`
	Servers []ServerSummary `json:"servers"`
}

// ToolSummary is a tool as listed on a meta page: its name, title and the first line of its
// description. The rest (full description, schemas, the try-it form) loads when it is opened.
type ToolSummary struct {
	Name    string
	Title   string
	Summary string
	// Generated names the module that generated the tool ("" for a written tool).
	Generated string
}

// ToolGroup is one group of the tool list and one entry of its table of contents. Anchor is
// the group's element id: unique on the page and made of [a-z0-9_-] only.
type ToolGroup struct {
	Label  string
	Anchor string
	Tools  []ToolSummary
}

// Resource is a resource as shown on a meta page.
type Resource struct {
	URI, Name, Description, MimeType string
}

// PromptArg is an argument of a prompt.
type PromptArg struct {
	Name, Description string
	Required          bool
}

// Prompt is a prompt as shown on a meta page.
type Prompt struct {
	Name, Description string
	Arguments         []PromptArg
}

// MetaPage is the data of /mcp/meta/{server}.
type MetaPage struct {
	Name        string
	Title       string
	Description string
	Kind        string
	Enabled     bool
	Endpoint    string // absolute URL of the MCP endpoint
	SSE         string // absolute URL of the legacy SSE endpoint
	// ToolCount is the number of tools listed, ToolGroups the tools in the groups of the
	// table of contents (one group without a label for a small server).
	ToolCount  int
	ToolGroups []ToolGroup
	// ToolsURL is the JSON route of the listed tools; ?name=TOOL answers one tool, which the
	// page loads when the tool is opened.
	ToolsURL string
	// TransformError, when set, is why the server's transforms failed: it serves its
	// written (or last good) lists.
	TransformError string
	Resources      []Resource
	Prompts        []Prompt
	Desktop        string // desktop-app JSON
	// DesktopNote, when set, is what to do before the desktop snippet runs (build the
	// binary it names).
	DesktopNote string
	HTTPClient  string // an HTTP client command line
	Inspector   string // MCP Inspector CLI command
	Curl        string // curl command
}

func setHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}

// RenderIndex writes the server list page.
func RenderIndex(w http.ResponseWriter, p *IndexPage) error {
	setHeaders(w)
	return pages.ExecuteTemplate(w, "index.html", p)
}

// RenderMeta writes a server's page.
func RenderMeta(w http.ResponseWriter, p *MetaPage) error {
	setHeaders(w)
	return pages.ExecuteTemplate(w, "meta.html", p)
}

// RenderError writes an HTML error page with status code.
func RenderError(w http.ResponseWriter, code int, msg string) {
	setHeaders(w)
	w.WriteHeader(code)
	pages.ExecuteTemplate(w, "error.html", map[string]any{"Code": code, "Status": http.StatusText(code), "Message": msg})
}

// Static serves the pages' stylesheet and script under /_mcpbridge/static/.
func Static() http.Handler {
	sub, _ := fs.Sub(staticFS, "static")
	fsrv := http.StripPrefix("/_mcpbridge/static/", http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fsrv.ServeHTTP(w, r)
	})
}
