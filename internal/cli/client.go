package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// clientFlags are the flags of tools and call: where the server is.
type clientFlags struct {
	storeFlags
	url string
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
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("connecting to %s: %w", endpoint, err)
		}
		return cs, func() { cs.Close() }, nil
	}
	st, cfg, log, err := f.open(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	var defs store.Definitions
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
		g.Close()
		st.Close()
		return nil, nil, fmt.Errorf("no server named %q in the config or the store (have: %s)", server, strings.Join(cfg.ServerNames(), ", "))
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

func runTools(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tools", "SERVER [--config FILE | --url URL]")
	var f clientFlags
	fs.StringVar(&f.config, "config", "", "config file (default ./mcpbridge.yaml, else the embedded quickstart)")
	fs.StringVar(&f.url, "url", "", "a running gateway, e.g. http://127.0.0.1:8080")
	fs.StringVar(&f.store, "store", "", "store URL for servers added through the admin API")
	jsonOut := fs.Bool("json", false, "print the tools as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
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
		fmt.Fprintf(e.stdout, "%s\n", t.Name)
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
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
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
	fs := newFlags(e, "call", "SERVER TOOL [--config FILE | --url URL] [NAME=VALUE ...] [--json ARGS]")
	var f clientFlags
	fs.StringVar(&f.config, "config", "", "config file (default ./mcpbridge.yaml, else the embedded quickstart)")
	fs.StringVar(&f.url, "url", "", "a running gateway, e.g. http://127.0.0.1:8080")
	fs.StringVar(&f.store, "store", "", "store URL for servers added through the admin API")
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
	arguments := map[string]any{}
	if *rawJSON != "" {
		if err := json.Unmarshal([]byte(*rawJSON), &arguments); err != nil {
			return fmt.Errorf("--json: expected a JSON object: %v", err)
		}
	}
	for _, kv := range pos[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("argument %q: write NAME=VALUE (a JSON value, or text)", kv)
		}
		arguments[k] = argValue(v)
	}
	cs, done, err := connectClient(ctx, e, f, server)
	if err != nil {
		return err
	}
	defer done()
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

// argValue reads NAME=VALUE's value: numbers, true/false/null, objects and arrays as JSON,
// anything else as text.
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
