package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// addDirectAskers adds the tools of the test server that ask the client the way servers
// written for the legacy protocol do: with requests in the middle of the call
// (ServerSession.Elicit, CreateMessage), which a 2026-07-28 session refuses ("cannot be
// sent while serving a request").
func addDirectAskers(srv *mcp.Server) {
	srv.AddTool(&mcp.Tool{Name: "ask_direct", Description: "asks the user and the model with requests", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			})
			if err != nil {
				return nil, fmt.Errorf("elicitation failed: %w", err)
			}
			sm, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
			if err != nil {
				return nil, fmt.Errorf("sampling failed: %w", err)
			}
			said := ""
			if tc, ok := sm.Content.(*mcp.TextContent); ok {
				said = tc.Text
			}
			return textResult("name %v, model %s said %s", el.Content["name"], sm.Model, said), nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "ask_direct_prompt", Description: "asks the user with a request"},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Which context?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			})
			if err != nil {
				return nil, fmt.Errorf("elicitation failed: %w", err)
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("context %v", el.Content["name"])}}}}, nil
		})
	// Over HTTP malformedResults answers bad_result itself; over stdio it answers.
	srv.AddTool(&mcp.Tool{Name: "bad_result", Description: "answered with a malformed result over HTTP", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("a well-formed result"), nil
		})
}

// malformedResults answers a tools/call of bad_result with a result that is not a
// CallToolResult (content is a number): the client fails to decode it, while the session
// stays up.
func malformedResults(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" || msg.Params.Name != "bad_result" {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":7}}`, msg.ID)
	})
}

// directAnswer is what ask_direct answers a client of newClient.
const directAnswer = "name Ada, model test-model said hello from the model"

// mcpbridgeStdio starts `mcpbridge stdio SERVER` (this test binary, running the real
// command) with the config yaml, and connects a client to it at a protocol version.
func mcpbridgeStdio(t *testing.T, mc *mcp.Client, yaml, server, version string) *mcp.ClientSession {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpbridge.yaml")
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self(t), "stdio", "--config", cfg, server)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPBRIDGE_") && !strings.HasPrefix(kv, "UPSTREAM_TEST_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "UPSTREAM_TEST_MCPBRIDGE=1")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mc.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("mcpbridge stdio: %v; its stderr:\n%s", err, stderr)
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("mcpbridge stdio's stderr:\n%s", stderr)
		}
	})
	return cs
}

// connectSSE opens a downstream session over the legacy HTTP+SSE transport.
func connectSSE(t *testing.T, mc *mcp.Client, srv *gatewaytest.Server, name, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := mc.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: srv.URL + "/mcp/" + name + "/sse"}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s over SSE (%s): %v", name, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Issue 20 point 11: a legacy client gets a legacy upstream session on every transport —
// Streamable HTTP, HTTP+SSE and `mcpbridge stdio` — so an upstream that asks it for
// elicitation and sampling with requests in the middle of a call (which a 2026-07-28
// upstream session refuses) reaches it, and its answers reach the upstream.
func TestLegacyClientsGetLegacyUpstreamSessions(t *testing.T) {
	ups := []variant{
		{"stdio-upstream", stdioUpstream(t, nil, "")},
		{"http-upstream", "    url: " + startHTTPServer(t) + "\n"},
	}
	for _, up := range ups {
		t.Run(up.name, func(t *testing.T) {
			yaml := "servers:\n  up:\n    kind: mcp\n    description: d\n" + up.yaml
			srv := start(t, yaml)
			for _, version := range []string{"2025-11-25", "2025-06-18"} {
				t.Run("streamable-"+version, func(t *testing.T) {
					_, cs := connect(t, srv, "up", version)
					wantText(t, cs, "ask_direct", nil, directAnswer)
				})
				t.Run("sse-"+version, func(t *testing.T) {
					_, mc := newClient()
					cs := connectSSE(t, mc, srv, "up", version)
					wantText(t, cs, "ask_direct", nil, directAnswer)
				})
			}
			if up.name == "stdio-upstream" {
				// Each SSE session has an upstream session (a child) of its own, stopped
				// when the session ends.
				t.Run("sse-sessions", func(t *testing.T) {
					_, mc := newClient()
					a, b := connectSSE(t, mc, srv, "up", "2025-11-25"), connectSSE(t, mc, srv, "up", "2025-11-25")
					pa, pb := pidOf(t, a, "pid"), pidOf(t, b, "pid")
					if pa == pb {
						t.Fatalf("two SSE sessions share the child %d", pa)
					}
					wantText(t, a, "count", nil, "1")
					wantText(t, a, "count", nil, "2")
					wantText(t, b, "count", nil, "1")
					a.Close()
					waitGone(t, pa, "its SSE session ended")
					if !alive(pb) {
						t.Error("the other SSE session's child stopped too")
					}
				})
			}
			t.Run("stdio", func(t *testing.T) {
				_, mc := newClient()
				cs := mcpbridgeStdio(t, mc, yaml, "up", "2025-11-25")
				wantText(t, cs, "ask_direct", nil, directAnswer)
			})
		})
	}
}

// rawClient is a 2026-07-28 client that sees input requests (it does not answer them
// itself) and declares the capabilities of caps ("elicitation", "sampling").
func rawClient(t *testing.T, srv *gatewaytest.Server, name string, caps ...string) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
	for _, c := range caps {
		switch c {
		case "elicitation":
			opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return nil, errors.New("a raw client answers with its retry")
			}
		case "sampling":
			opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return nil, errors.New("a raw client answers with its retry")
			}
		}
	}
	mc := mcp.NewClient(&mcp.Implementation{Name: "raw", Version: "1"}, opts)
	cs, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/" + name}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// oneRequest returns the key and the request of the one input request of a round, which
// must name a parked call.
func oneRequest(t *testing.T, what string, reqs mcp.InputRequestMap, state string) (string, mcp.InputRequest) {
	t.Helper()
	if len(reqs) != 1 || !strings.HasPrefix(state, "mcpbridge-parked:") {
		t.Fatalf("%s: input requests %v, requestState %q; want one input request of a parked call", what, reqs, state)
	}
	for k, ir := range reqs {
		return k, ir
	}
	return "", nil
}

// askRound calls tool (with the answers of a previous round) and returns its result.
func askRound(t *testing.T, cs *mcp.ClientSession, tool string, answers mcp.InputResponseMap, state string) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}, InputResponses: answers, RequestState: state})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return r
}

func nameAnswer(name string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}
}

// Issue 20 point 13: a call parked for a stateless caller's input belongs to that call
// alone. One anonymous caller abandons a parked call (the timeout is long: it would
// hold on for ten minutes); another anonymous caller's calls are asked their own input and
// answered, round after round, and the abandoned call can still be taken up by its
// continuation. With isolation: shared too, where a legacy client's call on the shared
// upstream session is asked its input meanwhile.
func TestAbandonedParkedCallBlocksNoOne(t *testing.T) {
	var ups []variant
	for _, isolation := range []string{"per-session", "shared"} {
		ups = append(ups,
			variant{isolation + "/stdio", "    isolation: " + isolation + "\n" + stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, "")},
			variant{isolation + "/http", "    isolation: " + isolation + "\n    url: " + startHTTPServer(t, "UPSTREAM_TEST_LEGACY=1") + "\n"})
	}
	for _, up := range ups {
		t.Run(up.name, func(t *testing.T) {
			srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    timeout: 10m\n"+up.yaml)
			a := rawClient(t, srv, "up", "elicitation", "sampling")
			b := rawClient(t, srv, "up", "elicitation", "sampling")

			first := askRound(t, a, "ask", nil, "")
			aKey, _ := oneRequest(t, "the abandoned call", first.InputRequests, first.RequestState)

			r := askRound(t, b, "ask", nil, "")
			key, ir := oneRequest(t, "another caller's call", r.InputRequests, r.RequestState)
			if p, ok := ir.(*mcp.ElicitParams); !ok || p.Message != "Your name?" {
				t.Errorf("input request = %#v", ir)
			}
			if r := askRound(t, b, "ask", mcp.InputResponseMap{key: nameAnswer("Lin")}, r.RequestState); r.IsError || text(r) != "hello Lin (accept, state asked)" {
				t.Errorf("retry = %q (isError %v)", text(r), r.IsError)
			}

			// Two rounds: elicitation, then sampling.
			r = askRound(t, b, "ask_direct", nil, "")
			key, ir = oneRequest(t, "ask_direct, round 1", r.InputRequests, r.RequestState)
			if _, ok := ir.(*mcp.ElicitParams); !ok {
				t.Fatalf("round 1 asks %#v, want elicitation", ir)
			}
			r = askRound(t, b, "ask_direct", mcp.InputResponseMap{key: nameAnswer("Lin")}, r.RequestState)
			key, ir = oneRequest(t, "ask_direct, round 2", r.InputRequests, r.RequestState)
			switch ir.(type) {
			case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			default:
				t.Fatalf("round 2 asks %#v, want sampling", ir)
			}
			r = askRound(t, b, "ask_direct", mcp.InputResponseMap{key: &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hey"}}}, r.RequestState)
			if r.IsError || text(r) != "name Lin, model m said hey" {
				t.Errorf("ask_direct = %q (isError %v)", text(r), r.IsError)
			}

			// A legacy client is asked over its session (on the shared upstream session,
			// with isolation: shared).
			legacy := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return nameAnswer("Kim"), nil
				},
			})
			lcs, err := legacy.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/up"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer lcs.Close()
			if r := askRound(t, lcs, "ask", nil, ""); r.IsError || !strings.HasPrefix(text(r), "hello Kim (accept") {
				t.Errorf("a legacy client's call beside the abandoned one = %q (isError %v)", text(r), r.IsError)
			}

			// The abandoned call was waiting all along.
			if r := askRound(t, a, "ask", mcp.InputResponseMap{aKey: nameAnswer("Ada")}, first.RequestState); r.IsError || text(r) != "hello Ada (accept, state asked)" {
				t.Errorf("the abandoned call's retry = %q (isError %v)", text(r), r.IsError)
			}
		})
	}
}

// Issue 20 point 13: input requests reach only clients that declared the capability. A
// client that did not gets an error result saying the upstream needed input it cannot
// give — whether the upstream asks with requests (a legacy upstream; the call is not
// parked) or with input requests (a 2026-07-28 upstream), and whatever the client's era.
func TestInputOnlyForDeclaredCapabilities(t *testing.T) {
	legacy := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n"+stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, ""))
	modern := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n"+stdioUpstream(t, nil, ""))
	cannot := func(t *testing.T, cs *mcp.ClientSession, tool, capability string) {
		t.Helper()
		r := askRound(t, cs, tool, nil, "")
		if len(r.InputRequests) > 0 || r.RequestState != "" {
			t.Errorf("%s: the client was asked %v (requestState %q), though it did not declare %s", tool, r.InputRequests, r.RequestState, capability)
		}
		got := text(r)
		if !r.IsError || !strings.Contains(got, "needed input this client cannot give") || !strings.Contains(got, capability) {
			t.Errorf("%s = %q (isError %v); want an error result saying the client cannot give %s", tool, got, r.IsError, capability)
		}
	}
	t.Run("stateless-legacy-upstream", func(t *testing.T) {
		cs := rawClient(t, legacy, "up")
		cannot(t, cs, "ask", "elicitation")
		cannot(t, cs, "sample", "sampling")
		cannot(t, cs, "ask_direct", "elicitation")
		// With elicitation declared, ask_direct gets as far as sampling.
		cs = rawClient(t, legacy, "up", "elicitation")
		r := askRound(t, cs, "ask_direct", nil, "")
		key, _ := oneRequest(t, "ask_direct", r.InputRequests, r.RequestState)
		r = askRound(t, cs, "ask_direct", mcp.InputResponseMap{key: nameAnswer("Lin")}, r.RequestState)
		if got := text(r); !r.IsError || !strings.Contains(got, "needed input this client cannot give") || !strings.Contains(got, "sampling") {
			t.Errorf("ask_direct after the answer = %q (isError %v); want an error result saying the client cannot give sampling", got, r.IsError)
		}
	})
	t.Run("stateless-modern-upstream", func(t *testing.T) {
		cs := rawClient(t, modern, "up")
		cannot(t, cs, "ask", "elicitation")
		cannot(t, cs, "sample", "sampling")
	})
	t.Run("legacy-client", func(t *testing.T) {
		asked := 0
		mc := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, &mcp.ClientOptions{
			// Counts what reaches the client in spite of what it declared (nothing).
			Capabilities: &mcp.ClientCapabilities{},
		})
		mc.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "elicitation/create" || method == "sampling/createMessage" {
					asked++
				}
				return next(ctx, method, req)
			}
		})
		connect := func(srv *gatewaytest.Server) *mcp.ClientSession {
			cs, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/up"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			return cs
		}
		// A 2026-07-28 upstream session (protocol_version) asks with input requests, which
		// mcpbridge would pass on as requests over the client's session.
		pinned := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    protocol_version: \"2026-07-28\"\n"+stdioUpstream(t, nil, ""))
		cs := connect(pinned)
		cannot(t, cs, "ask", "elicitation")
		cannot(t, cs, "sample", "sampling")
		// The legacy upstream session of a legacy client declares that client's
		// capabilities, so a legacy upstream refuses by itself (with its own words).
		cs = connect(legacy)
		for _, tool := range []string{"ask", "sample", "ask_direct"} {
			if r := askRound(t, cs, tool, nil, ""); !r.IsError {
				t.Errorf("%s on a legacy upstream = %q, want an error result", tool, text(r))
			}
		}
		if asked != 0 {
			t.Errorf("the client was sent %d requests it did not declare it can answer", asked)
		}
	})
}

// Issue 20 point 13: a prompt of a legacy upstream that asks for input parks for a
// stateless caller as a tool call does: the caller gets the input request, and its retry
// gets the prompt. A legacy client over HTTP+SSE is asked over its session, also by a
// prompt that asks with a request (point 11).
func TestParkedPrompts(t *testing.T) {
	srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    timeout: 10m\n"+stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, ""))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := rawClient(t, srv, "up", "elicitation")
	for _, prompt := range []string{"ask_prompt", "ask_direct_prompt"} {
		r, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt})
		if err != nil {
			t.Fatalf("%s: %v", prompt, err)
		}
		key, ir := oneRequest(t, prompt, r.InputRequests, r.RequestState)
		if p, ok := ir.(*mcp.ElicitParams); !ok || p.Message != "Which context?" {
			t.Errorf("%s asks %#v", prompt, ir)
		}
		// The continuation of a prompt is no tool call's.
		var rpcErr *jsonrpc.Error
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}, InputResponses: mcp.InputResponseMap{key: nameAnswer("x")}, RequestState: r.RequestState}); !errors.As(err, &rpcErr) {
			t.Errorf("a tool call with %s's requestState: %v, want it refused", prompt, err)
		}
		got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt, InputResponses: mcp.InputResponseMap{key: nameAnswer("Lin")}, RequestState: r.RequestState})
		want := "context Lin"
		if prompt == "ask_prompt" {
			want = "context Lin (state prompted)"
		}
		if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*mcp.TextContent).Text != want {
			t.Errorf("%s retry = %+v, %v; want %q", prompt, got, err, want)
		}
	}

	// A client that answers input requests itself gets the prompt in one call.
	_, mc := newClient()
	auto, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/up"}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer auto.Close()
	if got, err := auto.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ask_prompt"}); err != nil || got.Messages[0].Content.(*mcp.TextContent).Text != "context Ada (state prompted)" {
		t.Errorf("ask_prompt through a client that answers = %+v, %v", got, err)
	}

	// A legacy SSE client of an upstream that speaks both eras.
	both := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n"+stdioUpstream(t, nil, ""))
	_, mc = newClient()
	sse := connectSSE(t, mc, both, "up", "2025-11-25")
	if got, err := sse.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ask_direct_prompt"}); err != nil || got.Messages[0].Content.(*mcp.TextContent).Text != "context Ada" {
		t.Errorf("ask_direct_prompt over SSE = %+v, %v", got, err)
	}
}

// Issue 20 point 13: the error text of a parked call is true. A parked call whose upstream
// answer cannot be read fails saying so at once, not that the upstream did not answer
// within the timeout (ten minutes); one that really runs out of time says that.
func TestParkedCallErrorsAreTrue(t *testing.T) {
	srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    timeout: 10m\n    url: "+startHTTPServer(t, "UPSTREAM_TEST_LEGACY=1")+"\n")
	cs := rawClient(t, srv, "up", "elicitation")
	r := askRound(t, cs, "bad_result", nil, "")
	if got := text(r); !r.IsError || strings.Contains(got, "within") || !strings.Contains(got, "failed to answer") {
		t.Errorf("bad_result = %q (isError %v); want an error result saying the upstream's answer failed, not that it ran out of time", got, r.IsError)
	}

	// Time is the subject: a short timeout.
	short := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    timeout: 2s\n"+stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, ""))
	cs = rawClient(t, short, "up", "elicitation")
	// The child starts on the first call, which a loaded machine may not finish in 2 s.
	for deadline := time.Now().Add(time.Minute); askRound(t, cs, "echo", nil, "").IsError; {
		if time.Now().After(deadline) {
			t.Fatal("the upstream did not start within a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	r = askRound(t, cs, "hang", nil, "")
	if got := text(r); !r.IsError || !strings.Contains(got, "did not answer tools/call within 2s") {
		t.Errorf("hang = %q (isError %v); want it to say the upstream did not answer within 2s", got, r.IsError)
	}
}
