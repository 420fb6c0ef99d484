package lowdefy_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth/authtest"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Identities that read alike but come from different sources own different work sessions:
// a JWT whose sub is "anonymous" gets nothing of the anonymous callers' sessions, and an API
// key whose user id is X and a JWT whose sub is X are two owners, both ways.
func TestAttackReservedPrincipalIDs(t *testing.T) {
	ta := lowdefytest.Tutorial(t, "08-final", lowdefytest.StartDummyJSON(t))
	t.Setenv("LD_TEST_SQLITE_FILENAME", ta.Secrets["SQLITE_FILENAME"])
	st := openStore(t, filepath.Join(t.TempDir(), "mcpbridge.db"))
	key := authtest.NewKey(t, "ES256", "k1")
	issuer := authtest.NewIssuer(t, key)
	const (
		publicURL = "https://mcp.example.test"
		iss       = "https://idp.example.test/"
		xKey      = "x-key-0123456789abcdef0123"
	)
	cfg := fmt.Sprintf(`
auth:
  public_url: %s
  keys:
    - {id: xkey, hash: "sha256:%s", user: {id: x}, roles: [support]}
  jwt: {issuer: %q, jwks_url: %q}
servers:
  tickets:
    kind: lowdefy
    description: The ticket app, open to anyone
    auth: {public: true}
    app: %s
    secrets: {SQLITE_FILENAME: env:LD_TEST_SQLITE_FILENAME}
    allow_private: true
`, publicURL, store.HashKey(xKey), iss, issuer.JWKSURL(), ta.Dir)
	srv := gatewaytest.Start(t, cfg, gateway.Options{WorkSessions: st.WorkSessions, Version: "test"})
	u := srv.URL + "/mcp/tickets"
	jwt := func(sub string) string {
		return key.Sign(t, map[string]any{"iss": iss, "aud": publicURL + "/mcp/tickets", "sub": sub, "exp": time.Now().Add(time.Hour).Unix(), "roles": []string{"support"}})
	}
	create := func(a *agent) string {
		t.Helper()
		var out struct{ SessionID string }
		if err := json.Unmarshal([]byte(text(a.call("session_create", map[string]any{"name": "mine"}, false))), &out); err != nil || out.SessionID == "" {
			t.Fatalf("session_create: %v", err)
		}
		return out.SessionID
	}
	// notMine checks that a may neither load nor list the session sid.
	notMine := func(who string, a *agent, sid string) {
		t.Helper()
		res, err := a.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_state", Arguments: map[string]any{"sessionId": sid}})
		if err != nil {
			t.Fatalf("%s: get_state: %v", who, err)
		}
		if !res.IsError || !strings.Contains(text(res), "not found") {
			t.Errorf("%s loaded another owner's session %s: %s", who, sid, text(res))
		}
		if list := text(a.call("session_list", map[string]any{}, false)); strings.Contains(list, sid) {
			t.Errorf("%s lists another owner's session %s: %s", who, sid, list)
		}
	}
	mine := func(who string, a *agent, sid string) {
		t.Helper()
		a.call("get_state", map[string]any{"sessionId": sid}, false)
	}

	anon := connect(t, u, "")
	jwtAnonymous := connect(t, u, jwt("anonymous"))
	keyX := connect(t, u, xKey)
	jwtX := connect(t, u, jwt("x"))

	anonSID := create(anon)
	mine("anonymous", anon, anonSID)
	notMine(`JWT sub "anonymous"`, jwtAnonymous, anonSID)

	keySID, jwtSID := create(keyX), create(jwtX)
	mine("key user x", keyX, keySID)
	mine("JWT sub x", jwtX, jwtSID)
	notMine("JWT sub x", jwtX, keySID)
	notMine("key user x", keyX, jwtSID)
	notMine("anonymous", anon, jwtSID)

	// And the other way: the anonymous callers do not get the session of a JWT subject
	// named "anonymous".
	jwtAnonSID := create(jwtAnonymous)
	notMine("anonymous", anon, jwtAnonSID)
}
