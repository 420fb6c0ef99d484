package lowdefy_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/auth/authtest"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// peopleApp reads users as Lowdefy apps do: auth.userFields maps the identity provider's
// profile into _user (an employee id, a department, the app's own roles), the pages and a
// request read them, and a page is for the app's editors role.
const peopleApp = `lowdefy: 4.0.0
auth:
  pages:
    protected: true
    roles:
      editors: [edit]
  userFields:
    employee: profile.employee_id
    department: profile.org.department
    handle: user.name
    roles: profile.app_roles
connections:
  - id: api
    type: AxiosHttp
    properties: {baseURL: API_URL}
pages:
  - id: me
    type: Box
    properties: {title: Me}
    requests:
      - id: save
        type: AxiosHttp
        connectionId: api
        properties:
          url: /profiles
          method: post
          data: {employee: {_user: employee}, department: {_user: department}, handle: {_user: handle}}
    blocks:
      - id: who
        type: Paragraph
        properties:
          content:
            _string.concat: ["Employee ", {_if_none: [{_user: employee}, none]}, " in ", {_if_none: [{_user: department}, none]}, " as ", {_if_none: [{_user: handle}, nobody]}]
      - id: save
        type: Button
        events:
          onClick:
            - {id: post, type: Request, params: save}
  - id: edit
    type: Box
    properties: {title: Edit}
    blocks:
      - {id: note, type: TextInput}
`

const (
	peopleIssuer = "https://idp.example.test/"
	peopleURL    = "https://mcp.example.test"
)

// auth.userFields maps a JWT's claims (the identity provider's profile) and an API key's
// user record into _user as Lowdefy maps a provider's profile: pages, page rules (the
// mapped roles) and requests (the server-side _user) read the mapped fields.
func TestUserFields(t *testing.T) {
	api := &bookings{}
	hs := httptest.NewServer(api)
	t.Cleanup(hs.Close)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(strings.Replace(peopleApp, "API_URL", hs.URL, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	key := authtest.NewKey(t, "ES256", "k1")
	issuer := authtest.NewIssuer(t, key)
	st := openStore(t, filepath.Join(t.TempDir(), "s.db"))
	srv := gatewaytest.Start(t, fmt.Sprintf(`
auth:
  public_url: %s
  jwt: {issuer: %s, jwks_url: %s}
  keys:
    - id: alice
      hash: sha256:%s
      user: {id: alice, name: Alice}
      roles: [support]
servers:
  tickets:
    kind: lowdefy
    description: people
    app: %s
    allow_private: true
`, peopleURL, peopleIssuer, issuer.JWKSURL(), store.HashKey(aliceKey), dir), gateway.Options{WorkSessions: st.WorkSessions})

	token := key.Sign(t, map[string]any{"iss": peopleIssuer, "aud": peopleURL + "/mcp/tickets", "sub": "u-7",
		"exp": time.Now().Add(10 * time.Minute).Unix(), "name": "Grace", "given_name": "Grace", "roles": []string{"staff"},
		"app_roles": []string{"editors"}, "employee_id": "E42", "org": map[string]any{"department": "R&D"}})
	grace := connect(t, srv.URL+"/mcp/tickets", token)
	sid := newSession(grace)
	contains(t, "grace's pages", text(grace.call("get_pages", map[string]any{"sessionId": sid}, false)), `"pageId":"edit"`, `"pageId":"me"`)
	page := text(grace.call("navigate", map[string]any{"sessionId": sid, "pageId": "me"}, false))
	contains(t, "grace's page", page, "Employee E42 in R&D as Grace")
	grace.call("interact", map[string]any{"sessionId": sid, "actions": []any{map[string]any{"type": "triggerEvent", "blockId": "save", "event": "onClick"}}}, false)
	if got, want := api.last(t), `{"employee":"E42","department":"R&D","handle":"Grace"}`; got != want {
		t.Errorf("the API got %s from grace's request, want %s", got, want)
	}

	// An API key: its user record is profile and user; the app's roles come from
	// profile.app_roles, which a key does not have, so the editors' page is not alice's.
	alice := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	asid := newSession(alice)
	pages := text(alice.call("get_pages", map[string]any{"sessionId": asid}, false))
	if strings.Contains(pages, `"edit"`) || !strings.Contains(pages, `"me"`) {
		t.Errorf("alice's pages: %s", pages)
	}
	contains(t, "alice's page", text(alice.call("navigate", map[string]any{"sessionId": asid, "pageId": "me"}, false)), "Employee none in none as Alice")
}

// check says that an app's auth adapter does not run and where _user comes from instead.
func TestCheckAuthAdapter(t *testing.T) {
	dir := t.TempDir()
	app := "lowdefy: 4.0.0\nauth:\n  adapter: {id: db, type: MongoDBAdapter, properties: {databaseUri: mongodb://x}}\n  userFields: {roles: user.roles}\npages:\n  - {id: a, type: Box}\n"
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("c.yaml", dir, []byte("servers:\n  people:\n    kind: lowdefy\n    description: people\n    app: .\n"), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	ps := backend.Check(cfg.Servers["people"], backend.Deps{Dir: dir})
	if len(ps) != 1 || !ps[0].Warning || !strings.Contains(ps[0].String(), "the app's auth adapter MongoDBAdapter does not run under mcpbridge: _user comes from the caller") {
		t.Errorf("check = %v", ps)
	}
}
