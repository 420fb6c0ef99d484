// Package restapi serves the plain REST routes of the gateway's servers, for callers that do
// not speak MCP (seed 003), under /api/mcp/{server}/. It owns the routes, their JSON bodies,
// their errors ({"error": MESSAGE} with an HTTP status) and the OpenAPI description; the
// servers, and who may use what, are the gateway's (Servers).
package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/admission"
	"github.com/mcpbridge/mcpbridge/internal/auth"
)

// Servers is what the routes need of the gateway.
type Servers interface {
	// Enter finds server name for the request's caller, checks that the caller may use it,
	// charges its rate limits and enters it (the route calls the server's Exit when done),
	// or answers the request itself (with Error or LimitError) and reports false.
	Enter(w http.ResponseWriter, r *http.Request, name string) (Server, bool)
}

// Server is one entered server, as the caller of a request sees it.
type Server interface {
	// Name is the server's name.
	Name() string
	// Exit ends the request's use of the server.
	Exit()
	// Tools are the tools p may call.
	Tools(p auth.Principal) []*mcp.Tool
	// CallTool calls a tool through the gateway's tool handler (validation, roles, limits,
	// metrics, audit); header is the request's.
	CallTool(ctx context.Context, header http.Header, name string, args json.RawMessage) (*mcp.CallToolResult, error)
	// Resources are the resources and resource templates p may read.
	Resources(p auth.Principal) ([]*mcp.Resource, []*mcp.ResourceTemplate)
	// ReadResource reads uri for p; found is false when there is no resource uri that p
	// may read.
	ReadResource(ctx context.Context, p auth.Principal, uri string) (res *mcp.ReadResourceResult, found bool, err error)
	// Prompts are the prompts p may get.
	Prompts(p auth.Principal) []*mcp.Prompt
	// GetPrompt gets a prompt through the gateway's prompt handler.
	GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error)
	// Info is the server's implementation and its instructions (its description).
	Info() (impl *mcp.Implementation, instructions string)
}

// API serves the REST routes of Servers.
type API struct {
	Servers Servers
	// Version is the version the OpenAPI description gives.
	Version string
	// ReadTimeout is limits.read_timeout, named when a body does not arrive in time.
	ReadTimeout time.Duration
	// Unavailable reports whether a handler's error says the store cannot be reached now:
	// it is answered 503 with Retry-After: StoreRetryAfter.
	Unavailable     func(*jsonrpc.Error) bool
	StoreRetryAfter int
}

// Routes serves the plain REST routes of a server, for callers that do not speak MCP (seed 003). They
// answer from the same sources as /mcp/{server} — the same tool handler (validation, roles,
// limits, metrics, audit), resource readers and prompt getters — behind the same Host,
// Origin, body-size and authentication rules; results are the MCP result objects as JSON,
// errors {"error": MESSAGE} with an HTTP status.
//
//	GET  /api/mcp/{server}/tools            {"tools": [...]} (?name=TOOL: that tool only)
//	POST /api/mcp/{server}/tools/call       {"name", "arguments"} → CallToolResult
//	GET  /api/mcp/{server}/resources        {"resources": [...], "resourceTemplates": [...]}
//	POST /api/mcp/{server}/resources/read   {"uri"} → ReadResourceResult
//	GET  /api/mcp/{server}/prompts          {"prompts": [...]}
//	POST /api/mcp/{server}/prompts/get      {"name", "arguments"} → GetPromptResult
//	POST /api/mcp/{server}/initialize       {"serverInfo", "capabilities", "instructions"}
//	GET  /api/mcp/{server}/openapi.json     an OpenAPI 3.1 description of these routes
func (a *API) Routes(mux *http.ServeMux) {
	route := func(pattern string, h func(http.ResponseWriter, *http.Request, Server)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			s, ok := a.Servers.Enter(w, r, r.PathValue("server"))
			if !ok {
				return
			}
			defer s.Exit()
			h(w, r, s)
		})
	}
	route("GET /api/mcp/{server}/tools", a.tools)
	route("POST /api/mcp/{server}/tools/call", a.callTool)
	route("GET /api/mcp/{server}/resources", a.resources)
	route("POST /api/mcp/{server}/resources/read", a.readResource)
	route("GET /api/mcp/{server}/prompts", a.prompts)
	route("POST /api/mcp/{server}/prompts/get", a.getPrompt)
	route("POST /api/mcp/{server}/initialize", a.initialize)
	route("GET /api/mcp/{server}/openapi.json", a.openAPI)
	mux.HandleFunc("/api/mcp/", func(w http.ResponseWriter, r *http.Request) {
		Error(w, http.StatusNotFound, "no such route: the routes of a server are GET /api/mcp/{server}/tools, POST …/tools/call, GET …/resources, POST …/resources/read, GET …/prompts, POST …/prompts/get, POST …/initialize and GET …/openapi.json (with the method shown)")
	})
}

// tools lists the tools the caller may call; with ?name=TOOL only that one (the server
// page loads a tool's schema so when it is opened), or 404 when the caller may call no tool
// of that name.
func (a *API) tools(w http.ResponseWriter, r *http.Request, s Server) {
	p := auth.FromContext(r.Context())
	q := r.URL.Query()
	name, one := q.Get("name"), q.Has("name")
	tools := []*mcp.Tool{}
	for _, t := range s.Tools(p) {
		if !one || t.Name == name {
			tools = append(tools, t)
		}
	}
	if one && len(tools) == 0 {
		Error(w, http.StatusNotFound, fmt.Sprintf("no tool %q on server %q; GET /api/mcp/%s/tools lists the tools", truncate(name, 100), s.Name(), s.Name()))
		return
	}
	JSON(w, http.StatusOK, map[string]any{"tools": tools})
}

func (a *API) callTool(w http.ResponseWriter, r *http.Request, s Server) {
	var body struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if !a.readBody(w, r, &body) {
		return
	}
	if body.Name == "" {
		Error(w, http.StatusBadRequest, `the body needs "name", the tool to call, and "arguments", an object: {"name": "TOOL", "arguments": {...}}`)
		return
	}
	if len(body.Arguments) == 0 || string(body.Arguments) == "null" {
		body.Arguments = json.RawMessage("{}")
	}
	res, err := s.CallTool(r.Context(), r.Header, body.Name, body.Arguments)
	if err != nil {
		a.rpcError(w, err, fmt.Sprintf("GET /api/mcp/%s/tools lists the tools", s.Name()))
		return
	}
	JSON(w, http.StatusOK, res)
}

// resources lists the resources and templates the caller may read.
func (a *API) resources(w http.ResponseWriter, r *http.Request, s Server) {
	resources, templates := s.Resources(auth.FromContext(r.Context()))
	JSON(w, http.StatusOK, map[string]any{"resources": resources, "resourceTemplates": templates})
}

func (a *API) readResource(w http.ResponseWriter, r *http.Request, s Server) {
	var body struct {
		URI string `json:"uri"`
	}
	if !a.readBody(w, r, &body) {
		return
	}
	if body.URI == "" {
		Error(w, http.StatusBadRequest, `the body needs "uri", the resource to read: {"uri": "..."}`)
		return
	}
	res, found, err := s.ReadResource(r.Context(), auth.FromContext(r.Context()), body.URI)
	if !found {
		// A resource the caller may not read answers as one that does not exist.
		Error(w, http.StatusNotFound, fmt.Sprintf("no resource %q on server %q; GET /api/mcp/%s/resources lists them", body.URI, s.Name(), s.Name()))
		return
	}
	if err != nil {
		a.rpcError(w, err, fmt.Sprintf("GET /api/mcp/%s/resources lists the resources", s.Name()))
		return
	}
	JSON(w, http.StatusOK, res)
}

// prompts lists the prompts the caller may get.
func (a *API) prompts(w http.ResponseWriter, r *http.Request, s Server) {
	prompts := s.Prompts(auth.FromContext(r.Context()))
	JSON(w, http.StatusOK, map[string]any{"prompts": prompts})
}

func (a *API) getPrompt(w http.ResponseWriter, r *http.Request, s Server) {
	var body struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if !a.readBody(w, r, &body) {
		return
	}
	if body.Name == "" {
		Error(w, http.StatusBadRequest, `the body needs "name", the prompt to get, and "arguments", an object of strings: {"name": "PROMPT", "arguments": {...}}`)
		return
	}
	res, err := s.GetPrompt(r.Context(), body.Name, body.Arguments)
	if err != nil {
		a.rpcError(w, err, fmt.Sprintf("GET /api/mcp/%s/prompts lists the prompts", s.Name()))
		return
	}
	JSON(w, http.StatusOK, res)
}

func (a *API) initialize(w http.ResponseWriter, r *http.Request, s Server) {
	impl, instructions := s.Info()
	JSON(w, http.StatusOK, map[string]any{
		"serverInfo": impl,
		"capabilities": &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
		"instructions": instructions,
	})
}

// openAPI describes the REST routes of a server in OpenAPI 3.1, with the tool names of
// the caller's view as an enum of the call body.
func (a *API) openAPI(w http.ResponseWriter, r *http.Request, s Server) {
	names := []string{}
	for _, t := range s.Tools(auth.FromContext(r.Context())) {
		names = append(names, t.Name)
	}
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	jsonBody := func(schema map[string]any) map[string]any {
		return obj("required", true, "content", obj("application/json", obj("schema", schema)))
	}
	ok := func(desc string) map[string]any {
		return obj("200", obj("description", desc, "content", obj("application/json", obj("schema", obj("type", "object")))),
			"default", obj("description", "an error", "content", obj("application/json", obj("schema", obj("$ref", "#/components/schemas/Error")))))
	}
	name := s.Name()
	base := "/api/mcp/" + name
	doc := obj(
		"openapi", "3.1.0",
		"info", obj("title", "mcpbridge server "+name, "version", a.Version,
			"description", "Plain REST access to the MCP server "+name+" (also at /mcp/"+name+"). Results are MCP result objects."),
		"paths", obj(
			base+"/tools", obj("get", obj("operationId", "listTools", "summary", "List the tools",
				"parameters", []any{obj("name", "name", "in", "query", "required", false, "schema", obj("type", "string"),
					"description", "list only this tool (404 when there is no such tool you may call)")},
				"responses", ok("{\"tools\": [Tool]}"))),
			base+"/tools/call", obj("post", obj("operationId", "callTool", "summary", "Call a tool",
				"requestBody", jsonBody(obj("type", "object", "required", []string{"name"}, "properties", obj(
					"name", obj("type", "string", "enum", names),
					"arguments", obj("type", "object")))),
				"responses", ok("CallToolResult: content, structuredContent, isError"))),
			base+"/resources", obj("get", obj("operationId", "listResources", "summary", "List the resources and resource templates", "responses", ok("{\"resources\": [Resource], \"resourceTemplates\": [ResourceTemplate]}"))),
			base+"/resources/read", obj("post", obj("operationId", "readResource", "summary", "Read a resource",
				"requestBody", jsonBody(obj("type", "object", "required", []string{"uri"}, "properties", obj("uri", obj("type", "string")))),
				"responses", ok("ReadResourceResult: contents"))),
			base+"/prompts", obj("get", obj("operationId", "listPrompts", "summary", "List the prompts", "responses", ok("{\"prompts\": [Prompt]}"))),
			base+"/prompts/get", obj("post", obj("operationId", "getPrompt", "summary", "Get a prompt",
				"requestBody", jsonBody(obj("type", "object", "required", []string{"name"}, "properties", obj(
					"name", obj("type", "string"),
					"arguments", obj("type", "object", "additionalProperties", obj("type", "string"))))),
				"responses", ok("GetPromptResult: description, messages"))),
			base+"/initialize", obj("post", obj("operationId", "initialize", "summary", "Server information and capabilities", "responses", ok("{\"serverInfo\", \"capabilities\", \"instructions\"}"))),
		),
		"components", obj("schemas", obj("Error", obj("type", "object", "required", []string{"error"}, "properties", obj("error", obj("type", "string"))))),
	)
	JSON(w, http.StatusOK, doc)
}

// readBody decodes a JSON object body into v, or answers 400 (415 for another content
// type) saying what to send, and reports false.
func (a *API) readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		Error(w, http.StatusUnsupportedMediaType, "send the body as JSON (Content-Type: application/json)")
		return false
	}
	d := json.NewDecoder(r.Body)
	if err := d.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooLarge):
			Error(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes (limits.max_body)", tooLarge.Limit))
		case errors.As(err, &ne) && ne.Timeout():
			w.Header().Set("Connection", "close")
			Error(w, http.StatusRequestTimeout, fmt.Sprintf("the body did not arrive within %s (limits.read_timeout)", a.ReadTimeout))
		case errors.Is(err, io.EOF):
			Error(w, http.StatusBadRequest, "the body is empty: send a JSON object")
		default:
			Error(w, http.StatusBadRequest, "the body is not the JSON object this route takes: "+err.Error())
		}
		return false
	}
	if d.More() {
		Error(w, http.StatusBadRequest, "the body holds more than one JSON value: send one object")
		return false
	}
	return true
}

// rpcError answers a JSON-RPC error of a handler with the matching HTTP status: 404 for
// what does not exist, 400 for bad parameters, 503 when the server is busy, else 500.
func (a *API) rpcError(w http.ResponseWriter, err error, hint string) {
	var re *jsonrpc.Error
	if !errors.As(err, &re) {
		Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	msg := re.Message
	status := http.StatusInternalServerError
	switch {
	case strings.HasPrefix(msg, "unknown tool") || strings.HasPrefix(msg, "unknown prompt") || re.Code == mcp.CodeResourceNotFound:
		status = http.StatusNotFound
		msg += "; " + hint
	case re.Code == jsonrpc.CodeInvalidParams || re.Code == jsonrpc.CodeInvalidRequest:
		status = http.StatusBadRequest
	case re.Code == admission.CodeBusy:
		if limit, retry := admission.LimitOf(re); limit != "" && limit != "concurrent_calls" {
			// A limit of the caller's own (rate, calls at once): 429, like at the edge.
			w.Header().Set("Retry-After", fmt.Sprint(retry))
			LimitError(w, http.StatusTooManyRequests, re)
			return
		}
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "1")
	case a.Unavailable != nil && a.Unavailable(re):
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", fmt.Sprint(a.StoreRetryAfter))
	}
	Error(w, status, msg)
}

// LimitError answers a request refused by a limit: {"error", "limit",
// "retryAfterSeconds"} (the caller has set Retry-After).
func LimitError(w http.ResponseWriter, status int, je *jsonrpc.Error) {
	limit, retry := admission.LimitOf(je)
	JSON(w, status, map[string]any{"error": je.Message, "limit": limit, "retryAfterSeconds": retry})
}

// JSON answers v as JSON with status.
func JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Error answers {"error": msg} with status.
func Error(w http.ResponseWriter, status int, msg string) {
	JSON(w, status, map[string]string{"error": msg})
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
