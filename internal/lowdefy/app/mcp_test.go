package app

import (
	"strings"
	"testing"
	"time"
)

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

// The mcp section, a block's mcp annotation and an endpoint's are checked like the rest of
// the app: a wrong type or an unknown key is a problem at its file:line:col and path.
func TestMCPSchemaProblems(t *testing.T) {
	a := mustLoad(t, map[string]string{"lowdefy.yaml": `lowdefy: 4.0.0
mcp:
  enabled: true
  tools: {submit_a: {confirm: true, description: Save it, enabled: true}}
  resources: {a_data: {page: a, requests: [r], enabled: false}}
pages:
  - id: a
    type: Box
    mcp: {exclude: true}
    blocks:
      - {id: b, type: Button, mcp: {toolName: save_a, description: Saves}}
`})
	if got := a.Pages[0].Config.Prop("mcp"); got == nil {
		t.Fatal("the page's mcp annotation was dropped")
	}
	ps := loadProblems(t, map[string]string{"lowdefy.yaml": `lowdefy: 4.0.0
mcp:
  transport: sse
  tools:
    x: {confirm: 1, nope: 2}
api:
  - {id: e, type: Api, routine: [], mcp: {toolname: y}}
pages:
  - id: a
    type: Box
    mcp: {exclud: true}
`})
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	want := []string{
		`lowdefy.yaml:3:3: mcp.transport: unknown key "transport" in a settings section (allowed: enabled, limits, resources, timeZone, tools)`,
		`lowdefy.yaml:5:18: mcp.tools.x.confirm: must be boolean, got number 1`,
		`lowdefy.yaml:5:21: mcp.tools.x.nope: unknown key "nope" in a tool override (allowed: confirm, description, enabled)`,
		`lowdefy.yaml:7:43: api[0].mcp.toolname: unknown key "toolname" in an endpoint mcp annotation (allowed: description, exclude, inputSchema, toolName)`,
		`lowdefy.yaml:11:11: pages[0].mcp.exclud: unknown key "exclud" in a block mcp annotation (allowed: description, exclude, toolName)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// mcp.timeZone names the app's time zone (UTC when absent); a name that is not an IANA zone
// is a problem at its place, as is Local (the gateway machine's zone is not the app's).
func TestMCPTimeZone(t *testing.T) {
	a := mustLoad(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\nmcp:\n  timeZone: Europe/Paris\npages:\n  - {id: a, type: Box}\n"})
	if a.TimeZone == nil || a.TimeZone.String() != "Europe/Paris" {
		t.Fatalf("TimeZone = %v, want Europe/Paris", a.TimeZone)
	}
	b := mustLoad(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\npages:\n  - {id: a, type: Box}\n"})
	if b.TimeZone != time.UTC {
		t.Fatalf("TimeZone without mcp.timeZone = %v, want UTC", b.TimeZone)
	}
	for _, c := range []struct{ zone, want string }{
		{"Mars/Olympus", `lowdefy.yaml:3:3: mcp.timeZone: time zone "Mars/Olympus" is not an IANA time zone name such as UTC, Europe/Paris or America/New_York`},
		{"Local", `lowdefy.yaml:3:3: mcp.timeZone: time zone "Local" is not an IANA time zone name`},
		{"3", `lowdefy.yaml:3:13: mcp.timeZone: must be string, got number 3`},
		{"../../etc/passwd", `lowdefy.yaml:3:3: mcp.timeZone: time zone "../../etc/passwd" is not an IANA time zone name`},
		{"/etc/passwd", `lowdefy.yaml:3:3: mcp.timeZone: time zone "/etc/passwd" is not an IANA time zone name`},
		{strings.Repeat("A", 1<<20), `lowdefy.yaml:3:3: mcp.timeZone: time zone "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"… (1048576 bytes) is not an IANA time zone name`},
	} {
		ps := loadProblems(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\nmcp:\n  timeZone: " + c.zone + "\npages:\n  - {id: a, type: Box}\n"})
		if len(ps) != 1 || !strings.HasPrefix(ps[0].String(), c.want) || len(ps[0].String()) > 400 {
			t.Errorf("timeZone %.40s: problems %.400v\nwant one starting %q", c.zone, ps, c.want)
		}
	}
}

// auth.userFields maps _user fields from paths: a path that is not a string is a problem,
// one outside account, profile and user a warning (it always reads nothing).
func TestUserFieldsChecked(t *testing.T) {
	a := mustLoad(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\nauth:\n  userFields:\n    id: user.id\n    mail: email\npages:\n  - {id: a, type: Box}\n"})
	var warned bool
	for _, w := range a.Warnings {
		if strings.HasPrefix(w.String(), `lowdefy.yaml:4:5: auth.userFields.mail: "email" reads nothing: userFields paths start with account, profile or user`) {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning for mail: email; warnings %v", a.Warnings)
	}
	ps := loadProblems(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\nauth:\n  userFields:\n    id: 3\npages:\n  - {id: a, type: Box}\n"})
	if len(ps) != 1 || !strings.HasPrefix(ps[0].String(), "lowdefy.yaml:4:5: auth.userFields.id: must be a path string") {
		t.Errorf("problems %v", ps)
	}
}

// A userFields field 100,000 levels deep (a _user with no JSON form, rebuilt on every
// call) is a problem that says the bound, without repeating the field whole.
func TestUserFieldsTooDeep(t *testing.T) {
	deep := strings.Repeat("a.", 100000) + "z"
	ps := loadProblems(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\nauth:\n  userFields:\n    ? " + deep + "\n    : user.id\n    __proto__.x: user.id\n    constructor.prototype.y: profile.sub\npages:\n  - {id: a, type: Box}\n"})
	if len(ps) != 1 || !strings.Contains(ps[0].String(), "100001 levels deep; a _user field has at most 100") || len(ps[0].String()) > 400 {
		t.Errorf("problems %.600v", ps)
	}
}
