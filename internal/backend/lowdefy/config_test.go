package lowdefy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
)

// Every problem of a lowdefy server definition is reported, located, in one run.
func TestDecodeProblems(t *testing.T) {
	_, err := config.Parse("c.yaml", "/tmp", []byte(`
servers:
  a:
    kind: lowdefy
    description: no app
    toolset: everything
  b:
    kind: lowdefy
    description: bad secrets and tools
    app: ./b
    toolset: forms
    secrets: {DB: plain-value, "bad name": env:X}
    aap: typo
    tools:
      x: {description: x}
`), backend.Kinds())
	if err == nil {
		t.Fatal("no problems")
	}
	for _, want := range []string{
		"servers.a.app: missing app",
		`servers.a.toolset: toolset "everything" is not one of session, forms or both`,
		"servers.b.secrets.DB: write a reference",
		`servers.b.secrets.bad name: "bad name" is not a secret name`,
		"servers.b.aap",
		"servers.b.tools: a lowdefy server's tools come from its app",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %q:\n%v", want, err)
		}
	}
}

// The tool list an agent reads before anything else stays small: with the session tools
// alone at most 1,200 tokens, counted as characters/4 of the tools/list JSON; the
// tutorial's full list with both toolsets (the default) is measured and bounded too.
func TestToolListSize(t *testing.T) {
	ta := lowdefytest.Tutorial(t, "08-final", lowdefytest.StartDummyJSON(t))
	st := openStore(t, t.TempDir()+"/s.db")
	for _, tc := range []struct {
		toolset, names string
		max            int
	}{
		{"session", "get_pages,get_state,interact,navigate,session_close,session_create,session_list", 1200},
		{"forms", "submit_new_ticket", 400},
		{"both", "get_pages,get_state,interact,navigate,session_close,session_create,session_list,submit_new_ticket", 1600},
	} {
		srv := gatewaytest.Start(t, `
servers:
  tickets:
    kind: lowdefy
    description: tickets
    app: `+ta.Dir+`
    toolset: `+tc.toolset+`
`, gateway.Options{WorkSessions: st.WorkSessions})
		a := connect(t, srv.URL+"/mcp/tickets", "")
		res, err := a.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if got := strings.Join(names, ","); got != tc.names {
			t.Errorf("toolset %s: tools %s", tc.toolset, got)
		}
		b, _ := json.Marshal(res.Tools)
		tokens := len(b) / 4
		t.Logf("toolset %s: tools/list has %d tools, %d bytes of JSON, ≈%d tokens (bytes/4)", tc.toolset, len(res.Tools), len(b), tokens)
		if tokens > tc.max {
			t.Errorf("toolset %s: the tool list costs ≈%d tokens, more than %d", tc.toolset, tokens, tc.max)
		}
		srv.Close()
	}
}
