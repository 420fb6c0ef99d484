package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpbridge/mcpbridge/internal/admission"
	"github.com/mcpbridge/mcpbridge/internal/auth"
)

// The plain REST routes of a server, for callers that do not speak MCP (seed 003). They
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
func (g *Gateway) restRoutes(mux *http.ServeMux) {
	route := func(pattern string, h func(http.ResponseWriter, *http.Request, *Entry, *entryState)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			e, st, ok := g.restEntry(w, r)
			if !ok {
				return
			}
			defer st.live.exit()
			h(w, r, e, st)
		})
	}
	route("GET /api/mcp/{server}/tools", g.restTools)
	route("POST /api/mcp/{server}/tools/call", g.restCallTool)
	route("GET /api/mcp/{server}/resources", g.restResources)
	route("POST /api/mcp/{server}/resources/read", g.restReadResource)
	route("GET /api/mcp/{server}/prompts", g.restPrompts)
	route("POST /api/mcp/{server}/prompts/get", g.restGetPrompt)
	route("POST /api/mcp/{server}/initialize", g.restInitialize)
	route("GET /api/mcp/{server}/openapi.json", g.restOpenAPI)
	mux.HandleFunc("/api/mcp/", func(w http.ResponseWriter, r *http.Request) {
		restError(w, http.StatusNotFound, "no such route: the routes of a server are GET /api/mcp/{server}/tools, POST …/tools/call, GET …/resources, POST …/resources/read, GET …/prompts, POST …/prompts/get, POST …/initialize and GET …/openapi.json (with the method shown)")
	})
}

// restEntry finds the route's server, checks that it may be used by the caller and is
// being served, and enters it (the caller calls st.live.exit), or answers and reports false.
func (g *Gateway) restEntry(w http.ResponseWriter, r *http.Request) (*Entry, *entryState, bool) {
	name := r.PathValue("server")
	e := g.usableEntry(w, r, name, restError)
	if e == nil {
		return nil, nil, false
	}
	if !g.checkRate(w, r, e, func(status int, msg string, je *jsonrpc.Error) { restLimitError(w, status, je) }) {
		return nil, nil, false
	}
	st, ok := e.enter()
	if !ok {
		w.Header().Set("Retry-After", "1")
		restError(w, http.StatusServiceUnavailable, fmt.Sprintf("server %q is being replaced; retry", name))
		return nil, nil, false
	}
	if o := r.Header.Get("Origin"); o != "" { // checkOrigin let it through
		w.Header().Set("Access-Control-Allow-Origin", o)
		w.Header().Add("Vary", "Origin")
	}
	return e, st, true
}

// restTools lists the tools the caller may call; with ?name=TOOL only that one (the server
// page loads a tool's schema so when it is opened), or 404 when the caller may call no tool
// of that name.
func (g *Gateway) restTools(w http.ResponseWriter, r *http.Request, e *Entry, st *entryState) {
	p := auth.FromContext(r.Context())
	q := r.URL.Query()
	name, one := q.Get("name"), q.Has("name")
	tools := []*mcp.Tool{}
	for _, t := range st.catalog.Tools {
		if (!one || t.Name == name) && mayCall(p, st, t.Name) {
			tools = append(tools, t)
		}
	}
	if one && len(tools) == 0 {
		restError(w, http.StatusNotFound, fmt.Sprintf("no tool %q on server %q; GET /api/mcp/%s/tools lists the tools", truncate(name, 100), e.Name, e.Name))
		return
	}
	restJSON(w, http.StatusOK, map[string]any{"tools": tools})
}

func (g *Gateway) restCallTool(w http.ResponseWriter, r *http.Request, e *Entry, st *entryState) {
	var body struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if !g.readRESTBody(w, r, &body) {
		return
	}
	if body.Name == "" {
		restError(w, http.StatusBadRequest, `the body needs "name", the tool to call, and "arguments", an object: {"name": "TOOL", "arguments": {...}}`)
		return
	}
	if len(body.Arguments) == 0 || string(body.Arguments) == "null" {
		body.Arguments = json.RawMessage("{}")
	}
	res, err := g.toolHandler(e, body.Name)(r.Context(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: body.Name, Arguments: body.Arguments}, Extra: &mcp.RequestExtra{Header: r.Header}})
	if err != nil {
		restRPCError(w, err, fmt.Sprintf("GET /api/mcp/%s/tools lists the tools", e.Name))
		return
	}
	restJSON(w, http.StatusOK, res)
}

// restResources lists the resources and templates the caller may read.
func (g *Gateway) restResources(w http.ResponseWriter, r *http.Request, e *Entry, st *entryState) {
	p := auth.FromContext(r.Context())
	resources := keep(st.catalog.Resources, func(x *mcp.Resource) bool { return g.listable(p, st, x.URI, false) })
	templates := keep(st.catalog.Templates, func(t *mcp.ResourceTemplate) bool { return g.listable(p, st, t.URITemplate, true) })
	restJSON(w, http.StatusOK, map[string]any{"resources": resources, "resourceTemplates": templates})
}

func (g *Gateway) restReadResource(w http.ResponseWriter, r *http.Request, e *Entry, st *entryState) {
	var body struct {
		URI string `json:"uri"`
	}
	if !g.readRESTBody(w, r, &body) {
		return
	}
	if body.URI == "" {
		restError(w, http.StatusBadRequest, `the body needs "uri", the resource to read: {"uri": "..."}`)
		return
	}
	key, template := body.URI, false
	reader := st.readers[body.URI]
	if reader == nil {
		for tmpl, rd := range st.templates {
			if t, err := uritemplate.New(tmpl); err == nil && t.Match(body.URI) != nil {
				key, template, reader = tmpl, true, rd
				break
			}
		}
	}
	p := auth.FromContext(r.Context())
	if reader == nil || !mayRead(p, st, key, template) {
		// A resource the caller may not read answers as one that does not exist.
		restError(w, http.StatusNotFound, fmt.Sprintf("no resource %q on server %q; GET /api/mcp/%s/resources lists them", body.URI, e.Name, e.Name))
		return
	}
	res, err := g.scrubRead(reader.ReadResource(r.Context(), p, body.URI))
	if err != nil {
		restRPCError(w, err, fmt.Sprintf("GET /api/mcp/%s/resources lists the resources", e.Name))
		return
	}
	if res != nil {
		cacheControl(r.Context(), &res.Cacheable) // as a 2026-07-28 resources/read says it
	}
	restJSON(w, http.StatusOK, res)
}

// restPrompts lists the prompts the caller may get.
func (g *Gateway) restPrompts(w http.ResponseWriter, r *http.Request, e *Entry, st *entryState) {
	p := auth.FromContext(r.Context())
	prompts := keep(st.catalog.Prompts, func(x *mcp.Prompt) bool { return mayGetPrompt(p, st, x.Name) })
	restJSON(w, http.StatusOK, map[string]any{"prompts": prompts})
}

func (g *Gateway) restGetPrompt(w http.ResponseWriter, r *http.Request, e *Entry, st *entryState) {
	var body struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if !g.readRESTBody(w, r, &body) {
		return
	}
	if body.Name == "" {
		restError(w, http.StatusBadRequest, `the body needs "name", the prompt to get, and "arguments", an object of strings: {"name": "PROMPT", "arguments": {...}}`)
		return
	}
	res, err := g.promptHandler(e, body.Name)(r.Context(), &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{Name: body.Name, Arguments: body.Arguments}})
	if err != nil {
		restRPCError(w, err, fmt.Sprintf("GET /api/mcp/%s/prompts lists the prompts", e.Name))
		return
	}
	restJSON(w, http.StatusOK, res)
}

func (g *Gateway) restInitialize(w http.ResponseWriter, r *http.Request, e *Entry, st *entryState) {
	restJSON(w, http.StatusOK, map[string]any{
		"serverInfo": e.impl,
		"capabilities": &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
		"instructions": st.cfg.Description,
	})
}

// restOpenAPI describes the REST routes of a server in OpenAPI 3.1, with the tool names of
// the caller's view as an enum of the call body.
func (g *Gateway) restOpenAPI(w http.ResponseWriter, r *http.Request, e *Entry, st *entryState) {
	p := auth.FromContext(r.Context())
	names := []string{}
	for _, t := range st.catalog.Tools {
		if mayCall(p, st, t.Name) {
			names = append(names, t.Name)
		}
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
	base := "/api/mcp/" + e.Name
	doc := obj(
		"openapi", "3.1.0",
		"info", obj("title", "mcpbridge server "+e.Name, "version", g.opts.Version,
			"description", "Plain REST access to the MCP server "+e.Name+" (also at /mcp/"+e.Name+"). Results are MCP result objects."),
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
	restJSON(w, http.StatusOK, doc)
}

// readRESTBody decodes a JSON object body into v, or answers 400 (415 for another content
// type) saying what to send, and reports false.
func (g *Gateway) readRESTBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		restError(w, http.StatusUnsupportedMediaType, "send the body as JSON (Content-Type: application/json)")
		return false
	}
	d := json.NewDecoder(r.Body)
	if err := d.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooLarge):
			restError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes (limits.max_body)", tooLarge.Limit))
		case errors.As(err, &ne) && ne.Timeout():
			w.Header().Set("Connection", "close")
			restError(w, http.StatusRequestTimeout, fmt.Sprintf("the body did not arrive within %s (limits.read_timeout)", g.cfg.Limits.ReadTimeout))
		case errors.Is(err, io.EOF):
			restError(w, http.StatusBadRequest, "the body is empty: send a JSON object")
		default:
			restError(w, http.StatusBadRequest, "the body is not the JSON object this route takes: "+err.Error())
		}
		return false
	}
	if d.More() {
		restError(w, http.StatusBadRequest, "the body holds more than one JSON value: send one object")
		return false
	}
	return true
}

// restRPCError answers a JSON-RPC error of a handler with the matching HTTP status: 404 for
// what does not exist, 400 for bad parameters, 503 when the server is busy, else 500.
func restRPCError(w http.ResponseWriter, err error, hint string) {
	var re *jsonrpc.Error
	if !errors.As(err, &re) {
		restError(w, http.StatusInternalServerError, err.Error())
		return
	}
	msg := re.Message
	status := http.StatusInternalServerError
	switch {
	case strings.HasPrefix(msg, "unknown tool") || strings.HasPrefix(msg, "unknown prompt") || re.Code == mcp.CodeResourceNotFound:
		status = http.StatusNotFound
		msg += "; " + hint
	case re.Code == jsonrpc.CodeInvalidParams || re.Code == codeInvalidRequest:
		status = http.StatusBadRequest
	case re.Code == codeBusy:
		if limit, retry := admission.LimitOf(re); limit != "" && limit != "concurrent_calls" {
			// A limit of the caller's own (rate, calls at once): 429, like at the edge.
			w.Header().Set("Retry-After", fmt.Sprint(retry))
			restLimitError(w, http.StatusTooManyRequests, re)
			return
		}
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "1")
	case unavailableReason(re) != "":
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", fmt.Sprint(storeRetryAfter))
	}
	restError(w, status, msg)
}

// restLimitError answers a request refused by a limit: {"error", "limit",
// "retryAfterSeconds"} (the caller has set Retry-After).
func restLimitError(w http.ResponseWriter, status int, je *jsonrpc.Error) {
	limit, retry := admission.LimitOf(je)
	restJSON(w, status, map[string]any{"error": je.Message, "limit": limit, "retryAfterSeconds": retry})
}

func restJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func restError(w http.ResponseWriter, status int, msg string) {
	restJSON(w, status, map[string]string{"error": msg})
}
