package gateway_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth/authtest"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

const (
	authIssuer    = "https://idp.example.test/"
	authPublicURL = "https://mcp.example.test"
	declaredKey   = "declared-bot-key-0123456789abcdef"
)

// bearer is an http.RoundTripper that sends a bearer token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b != "" {
		r.Header.Set("Authorization", "Bearer "+string(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

// authFixture is a gateway with every kind of credential: store keys, a declared key and
// JWTs from an issuer served on loopback.
type authFixture struct {
	srv    *gatewaytest.Server
	keys   store.Keys
	issuer *authtest.Issuer
	jwtKey *authtest.Key
	secret map[string]string // store key secrets by user
	keyID  map[string]string
}

func newAuthFixture(t *testing.T) *authFixture {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "keys.db"), sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &authFixture{keys: st.Keys, secret: map[string]string{}, keyID: map[string]string{}}
	f.jwtKey = authtest.NewKey(t, "ES256", "2026-11")
	f.issuer = authtest.NewIssuer(t, f.jwtKey)
	for _, k := range []store.KeyInfo{
		{User: "alice", UserName: "Alice", Roles: []string{"sales"}, Servers: []string{"crm"}},
		{User: "root", Roles: []string{"admin"}},
		{User: "nobody", Roles: []string{"intern"}},
		{User: "gone", Roles: []string{"admin"}},
	} {
		secret, info, err := st.Keys.Create(t.Context(), k)
		if err != nil {
			t.Fatal(err)
		}
		f.secret[k.User], f.keyID[k.User] = secret, info.ID
	}
	if err := st.Keys.Revoke(t.Context(), f.keyID["gone"]); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`
auth:
  public_url: %s
  keys:
    - id: bot
      hash: sha256:%s
      user: {id: bot, name: Bot}
      roles: [sales]
  jwt:
    issuer: %s
    jwks_url: %s
servers:
  open:
    kind: command
    description: anyone
    auth: {public: true}
    tools:
      hello: {description: says hello, argv: [echo, hello]}
  crm:
    kind: command
    description: sales and admins
    auth: {roles: [sales, admin]}
    tools:
      read: {description: reads, argv: [echo, read]}
      wipe: {description: wipes, roles: [admin], argv: [echo, wiped]}
  plain:
    kind: command
    description: any authenticated caller (the config has an auth section)
    tools:
      who: {description: who, argv: [echo, plain]}
`, authPublicURL, store.HashKey(declaredKey), authIssuer, f.issuer.JWKSURL())
	f.srv = gatewaytest.Start(t, cfg, gateway.Options{Keys: st.Keys})
	return f
}

func (f *authFixture) jwt(t *testing.T, server string, roles []string, extra map[string]any) string {
	c := map[string]any{"iss": authIssuer, "aud": authPublicURL + "/mcp/" + server, "sub": "jwt-user", "exp": time.Now().Add(time.Minute).Unix(), "roles": roles}
	for k, v := range extra {
		c[k] = v
	}
	return f.jwtKey.Sign(t, c)
}

// post sends one JSON-RPC initialize (or a stateless tools/list) and returns the response.
func authPost(t *testing.T, url, token string, header map[string]string, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: bearer(token)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// authInit opens a legacy session and reads the initialize reply to its end, as a client
// does before its next request: the headers come with the SSE priming event, before the
// server has handled initialize.
func authInit(t *testing.T, url, token string) *http.Response {
	t.Helper()
	resp := authPost(t, url, token, nil, authInitBody)
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"protocolVersion"`) {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	return resp
}

const authInitBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func connectAs(t *testing.T, url, token, version string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "auth-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(token)}}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string) (string, error) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) == 0 {
		return "", fmt.Errorf("tool error: %+v", res.Content)
	}
	return strings.TrimSpace(res.Content[0].(*mcp.TextContent).Text), nil
}

func TestAuthServerRules(t *testing.T) {
	f := newAuthFixture(t)
	base := f.srv.URL
	for _, c := range []struct {
		name, server, token string
		status              int
		challenge           []string // parts of WWW-Authenticate
	}{
		{"anonymous on a public server", "open", "", 200, nil},
		{"anonymous on a role server", "crm", "", 401, []string{`resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp/crm"`, `scope="sales admin"`}},
		{"anonymous on a default server", "plain", "", 401, []string{`resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp/plain"`}},
		{"store key with the role", "crm", f.secret["alice"], 200, nil},
		{"store key without the role", "crm", f.secret["nobody"], 403, []string{`error="insufficient_scope"`, `scope="sales admin"`}},
		{"store key limited to another server", "plain", f.secret["alice"], 403, []string{`error="insufficient_scope"`}},
		{"store key limited, on a public server", "open", f.secret["alice"], 403, nil},
		{"store key, any authenticated", "plain", f.secret["nobody"], 200, nil},
		{"revoked store key", "open", f.secret["gone"], 401, []string{`error="invalid_token"`}},
		{"unknown store key", "crm", store.KeyPrefix + strings.Repeat("A", 43), 401, []string{`error="invalid_token"`}},
		{"declared key", "crm", declaredKey, 200, nil},
		{"JWT with a role", "crm", f.jwt(t, "crm", []string{"admin"}, nil), 200, nil},
		{"JWT without a role", "crm", f.jwt(t, "crm", nil, nil), 403, []string{`error="insufficient_scope"`}},
		{"JWT for another server", "plain", f.jwt(t, "crm", []string{"admin"}, nil), 401, []string{`error="invalid_token"`, `resource_metadata=`}},
		{"JWT for the whole gateway", "plain", f.jwt(t, "", nil, map[string]any{"aud": authPublicURL}), 200, nil},
		{"expired JWT", "crm", f.jwt(t, "crm", []string{"admin"}, map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}), 401, []string{`error="invalid_token"`}},
		{"JWT of another issuer", "crm", f.jwt(t, "crm", []string{"admin"}, map[string]any{"iss": "https://evil.test/"}), 401, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := authPost(t, base+"/mcp/"+c.server, c.token, nil, authInitBody)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			wa := resp.Header.Get("WWW-Authenticate")
			for _, part := range c.challenge {
				if !strings.Contains(wa, part) {
					t.Errorf("WWW-Authenticate %q lacks %s", wa, part)
				}
			}
			if c.status >= 400 {
				if !strings.HasPrefix(wa, "Bearer ") {
					t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", wa)
				}
				var msg struct {
					Error struct{ Message string } `json:"error"`
				}
				if json.Unmarshal(body, &msg) != nil || msg.Error.Message == "" {
					t.Errorf("body is not a JSON-RPC error: %s", body)
				}
				if c.token != "" && strings.Contains(string(body)+wa, c.token) {
					t.Errorf("the answer echoes the credentials")
				}
			}
		})
	}
}

// Per-tool roles filter tools/list and are checked on every call, in both protocol eras
// (the 2026-07-28 call takes the lean path).
func TestAuthToolRoles(t *testing.T) {
	f := newAuthFixture(t)
	url := f.srv.URL + "/mcp/crm"
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			for _, c := range []struct {
				who, token string
				tools      []string
			}{
				{"alice (sales)", f.secret["alice"], []string{"read"}},
				{"declared bot (sales)", declaredKey, []string{"read"}},
				{"root (admin)", f.secret["root"], []string{"read", "wipe"}},
				{"JWT admin", f.jwt(t, "crm", []string{"admin"}, nil), []string{"read", "wipe"}},
				{"JWT sales via scope claim", f.jwt(t, "crm", []string{"sales"}, nil), []string{"read"}},
			} {
				cs, err := connectAs(t, url, c.token, era)
				if err != nil {
					t.Fatalf("%s: connect: %v", c.who, err)
				}
				if got := toolNames(t, cs); !slices.Equal(got, c.tools) {
					t.Errorf("%s: tools/list = %v, want %v", c.who, got, c.tools)
				}
				if out, err := callText(t, cs, "read"); err != nil || out != "read" {
					t.Errorf("%s: read = %q, %v", c.who, out, err)
				}
				out, err := callText(t, cs, "wipe")
				if slices.Contains(c.tools, "wipe") {
					if err != nil || out != "wiped" {
						t.Errorf("%s: wipe = %q, %v", c.who, out, err)
					}
				} else if err == nil || !strings.Contains(err.Error(), `unknown tool "wipe"`) {
					t.Errorf("%s: wipe without the role = %q, %v; want unknown tool", c.who, out, err)
				}
			}
		})
	}
}

// A legacy session is bound to the user that opened it: another principal presenting its
// id is refused.
func TestAuthSessionBoundToPrincipal(t *testing.T) {
	f := newAuthFixture(t)
	url := f.srv.URL + "/mcp/crm"
	resp := authInit(t, url, f.secret["alice"])
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	if r := authPost(t, url, f.secret["alice"], h, list); r.StatusCode != 200 {
		t.Errorf("the owner on its session: %d", r.StatusCode)
	}
	if r := authPost(t, url, f.secret["root"], h, list); r.StatusCode != 403 {
		t.Errorf("another principal on the session: %d, want 403", r.StatusCode)
	}
	if r := authPost(t, url, declaredKey, h, list); r.StatusCode != 403 {
		t.Errorf("a declared key on alice's session: %d, want 403", r.StatusCode)
	}
	// Roles are those of each request's credentials: a sales key of the same user does
	// not see the admin tool on a session opened with an admin key.
	same, _, err := f.keys.Create(t.Context(), store.KeyInfo{User: "root", Roles: []string{"sales"}})
	if err != nil {
		t.Fatal(err)
	}
	resp = authInit(t, url, f.secret["root"])
	h["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
	r := authPost(t, url, same, h, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wipe","arguments":{}}}`)
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 || !strings.Contains(string(body), `unknown tool`) {
		t.Errorf("a sales key of the same user calling wipe on an admin session: %d %s", r.StatusCode, body)
	}
}

func TestAuthResourceMetadata(t *testing.T) {
	f := newAuthFixture(t)
	resp, err := http.Get(f.srv.URL + "/.well-known/oauth-protected-resource/mcp/crm")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || resp.StatusCode != 200 {
		t.Fatalf("metadata: %d %v", resp.StatusCode, err)
	}
	want := map[string]any{
		"resource":                 "https://mcp.example.test/mcp/crm",
		"authorization_servers":    []any{authIssuer},
		"scopes_supported":         []any{"admin", "sales"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "crm",
		"resource_documentation":   "https://mcp.example.test/mcp/meta/crm",
	}
	for k, v := range want {
		if fmt.Sprint(md[k]) != fmt.Sprint(v) {
			t.Errorf("%s = %v, want %v", k, md[k], v)
		}
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp/nope", "/.well-known/oauth-protected-resource/mcp/meta"} {
		r, err := http.Get(f.srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, r.StatusCode)
		}
	}
}

// The meta page of a protected server is protected like its endpoint.
func TestAuthMetaPage(t *testing.T) {
	f := newAuthFixture(t)
	get := func(token string) int {
		req, _ := http.NewRequest("GET", f.srv.URL+"/mcp/meta/crm", nil)
		resp, err := (&http.Client{Transport: bearer(token)}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get(""); s != 401 {
		t.Errorf("anonymous: %d", s)
	}
	if s := get(f.secret["nobody"]); s != 403 {
		t.Errorf("without the role: %d", s)
	}
	if s := get(f.secret["alice"]); s != 200 {
		t.Errorf("with the role: %d", s)
	}
	// The 2024-11-05 HTTP+SSE transport is guarded like the Streamable HTTP endpoint.
	req, _ := http.NewRequest("GET", f.srv.URL+"/mcp/crm/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("anonymous SSE stream: %d, want 401", resp.StatusCode)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "sse", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.SSEClientTransport{Endpoint: f.srv.URL + "/mcp/crm/sse", HTTPClient: &http.Client{Transport: bearer(f.secret["alice"])}}, nil)
	if err != nil {
		t.Fatalf("SSE with a key: %v", err)
	}
	defer cs.Close()
	if got := toolNames(t, cs); !slices.Equal(got, []string{"read"}) {
		t.Errorf("SSE tools/list for alice = %v, want [read]", got)
	}
}

// Without an auth section, servers are public unless they say otherwise, and no JWT
// metadata is served.
func TestAuthDefaultsWithoutAuthSection(t *testing.T) {
	srv := gatewaytest.Start(t, `
servers:
  free:
    kind: command
    description: free
    tools: {hi: {description: hi, argv: [echo, hi]}}
  guarded:
    kind: command
    description: guarded
    auth: {roles: [ops]}
    tools: {hi: {description: hi, argv: [echo, hi]}}
`, gateway.Options{})
	if r := authPost(t, srv.URL+"/mcp/free", "", nil, authInitBody); r.StatusCode != 200 {
		t.Errorf("free: %d", r.StatusCode)
	}
	r := authPost(t, srv.URL+"/mcp/guarded", "", nil, authInitBody)
	if wa := r.Header.Get("WWW-Authenticate"); r.StatusCode != 401 || strings.Contains(wa, "resource_metadata") || !strings.Contains(wa, `scope="ops"`) {
		t.Errorf("guarded: %d %q", r.StatusCode, wa)
	}
	resp, err := http.Get(srv.URL + "/.well-known/oauth-protected-resource/mcp/free")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("metadata without auth.jwt: %d", resp.StatusCode)
	}
}
