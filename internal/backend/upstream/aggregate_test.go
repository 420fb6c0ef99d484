package upstream_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreams: merges several upstreams into one server, their tool and prompt names
// prefixed with the upstream's name; each call, read, get and completion goes to its
// upstream.
func TestAggregation(t *testing.T) {
	self := self(t)
	yaml := fmt.Sprintf(`servers:
  all:
    kind: mcp
    description: d
    isolation: shared
    upstreams:
      - name: one
        command: [%q, -test.run=^$]
        env: {UPSTREAM_TEST_SERVER: stdio}
        descriptions: {echo: "Echo, from upstream one"}
      - name: two
        url: %s
        isolation: per-session
`, self, startHTTPServer(t))
	srv := start(t, yaml)
	ctx := context.Background()
	_, cs := connect(t, srv, "all", "2025-11-25")
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	desc := map[string]string{}
	for _, tl := range tools.Tools {
		desc[tl.Name] = tl.Description
	}
	for _, name := range []string{"one__echo", "two__echo", "one__pid", "two__ask"} {
		if _, ok := desc[name]; !ok {
			t.Errorf("tool %s is missing from %v", name, tools.Tools)
		}
	}
	if _, ok := desc["echo"]; ok {
		t.Error("an unprefixed tool is served")
	}
	if desc["one__echo"] != "Echo, from upstream one" || desc["two__echo"] != "echoes text" {
		t.Errorf("descriptions: one__echo %q, two__echo %q", desc["one__echo"], desc["two__echo"])
	}
	wantText(t, cs, "one__echo", map[string]any{"text": "a"}, "a")
	wantText(t, cs, "two__echo", map[string]any{"text": "b"}, "b")
	wantText(t, cs, "two__ask", nil, "hello Ada (accept, state asked)")
	if p1, p2 := pidOf(t, cs, "one__pid"), pidOf(t, cs, "two__pid"); p1 == p2 {
		t.Error("the two upstreams are one process")
	}
	// Shared for one, per session for two (isolation given per upstream).
	_, other := connect(t, srv, "all", "2025-11-25")
	wantText(t, cs, "one__count", nil, "1")
	wantText(t, other, "one__count", nil, "2")
	wantText(t, cs, "two__count", nil, "1")
	wantText(t, other, "two__count", nil, "1")

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pnames []string
	for _, p := range prompts.Prompts {
		pnames = append(pnames, p.Name)
	}
	slices.Sort(pnames)
	if !slices.Equal(pnames, []string{"one__ask_direct_prompt", "one__ask_prompt", "one__greet", "two__ask_direct_prompt", "two__ask_prompt", "two__greet"}) {
		t.Errorf("prompts = %v", pnames)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "two__greet", Arguments: map[string]string{"who": "Bo"}})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "hello Bo" {
		t.Errorf("two__greet = %+v, %v", pr, err)
	}
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "one__greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "b"}})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"bob"}) {
		t.Errorf("complete one__greet = %+v, %v", comp, err)
	}
	// Both list test://static: it is served once, by the first.
	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 1 {
		t.Errorf("resources = %+v, %v", res, err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/3"})
	if err != nil || rr.Contents[0].Text != "item 3" {
		t.Errorf("read = %+v, %v", rr, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "three__echo", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("a tool of no upstream: %v", err)
	}
}

// prefix: true prefixes a single upstream's names with the server's name; a string
// chooses the prefix.
func TestSinglePrefix(t *testing.T) {
	srv := start(t, "servers:\n  ev:\n    kind: mcp\n    description: d\n    prefix: true\n"+stdioUpstream(t, nil, "")+
		"  gh:\n    kind: mcp\n    description: d\n    prefix: hub\n"+stdioUpstream(t, nil, ""))
	_, ev := connect(t, srv, "ev", "2025-11-25")
	wantText(t, ev, "ev__echo", map[string]any{"text": "x"}, "x")
	_, gh := connect(t, srv, "gh", "2025-11-25")
	wantText(t, gh, "hub__echo", map[string]any{"text": "y"}, "y")
}

// An upstream's list_changed notification reaches connected clients, who then see the
// new tool and can call it.
func TestListChanged(t *testing.T) {
	for _, v := range []struct{ name, yaml string }{
		{"stdio-2026", stdioUpstream(t, nil, "")},
		{"stdio-2025", stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, "")},
		{"http-2026", "    url: " + startHTTPServer(t) + "\n"},
	} {
		t.Run(v.name, func(t *testing.T) {
			srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    isolation: shared\n"+v.yaml)
			c, cs := connect(t, srv, "up", "2025-11-25")
			wantText(t, cs, "add_tool", map[string]any{"name": "fresh"}, "added fresh")
			select {
			case <-c.listChanged:
			case <-time.After(60 * time.Second): // generous: under -race on a busy machine
				t.Fatal("no tools/list_changed reached the client")
			}
			wantText(t, cs, "fresh", nil, "I am fresh")
		})
	}
}
