package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreamVariants are the upstreams the forwarding tests run against: the test server
// over stdio and over Streamable HTTP, speaking 2026-07-28 (input requests as
// input_required results) or only 2025-11-25 and older (input requests as server-to-client
// requests), and over the 2024-11-05 HTTP+SSE transport, detected.
func upstreamVariants(t *testing.T) []variant {
	return []variant{
		{"stdio-2026", stdioUpstream(t, nil, "")},
		// One 2026-07-28 upstream session for all: mcpbridge answers the input requests
		// of legacy clients itself.
		{"stdio-2026-shared", stdioUpstream(t, nil, "    isolation: shared\n")},
		{"stdio-2025", stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, "")},
		{"http-2026", "    url: " + startHTTPServer(t) + "\n"},
		{"http-2025", "    url: " + startHTTPServer(t, "UPSTREAM_TEST_LEGACY=1") + "\n"},
		{"sse-detected", "    url: " + startNetServer(t, "sse") + "\n"},
	}
}

type variant struct{ name, yaml string }

// Every feature is forwarded between a real downstream client, the gateway, and a real
// upstream server in another process, for each upstream variant and both client eras.
func TestForwarding(t *testing.T) {
	for _, up := range upstreamVariants(t) {
		t.Run(up.name, func(t *testing.T) {
			srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n"+up.yaml)
			for _, era := range []string{"2025-11-25", "2026-07-28"} {
				t.Run(era, func(t *testing.T) {
					testForwarding(t, srv.URL+"/mcp/up", era, strings.HasSuffix(up.name, "-2025"))
				})
			}
		})
	}
}

// legacyUp says the upstream speaks 2025-11-25 and older only.
func testForwarding(t *testing.T, url, era string, legacyUp bool) {
	ctx := context.Background()
	c, mc := newClient()
	cs, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	modern := era >= "2026-07-28"

	// The catalog is mirrored.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"echo", "ask", "progress", "sample", "roots"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "test://static" {
		t.Errorf("resources = %+v, %v", res, err)
	}
	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != "test://items/{id}" {
		t.Errorf("templates = %+v, %v", tmpls, err)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 3 || !slices.ContainsFunc(prompts.Prompts, func(p *mcp.Prompt) bool { return p.Name == "greet" }) {
		t.Errorf("prompts = %+v, %v", prompts, err)
	}

	// A plain call, with structured content.
	r := callTool(t, cs, "echo", map[string]any{"text": "hi"})
	if text(r) != "hi" || fmt.Sprint(r.StructuredContent) != "map[text:hi]" {
		t.Errorf("echo = %q %v", text(r), r.StructuredContent)
	}

	// Progress reaches the call that asked for it.
	p := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 3}}
	p.SetProgressToken("tok-1")
	if r, err := cs.CallTool(ctx, p); err != nil || text(r) != "done 3" {
		t.Fatalf("progress = %v, %v", r, err)
	}
	for i := 1; i <= 3; i++ {
		select {
		case n := <-c.progress:
			if n.ProgressToken != "tok-1" || n.Progress != float64(i) || n.Total != 3 || n.Message != fmt.Sprintf("step %d", i) {
				t.Errorf("progress %d = %+v", i, n)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("progress notification %d did not arrive", i)
		}
	}

	// Log messages reach the caller, at the caller's level.
	lp := &mcp.CallToolParams{Name: "log", Arguments: map[string]any{"message": "from upstream", "level": "warning"}}
	if modern {
		lp.Meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
	} else if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if r, err := cs.CallTool(ctx, lp); err != nil || text(r) != "logged" {
		t.Fatalf("log = %v, %v", r, err)
	}
	select {
	case m := <-c.logs:
		if m.Data != "from upstream" || m.Level != "warning" {
			t.Errorf("log message = %+v", m)
		}
	case <-time.After(5 * time.Second):
		t.Error("the upstream's log message did not arrive")
	}

	// Elicitation, sampling and roots: a 2026-07-28 client gets input requests and
	// retries; a legacy client is asked over its session. (A legacy upstream's requests
	// reach a 2026-07-28 client as input requests of a parked call.)
	wantText(t, cs, "ask", nil, "hello Ada (accept, state asked)")
	wantText(t, cs, "twice", nil, "Ada then Grace")
	wantText(t, cs, "sample", nil, "model test-model said hello from the model")
	wantText(t, cs, "roots", nil, "roots file:///work/a,file:///work/b")
	// Prompts ask too. A tool or prompt that asks with requests of its own reaches a legacy
	// client on every upstream, and a 2026-07-28 client on a legacy upstream (parked); a
	// 2026-07-28 upstream session refuses to send such requests.
	wantPrompt := func(name, want string) {
		t.Helper()
		pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name})
		if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != want {
			t.Errorf("prompt %s = %+v, %v; want %q", name, pr, err, want)
		}
	}
	wantPrompt("ask_prompt", "context Ada (state prompted)")
	if !modern || legacyUp {
		wantText(t, cs, "ask_direct", nil, directAnswer)
		wantPrompt("ask_direct_prompt", "context Ada")
	}

	// Resource reads, templates, prompts and completion.
	for uri, want := range map[string]string{"test://static": "static text", "test://items/7": "item 7"} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != want {
			t.Errorf("read %s = %+v, %v", uri, rr, err)
		}
	}
	var rpcErr *jsonrpc.Error
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/missing"}); !errors.As(err, &rpcErr) || (rpcErr.Code != -32002 && rpcErr.Code != -32602) {
		t.Errorf("reading a missing resource: %v, want the upstream's resource-not-found error", err)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ada"}})
	if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "hello Ada" {
		t.Errorf("prompt = %+v, %v", pr, err)
	}
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "al"}})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"alice", "alfred"}) {
		t.Errorf("complete prompt = %+v, %v", comp, err)
	}
	comp, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "test://items/{id}"}, Argument: mcp.CompleteParamsArgument{Name: "id", Value: "1"}})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"10", "11"}) {
		t.Errorf("complete template = %+v, %v", comp, err)
	}

	// Cancelling a call cancels the upstream request. The slow call marks its start and
	// its cancellation in files: on a legacy upstream a stateless client's calls run on
	// upstream sessions (children) of their own while another runs, so counters kept in
	// one child's memory would not see them.
	mark := filepath.Join(t.TempDir(), "slow")
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 600000, "mark": mark}})
		done <- err
	}()
	// Cancel once the upstream runs the call (polled), so the cancellation has a request
	// to reach.
	waitFile(t, mark+".started", "the upstream did not start the slow call")
	cancel()
	<-done
	waitFile(t, mark+".cancelled", "the upstream did not see the cancellation")
}

// waitFile waits up to a minute for the file path to exist.
func waitFile(t *testing.T, path, why string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s within a minute (%s does not exist)", why, path)
		}
	}
}
