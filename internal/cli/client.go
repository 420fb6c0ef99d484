package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// clientFlags are the flags of tools and call: where the server is.
type clientFlags struct {
	storeFlags
	url string
	key string // an API key for --url (MCPBRIDGE_API_KEY when empty)
}

// addClientFlags adds the flags tools and call share.
func addClientFlags(fs *flag.FlagSet, f *clientFlags) {
	fs.StringVar(&f.config, "config", "", "config file (default ./mcpbridge.yaml, else the embedded quickstart)")
	fs.StringVar(&f.url, "url", "", "a running gateway, e.g. http://127.0.0.1:8080")
	fs.StringVar(&f.key, "key", "", "API key for --url (prefer the "+apiKeyEnv+" variable: a --key on the command line is visible to other users in ps)")
	fs.StringVar(&f.store, "store", "", "store URL for servers added through the admin API")
}

// keyTransport sends an API key as a bearer token (when there is one) and notes whether
// the gateway answered 401, so the error can say how to pass a key.
type keyTransport struct {
	key          string
	base         http.RoundTripper
	unauthorized atomic.Bool
}

// RoundTrip sends r with the key.
func (t *keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.key != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+t.key)
	}
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.unauthorized.Store(true)
	}
	return resp, err
}

// explain adds to err what to do when the gateway answered 401.
func (t *keyTransport) explain(err error) error {
	if !t.unauthorized.Load() {
		return err
	}
	if t.key == "" {
		return fmt.Errorf("%w\nthe gateway needs an API key: set %s=KEY (or pass --key KEY, which other users can see in ps)", err, apiKeyEnv)
	}
	return fmt.Errorf("%w\nthe gateway refused the API key (from --key or %s): check that it is a key of this gateway and not revoked or expired", err, apiKeyEnv)
}

// connectClient opens an MCP client session to server: in-process when the server comes
// from a config file (or the store), over HTTP with --url.
func connectClient(ctx context.Context, e *env, f clientFlags, server string) (*mcp.ClientSession, func(), error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpbridge-cli", Version: version()}, nil)
	if f.url != "" {
		endpoint := strings.TrimSuffix(f.url, "/")
		if !strings.Contains(endpoint, "/mcp/") {
			endpoint += "/mcp/" + server
		}
		key := cmp.Or(f.key, os.Getenv(apiKeyEnv))
		rt := &keyTransport{key: key, base: http.DefaultTransport}
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rt}}, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("connecting to %s: %w", endpoint, rt.explain(err))
		}
		return cs, func() { cs.Close() }, nil
	}
	st, cfg, log, err := f.openClient(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	var defs store.Definitions
	fileServers := cfg.ServerNames()
	if s, ok := cfg.Servers[server]; ok {
		cfg.Servers = map[string]*config.Server{server: s}
	} else {
		cfg.Servers = map[string]*config.Server{}
		defs = onlySlug{st.Definitions, server} // a server added through the admin API
	}
	g, err := gateway.New(ctx, cfg, gateway.Options{Logger: log, Version: version(), Blobs: st.Blobs, WorkSessions: st.WorkSessions, Definitions: defs})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	entry := g.Entry(server)
	if entry == nil {
		have := serverNames(ctx, fileServers, st.Definitions)
		g.Close()
		st.Close()
		return nil, nil, fmt.Errorf("no server named %q in the config or the store (have: %s)", server, have)
	}
	if !entry.Config().IsEnabled() {
		g.Close()
		st.Close()
		return nil, nil, errDisabled(server)
	}
	if reason := entry.Unavailable(); reason != "" {
		g.Close()
		st.Close()
		return nil, nil, fmt.Errorf("server %q is unavailable: %s", server, reason)
	}
	ct, stt := mcp.NewInMemoryTransports()
	ss, err := entry.Server.Connect(ctx, stt, nil)
	if err != nil {
		g.Close()
		st.Close()
		return nil, nil, err
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		g.Close()
		st.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Close(); g.Close(); st.Close() }, nil
}

// serverNames lists the servers there are, for a message about a name that is not one of
// them: the config's, then the stored ones marked "(stored)"; "none" when there are none.
func serverNames(ctx context.Context, file []string, defs store.Definitions) string {
	have := slices.Clone(file)
	if defs != nil {
		if stored, err := defs.List(ctx); err == nil {
			for _, d := range stored {
				have = append(have, d.Slug+" (stored)")
			}
		}
	}
	if len(have) == 0 {
		return "none"
	}
	return strings.Join(have, ", ")
}

func runTools(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tools", "SERVER [--config FILE | --url URL [--key KEY]]")
	var f clientFlags
	addClientFlags(fs, &f)
	jsonOut := fs.Bool("json", false, "print the tools as JSON")
	pos, err := parseN(fs, args, 1)
	if err != nil {
		return err
	}
	cs, done, err := connectClient(ctx, e, f, pos[0])
	if err != nil {
		return err
	}
	defer done()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		tools = append(tools, t)
	}
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(tools)
	}
	for _, t := range tools {
		if by, ok := t.Meta[backend.MetaGenerated].(string); ok {
			fmt.Fprintf(e.stdout, "%s (generated by %s)\n", t.Name, by)
		} else {
			fmt.Fprintf(e.stdout, "%s\n", t.Name)
		}
		if t.Description != "" {
			fmt.Fprintf(e.stdout, "    %s\n", firstLine(t.Description))
		}
		for _, a := range toolArgs(t) {
			fmt.Fprintf(e.stdout, "    %s\n", a)
		}
	}
	return nil
}

// toolArgs describes a tool's arguments from its input schema, one per line:
// "name: type (required) — description".
func toolArgs(t *mcp.Tool) []string {
	b, _ := json.Marshal(t.InputSchema)
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	json.Unmarshal(b, &s)
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	names := slices.Sorted(maps.Keys(s.Properties))
	var out []string
	for _, n := range names {
		p := s.Properties[n]
		line := n
		if p.Type != nil {
			line += fmt.Sprintf(": %v", p.Type)
		}
		if req[n] {
			line += " (required)"
		}
		if p.Description != "" {
			line += " — " + firstLine(p.Description)
		}
		out = append(out, line)
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func runCall(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "call", "SERVER TOOL [--config FILE | --url URL [--key KEY]] [NAME=VALUE ... | --json ARGS]")
	var f clientFlags
	addClientFlags(fs, &f)
	rawJSON := fs.String("json", "", `the arguments as a JSON object, e.g. '{"message":"hi"}'`)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		fs.Usage()
		return errUsage
	}
	server, tool := pos[0], pos[1]
	if *rawJSON != "" && len(pos) > 2 {
		return usageError(e, fs, nil, "give the arguments either as NAME=VALUE or with --json, not both")
	}
	arguments := map[string]any{}
	if *rawJSON != "" {
		if err := json.Unmarshal([]byte(*rawJSON), &arguments); err != nil {
			return fmt.Errorf("--json: expected a JSON object: %v", err)
		}
	}
	var pairs [][2]string
	for _, kv := range pos[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("argument %q: write NAME=VALUE", kv)
		}
		pairs = append(pairs, [2]string{k, v})
	}
	cs, done, err := connectClient(ctx, e, f, server)
	if err != nil {
		return err
	}
	defer done()
	if len(pairs) > 0 {
		// Each value is typed by the tool's input schema, so it needs the tool.
		var props map[string]any
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return fmt.Errorf("listing tools: %w", err)
			}
			if t.Name == tool {
				props = schemaProperties(t.InputSchema)
				break
			}
		}
		for _, p := range pairs {
			v, err := typedArg(p[0], p[1], props[p[0]])
			if err != nil {
				return err
			}
			arguments[p[0]] = v
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: arguments})
	if err != nil {
		return fmt.Errorf("calling %s: %w", tool, err)
	}
	printResult(e.stdout, res)
	if res.IsError {
		return exitError{1}
	}
	return nil
}

// schemaProperties returns the properties of an input schema ({"properties": {...}}), nil
// when it has none.
func schemaProperties(schema any) map[string]any {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	json.Unmarshal(b, &s)
	return s.Properties
}

// typedArg reads NAME=VALUE's value as the type the property's schema gives (prop, nil when
// the schema does not name the property): a string as given, an integer, number or boolean
// parsed (an error naming the argument when it is not one), an object or array as JSON. A
// property of several types takes the first of them the value reads as. Without a type
// the value is guessed (argValue).
func typedArg(name, v string, prop any) (any, error) {
	var types []string
	if m, ok := prop.(map[string]any); ok {
		switch t := m["type"].(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok {
					types = append(types, s)
				}
			}
		}
	}
	if len(types) == 0 {
		return argValue(v), nil
	}
	// A union with string reads the value as string last, so "null" or "7" keeps the
	// type the schema also allows; a value that reads as none of the others is a string.
	if i := slices.Index(types, "string"); i >= 0 && len(types) > 1 {
		types = append(slices.Delete(slices.Clone(types), i, i+1), "string")
	}
	for _, t := range types {
		if x, ok := readAs(t, v); ok {
			return x, nil
		}
	}
	want := strings.Join(types, " or ")
	if len(types) == 1 {
		want = map[string]string{"integer": "an integer", "number": "a number", "boolean": "true or false",
			"object": "a JSON object", "array": "a JSON array", "null": "null"}[types[0]]
		if want == "" {
			want = types[0]
		}
	}
	return nil, fmt.Errorf("argument %s: expected %s (its type in the tool's input schema), got %q", name, want, v)
}

// readAs reads v as the JSON Schema type t.
func readAs(t, v string) (any, bool) {
	switch t {
	case "string":
		return v, true
	case "integer":
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			return json.Number(v), true
		}
		// 1e3 and 7.0 are integers to JSON Schema too.
		if f, err := strconv.ParseFloat(v, 64); err == nil && f == float64(int64(f)) {
			return int64(f), true
		}
	case "number":
		if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
		}
	case "boolean":
		if b, err := strconv.ParseBool(v); err == nil && (v == "true" || v == "false") {
			return b, true
		}
	case "null":
		if v == "null" {
			return nil, true
		}
	case "object", "array":
		var x any
		if json.Unmarshal([]byte(v), &x) != nil {
			return nil, false
		}
		if _, ok := x.(map[string]any); ok == (t == "object") {
			if _, isArr := x.([]any); isArr == (t == "array") {
				return x, true
			}
		}
	}
	return nil, false
}

// argValue guesses the type of NAME=VALUE's value when the tool's schema does not give
// one: numbers, true/false/null, objects and arrays as JSON, anything else as text.
func argValue(v string) any {
	if _, err := strconv.ParseFloat(v, 64); err == nil || v == "true" || v == "false" || v == "null" || strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
		var x any
		if json.Unmarshal([]byte(v), &x) == nil {
			return x
		}
	}
	return v
}

// printResult prints a tool result: text as it is, structured content as indented JSON,
// other content by type.
func printResult(w io.Writer, res *mcp.CallToolResult) {
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			fmt.Fprint(w, c.Text)
			if !strings.HasSuffix(c.Text, "\n") {
				fmt.Fprintln(w)
			}
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				fmt.Fprintf(w, "[resource %s, %s]\n", c.Resource.URI, c.Resource.MIMEType)
			}
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[link %s]\n", c.URI)
		}
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		b, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		fmt.Fprintln(w, string(b))
	}
}
