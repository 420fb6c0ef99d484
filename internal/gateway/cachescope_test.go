package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

const cacheScopeConfig = `
auth:
  keys:
    - id: bot
      hash: sha256:%s
      user: {id: bot}
servers:
  docs:
    kind: command
    description: a resource for anyone
    auth: {public: true}
    resources:
      readme: {uri: "doc://readme", text: "read me"}
`

// A resource read says the same ttlMs and cacheScope over REST as in a 2026-07-28
// resources/read; and a list or read made by an authenticated caller is "private" in both,
// since what it lists and reads depends on who it is (roles, key scopes): no shared cache
// may hand it to another caller. An anonymous caller's is "public".
func TestCacheScopeAgreesOnEverySurface(t *testing.T) {
	srv := gatewaytest.Start(t, strings.Replace(cacheScopeConfig, "%s", store.HashKey(declaredKey), 1), gateway.Options{})
	for _, c := range []struct {
		key, want string
	}{{"", "public"}, {declaredKey, "private"}} {
		auth := map[string]string{}
		if c.key != "" {
			auth["Authorization"] = "Bearer " + c.key
		}
		_, rest := restDo(t, nil, "POST", srv.URL+"/api/mcp/docs/resources/read", `{"uri":"doc://readme"}`, auth)
		if rest["cacheScope"] != c.want || rest["ttlMs"] != float64(0) {
			t.Errorf("key %q: REST read has ttlMs %v, cacheScope %v; want 0, %s", c.key, rest["ttlMs"], rest["cacheScope"], c.want)
		}
		for _, m := range []struct{ method, name, params string }{
			{"resources/read", "doc://readme", `"uri":"doc://readme",`},
			{"resources/list", "", ""},
		} {
			body := `{"jsonrpc":"2.0","id":1,"method":"` + m.method + `","params":{` + m.params +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			req, _ := http.NewRequest("POST", srv.URL+"/mcp/docs", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", m.method)
			if m.name != "" {
				req.Header.Set("Mcp-Name", m.name)
			}
			for k, v := range auth {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			data := string(b)
			if i := strings.LastIndex(data, "data: "); i >= 0 {
				data = strings.TrimSpace(data[i+len("data: "):])
			}
			var out struct {
				Result struct {
					TTLMs      *int   `json:"ttlMs"`
					CacheScope string `json:"cacheScope"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(data), &out); err != nil || out.Result.TTLMs == nil {
				t.Fatalf("key %q: %s: %v: %s", c.key, m.method, err, b)
			}
			if out.Result.CacheScope != c.want || *out.Result.TTLMs != 0 {
				t.Errorf("key %q: MCP %s has ttlMs %d, cacheScope %q; want 0, %s", c.key, m.method, *out.Result.TTLMs, out.Result.CacheScope, c.want)
			}
		}
	}
}
