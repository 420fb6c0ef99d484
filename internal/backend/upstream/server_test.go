package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The upstream MCP server of these tests is this test binary: TestMain runs it instead of
// the tests when UPSTREAM_TEST_SERVER is set (stdio or http), as go-sdk's cmd_test does.
//
// Its environment:
//   - UPSTREAM_TEST_SERVER=stdio|http|sse (http and sse listen on 127.0.0.1:0 and print
//     "LISTEN addr"; http serves both eras, sse the 2024-11-05 HTTP+SSE transport)
//   - UPSTREAM_TEST_LEGACY=1: speak 2025-11-25 and older only (no 2026-07-28), so input
//     requests become server-to-client requests
//   - UPSTREAM_TEST_START_DELAY=2s: wait before serving
//   - UPSTREAM_TEST_EXPECT_AUTH=value: the tool auth says whether Authorization was value
//   - UPSTREAM_TEST_EVENTS=1: the session handler keeps an event store, so that the
//     streams it ends (the poll tool) can be resumed
//   - UPSTREAM_TEST_HOSTILE=1: also serve the hostile tools, resources, prompt and
//     completions of hostile_test.go, which hand on every secret within reach
func runTestServer(mode string) {
	if d, err := time.ParseDuration(os.Getenv("UPSTREAM_TEST_START_DELAY")); err == nil {
		time.Sleep(d)
	}
	opts := &mcp.ServerOptions{
		CompletionHandler:  complete,
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Logging:   &mcp.LoggingCapabilities{},
		},
	}
	hostile := os.Getenv("UPSTREAM_TEST_HOSTILE") != ""
	if hostile {
		opts.CompletionHandler = hostileComplete
	}
	if os.Getenv("UPSTREAM_TEST_LEGACY") != "" {
		opts.SupportedProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream-test", Version: "1"}, opts)
	addTools(srv)
	addDirectAskers(srv)
	if hostile {
		addHostile(srv)
	}
	srv.AddResource(&mcp.Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "static text"}}}, nil
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimPrefix(req.Params.URI, "test://items/")
			if id == "missing" {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item " + id}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: "greets", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]}}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "ask_prompt", Description: "asks the user for context"},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if r, ok := req.Params.InputResponses["context"].(*mcp.ElicitResult); ok {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("context %v (state %s)", r.Content["name"], req.Params.RequestState)}}}}, nil
			}
			return &mcp.GetPromptResult{RequestState: "prompted", InputRequests: mcp.InputRequestMap{"context": &mcp.ElicitParams{
				Message:         "Which context?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			}}}, nil
		})
	switch mode {
	case "stdio":
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "upstream test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "http", "sse":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		get := func(*http.Request) *mcp.Server { return srv }
		var h http.Handler
		switch {
		case mode == "sse":
			h = mcp.NewSSEHandler(get, nil)
		case os.Getenv("UPSTREAM_TEST_LEGACY") != "":
			h = mcp.NewStreamableHTTPHandler(get, legacyOptions())
		default: // both eras at one URL, as the gateway serves them
			legacy := mcp.NewStreamableHTTPHandler(get, legacyOptions())
			modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
			h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
					modern.ServeHTTP(w, r)
				} else {
					legacy.ServeHTTP(w, r)
				}
			})
		}
		if hostile {
			h = recordAuthorization(h)
		}
		if mode == "http" {
			h = malformedResults(h)
		}
		fmt.Printf("LISTEN %s\n", ln.Addr())
		_ = http.Serve(ln, h)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "unknown UPSTREAM_TEST_SERVER", mode)
	os.Exit(2)
}

// legacyOptions are the options of the test server's session handler: an event store
// when UPSTREAM_TEST_EVENTS is set (its streams can be resumed), none otherwise.
func legacyOptions() *mcp.StreamableHTTPOptions {
	if os.Getenv("UPSTREAM_TEST_EVENTS") == "" {
		return nil
	}
	return &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}
}

var (
	hangCalls atomic.Int64 // hang calls that started
	counters  sync.Map     // *mcp.ServerSession -> *atomic.Int64
)

func textResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

type argMap map[string]any

func args(req *mcp.CallToolRequest) argMap {
	var m argMap
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

func (m argMap) str(k string) string { s, _ := m[k].(string); return s }

func (m argMap) num(k string) int { f, _ := m[k].(float64); return int(f) }

func addTools(srv *mcp.Server) {
	obj := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
	}
	tool := func(name, desc, props string, h mcp.ToolHandler) {
		srv.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: obj(props)}, h)
	}
	tool("echo", "echoes text", `"text":{"type":"string"}`, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t := args(req).str("text")
		r := textResult("%s", t)
		r.StructuredContent = map[string]any{"text": t}
		return r, nil
	})
	tool("region", "echoes its region and the Mcp-Param-Region header the request carried (x-mcp-header, SEP-2243)",
		`"region":{"type":"string","x-mcp-header":"Region"}`, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			h := "none"
			if req.Extra != nil && req.Extra.Header != nil && req.Extra.Header.Get("Mcp-Param-Region") != "" {
				h = req.Extra.Header.Get("Mcp-Param-Region")
			}
			return textResult("region %s, header %s", args(req).str("region"), h), nil
		})
	tool("poll", "ends its request's event stream (SEP-1699: the client is to poll), then answers", ``, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Extra != nil && req.Extra.CloseSSEStream != nil {
			// The answer goes to the event store, if any: the stream has ended.
			req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 20 * time.Millisecond})
		}
		return textResult("polled"), nil
	})
	tool("big", "returns a text of n bytes", `"n":{"type":"number"}`, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("%s", strings.Repeat("x", args(req).num("n"))), nil
	})
	tool("pid", "the server's process id", ``, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("%d", os.Getpid()), nil
	})
	tool("count", "counts calls in this session", ``, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, _ := counters.LoadOrStore(req.Session, new(atomic.Int64))
		return textResult("%d", v.(*atomic.Int64).Add(1)), nil
	})
	tool("progress", "reports progress", `"steps":{"type":"integer"}`, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n := args(req).num("steps")
		tok := req.Params.GetProgressToken()
		for i := 1; i <= n; i++ {
			if tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(n), Message: fmt.Sprintf("step %d", i)})
			}
		}
		return textResult("done %d", n), nil
	})
	tool("log", "logs a message", `"message":{"type":"string"},"level":{"type":"string"}`, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a := args(req)
		lvl := mcp.LoggingLevel(a.str("level"))
		if lvl == "" {
			lvl = "info"
		}
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: lvl, Logger: "upstream", Data: a.str("message")})
		return textResult("logged"), nil
	})
	tool("ask", "asks the user's name", ``, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok {
			return textResult("hello %v (%s, state %s)", r.Content["name"], r.Action, req.Params.RequestState), nil
		}
		return &mcp.CallToolResult{RequestState: "asked", InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
			Message:         "Your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		}}}, nil
	})
	tool("twice", "asks two questions, one round after the other", ``, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		elicit := func(key string) mcp.InputRequestMap {
			return mcp.InputRequestMap{key: &mcp.ElicitParams{Message: key + "?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"type": "string"}}}}}
		}
		switch req.Params.RequestState {
		case "":
			return &mcp.CallToolResult{RequestState: "one", InputRequests: elicit("first")}, nil
		case "one":
			r, _ := req.Params.InputResponses["first"].(*mcp.ElicitResult)
			if r == nil {
				return textResult("no first answer"), nil
			}
			return &mcp.CallToolResult{RequestState: "two:" + fmt.Sprint(r.Content["v"]), InputRequests: elicit("second")}, nil
		}
		r, _ := req.Params.InputResponses["second"].(*mcp.ElicitResult)
		if r == nil {
			return textResult("no second answer"), nil
		}
		return textResult("%s then %v", strings.TrimPrefix(req.Params.RequestState, "two:"), r.Content["v"]), nil
	})
	tool("sample", "asks the client's model", ``, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch r := req.Params.InputResponses["s"].(type) {
		case *mcp.CreateMessageResult:
			return textResult("model %s said %s", r.Model, r.Content.(*mcp.TextContent).Text), nil
		case *mcp.CreateMessageWithToolsResult:
			return textResult("model %s said %s", r.Model, r.Content[0].(*mcp.TextContent).Text), nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"s": &mcp.CreateMessageParams{
			MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}},
		}}}, nil
	})
	tool("roots", "lists the client's roots", ``, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r, ok := req.Params.InputResponses["r"].(*mcp.ListRootsResult); ok {
			var uris []string
			for _, root := range r.Roots {
				uris = append(uris, root.URI)
			}
			slices.Sort(uris)
			return textResult("roots %s", strings.Join(uris, ",")), nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"r": &mcp.ListRootsParams{}}}, nil
	})
	tool("slow", "waits; with mark, writes the files mark.started and mark.cancelled", `"ms":{"type":"integer"},"mark":{"type":"string"}`, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mark := args(req).str("mark")
		if mark != "" {
			_ = os.WriteFile(mark+".started", nil, 0o600)
		}
		select {
		case <-time.After(time.Duration(args(req).num("ms")) * time.Millisecond):
			return textResult("slept"), nil
		case <-ctx.Done():
			if mark != "" {
				_ = os.WriteFile(mark+".cancelled", nil, 0o600)
			}
			return textResult("cancelled"), nil
		}
	})
	tool("hang", "never answers", ``, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		hangCalls.Add(1)
		select {}
	})
	tool("hang_started", "how many hang calls started", ``, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("%d", hangCalls.Load()), nil
	})
	tool("crash", "exits in the middle of the call", ``, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "crashing on purpose")
		os.Exit(3)
		return nil, nil
	})
	tool("garbage", "writes something that is not JSON-RPC on stdout", ``, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stdout, "this is not json")
		time.Sleep(2 * time.Second)
		return textResult("too late"), nil
	})
	tool("flood", "writes one JSON-RPC message of n bytes on stdout at once", `"n":{"type":"number"}`, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		line := append([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`), strings.Repeat("x", args(req).num("n"))...)
		os.Stdout.Write(append(line, "\"}}\n"...))
		time.Sleep(2 * time.Second)
		return textResult("too late"), nil
	})
	tool("env", "reads an environment variable", `"name":{"type":"string"}`, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, ok := os.LookupEnv(args(req).str("name"))
		if !ok {
			return textResult("unset"), nil
		}
		return textResult("%s", v), nil
	})
	tool("auth", "says whether the request carried the expected Authorization", ``, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var got []string
		if req.Extra != nil {
			got = req.Extra.Header.Values("Authorization")
		}
		want := os.Getenv("UPSTREAM_TEST_EXPECT_AUTH")
		return textResult("expected=%v count=%d", len(got) == 1 && got[0] == want, len(got)), nil
	})
	tool("touch", "says that a resource changed", `"uri":{"type":"string"}`, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		uri := args(req).str("uri")
		if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			return nil, err
		}
		return textResult("touched %s", uri), nil
	})
	tool("whoami", "says what the client declared about itself", ``, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var declared []string
		if caps := req.ClientCapabilities(); caps != nil {
			if caps.Sampling != nil {
				declared = append(declared, "sampling")
			}
			if caps.Elicitation != nil {
				declared = append(declared, "elicitation")
			}
			if caps.RootsV2 != nil {
				declared = append(declared, "roots")
			}
		}
		name := ""
		if info := req.ClientInfo(); info != nil {
			name = info.Name
		}
		return textResult("%s [%s]", name, strings.Join(declared, " ")), nil
	})
	tool("needs_sampling", "refuses a client that cannot sample", ``, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
			data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}})
			return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "this tool needs sampling", Data: data}
		}
		return textResult("can sample"), nil
	})
	tool("add_tool", "adds a tool", `"name":{"type":"string"}`, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := args(req).str("name")
		srv.AddTool(&mcp.Tool{Name: name, Description: "added later", InputSchema: obj(``)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("I am %s", name), nil
		})
		return textResult("added %s", name), nil
	})
}

func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var all []string
	switch {
	case req.Params.Ref.Type == "ref/prompt" && req.Params.Ref.Name == "greet":
		all = []string{"alice", "alfred", "bob"}
	case req.Params.Ref.Type == "ref/resource" && req.Params.Ref.URI == "test://items/{id}":
		all = []string{"10", "11", "20"}
	}
	var out []string
	for _, v := range all {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			out = append(out, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: out, Total: len(out)}}, nil
}
