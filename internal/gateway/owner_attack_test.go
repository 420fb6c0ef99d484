package gateway_test

import (
	"testing"
)

// A legacy session belongs to the owner that opened it, namespaced by how it
// authenticated: a JWT whose sub is the user id of the API key that opened the session is
// someone else, and the other way round.
func TestAttackSessionOwnerAcrossSources(t *testing.T) {
	f := newAuthFixture(t)
	url := f.srv.URL + "/mcp/crm"
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

	resp := authInit(t, url, f.secret["alice"])
	h := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	aliceJWT := f.jwt(t, "crm", []string{"sales"}, map[string]any{"sub": "alice"})
	if r := authPost(t, url, aliceJWT, h, list); r.StatusCode != 403 {
		t.Errorf(`a JWT with sub "alice" on the session of alice's API key: %d, want 403`, r.StatusCode)
	}
	if r := authPost(t, url, f.secret["alice"], h, list); r.StatusCode != 200 {
		t.Errorf("alice's key on its own session: %d", r.StatusCode)
	}

	rootJWT := f.jwt(t, "crm", []string{"admin"}, map[string]any{"sub": "root"})
	resp = authInit(t, url, rootJWT)
	h["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
	if r := authPost(t, url, f.secret["root"], h, list); r.StatusCode != 403 {
		t.Errorf(`the API key of user root on the session of a JWT with sub "root": %d, want 403`, r.StatusCode)
	}
	if r := authPost(t, url, rootJWT, h, list); r.StatusCode != 200 {
		t.Errorf("the JWT on its own session: %d", r.StatusCode)
	}
}
