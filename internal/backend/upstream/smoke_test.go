package upstream_test

import (
	"testing"
)

func TestSmoke(t *testing.T) {
	srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n"+stdioUpstream(t, nil, ""))
	_, cs := connect(t, srv, "up", "2025-11-25")
	wantText(t, cs, "echo", map[string]any{"text": "hi"}, "hi")
	wantText(t, cs, "ask", nil, "hello Ada (accept, state asked)")
}
