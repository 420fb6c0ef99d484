package gateway

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// A message nested deeper than the go-sdk decodes is left to the SDK by both lean paths, so
// it gets the SDK's refusal, not a lean answer; a message just within the bound is served.
func TestLeanPathsLeaveDeepMessagesToSDK(t *testing.T) {
	cfg, err := config.Parse("lean.yaml", t.TempDir(), []byte(leanConfig), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(context.Background(), cfg, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	srv := httptest.NewServer(g.Handler())
	defer srv.Close()
	url := srv.URL + "/mcp/lean"
	sid := openLegacy(t, url)
	meta := `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	// The message itself nests 3 deep (message, params, arguments) around the value.
	deep := func(d int) string { return strings.Repeat(`{"a":`, d) + `1` + strings.Repeat(`}`, d) }
	for _, c := range []struct {
		depth int
		lean  bool
	}{{sdkMaxDepth - 3, true}, {sdkMaxDepth + 5, false}} {
		legacy := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x","deep":` + deep(c.depth) + `}}}`
		modern := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x","deep":` + deep(c.depth) + `}` + meta + `}}`
		hdr := map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "echo"}
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			ask := func() any {
				h, body := hdr, modern
				if era == "2025-11-25" {
					h, body = map[string]string{"Mcp-Protocol-Version": era, "Mcp-Session-Id": sid}, legacy
				}
				v, _, status := leanPost(t, url, h, body)
				return []any{status, v}
			}
			before := g.leanServed.Load()
			got := ask()
			lean := g.leanServed.Load() > before
			g.leanOff = true
			want := ask()
			g.leanOff = false
			if lean != c.lean {
				t.Errorf("%s, arguments %d deep: answered by the lean path %v, want %v", era, c.depth, lean, c.lean)
			}
			if !reflect.DeepEqual(got, want) {
				gb, _ := json.Marshal(got)
				wb, _ := json.Marshal(want)
				t.Errorf("%s, arguments %d deep:\nlean path: %.300s\nSDK:       %.300s", era, c.depth, gb, wb)
			}
		}
	}
}

func TestNestedWithin(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want bool
	}{
		{`{"a":[1,{"b":2}]}`, 3, true},
		{`{"a":[1,{"b":2}]}`, 2, false},
		{`{"a":"[[[[{{{{"}`, 1, true},  // brackets in strings do not count
		{`{"a":"x\"[[[[\\"}`, 1, true}, // nor after escaped quotes
		{`["\\",[[`, 2, false},         // an escaped backslash ends before the quote
	} {
		if got := nestedWithin([]byte(c.in), c.max); got != c.want {
			t.Errorf("nestedWithin(%s, %d) = %v, want %v", c.in, c.max, got, c.want)
		}
	}
}
