package app

import (
	"strings"
	"testing"
)

func TestCheckSummary(t *testing.T) {
	dir := writeApp(t, map[string]string{"lowdefy.yaml": `lowdefy: 4.0.0
name: demo
auth:
  pages:
    protected: [admin]
    roles:
      boss: [reports]
connections:
  - {id: db, type: Knex}
pages:
  - id: home
    type: PageHeaderMenu
    requests:
      - {id: list, type: KnexRaw, connectionId: db}
  - {id: admin, type: Box}
  - {id: reports, type: Box}
`})
	summary, problems := Check(dir)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	for _, want := range []string{
		"app demo (lowdefy 4.0.0)",
		"pages (4):",
		"home     PageHeaderMenu  public",
		"admin    Box             protected",
		"reports  Box             roles: boss",
		"requests (1):",
		"home  list  db          KnexRaw",
		"connections (1):",
		"db  Knex",
		"warnings (1):",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary misses %q:\n%s", want, summary)
		}
	}
}

func TestCheckProblems(t *testing.T) {
	dir := writeApp(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\npages:\n  - id: p\n    type: Box\n    visble: false\n"})
	summary, problems := Check(dir)
	if summary != "" {
		t.Errorf("summary = %q, want none", summary)
	}
	if len(problems) != 1 || problems[0].String() != `lowdefy.yaml:5:5: pages[0].visble: unknown key "visble" in a block (allowed: areas, blocks, events, field, id, layout, loading, mcp, properties, requests, required, skeleton, style, type, validate, visible)` {
		t.Errorf("problems = %v", problems)
	}
	_, problems = Check(t.TempDir())
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "no lowdefy.yaml") {
		t.Errorf("empty dir problems = %v", problems)
	}
}
