package gateway_test

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// Issue 12.8: ids that do not survive a float64 round trip are refused with -32600 naming
// the id, which the error echoes exactly as sent; ordinary ids are echoed unchanged.
func TestAttackOddIDs(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	url := lb.base + "/mcp/demo"
	c := clientFrom("127.0.0.1")
	legacy := legacySession(t, c, url, "2025-11-25")
	modern := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	modernBody := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	}
	legacyBody := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}` }
	for _, era := range []struct {
		name string
		hdr  map[string]string
		body func(string) string
	}{{"2025-11-25", legacy, legacyBody}, {"2026-07-28", modern, modernBody}} {
		for _, id := range []string{"1.5", "1e2", "9007199254740993", "18446744073709551616", "-0"} {
			resp, b := rawPost(t, c, url, era.hdr, era.body(id))
			rs := replies(t, b)
			if len(rs) != 1 {
				t.Errorf("%s id %s: %d %s", era.name, id, resp.StatusCode, b)
				continue
			}
			r := rs[0]
			t.Logf("%s id %s → HTTP %d, id %s, error %v", era.name, id, resp.StatusCode, r.ID, r.Error)
			if string(r.ID) != id || r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, id) || resp.StatusCode != 400 {
				t.Errorf("%s id %s: answered HTTP %d with id %s: %s; want 400, -32600 naming %s, id echoed as sent", era.name, id, resp.StatusCode, r.ID, b, id)
			}
		}
		for _, id := range []string{"0", "-7", "9007199254740991", "-9007199254740991", `"a-string"`, `"1.5"`} {
			resp, b := rawPost(t, c, url, era.hdr, era.body(id))
			rs := replies(t, b)
			if resp.StatusCode != 200 || len(rs) != 1 || string(rs[0].ID) != id || rs[0].Error != nil {
				t.Errorf("%s valid id %s: %d %s", era.name, id, resp.StatusCode, b)
			}
		}
	}
	// A batch (2025-03-26) with one odd id is refused whole, naming the item.
	h := legacySession(t, c, url, "2025-03-26")
	resp, b := rawPost(t, c, url, h, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2.5,"method":"ping"}]`)
	rs := replies(t, b)
	if resp.StatusCode != 400 || len(rs) != 1 || rs[0].Error == nil || !strings.Contains(rs[0].Error.Message, "2.5") {
		t.Errorf("batch with id 2.5: %d %s", resp.StatusCode, b)
	}
}
