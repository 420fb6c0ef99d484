package app

import "testing"

// The app's mcp section (mcpbridge's own) is accepted, built with operators like any other
// section, and kept on App.MCP; an app without one has a nil MCP.
func TestLoadKeepsMCPSection(t *testing.T) {
	a := mustLoad(t, map[string]string{
		"lowdefy.yaml": `lowdefy: 4.0.0
mcp:
  limits: {_ref: limits.yaml}
pages:
  - {id: a, type: Box}
`,
		"limits.yaml": "maxActionsPerCall: 3\n",
	})
	if got := a.MCP.String(); got != `{"limits":{"maxActionsPerCall":3}}` {
		t.Fatalf("MCP = %s", got)
	}
	b := mustLoad(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\npages:\n  - {id: a, type: Box}\n"})
	if b.MCP != nil {
		t.Fatalf("MCP = %v, want nil", b.MCP)
	}
	if ps := loadProblems(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\nmcp: 3\n"}); len(ps) == 0 {
		t.Fatal("mcp: 3 loaded without a problem")
	}
}
