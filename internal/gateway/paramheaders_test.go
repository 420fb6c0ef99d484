package gateway_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// A 2026-07-28 tools/call the lean path refuses for its Mcp-Param-* header is counted in
// mcpbridge_http_requests_total with the status it was answered with (400), not as a 200.
func TestParamHeaderRefusalIsCountedAs400(t *testing.T) {
	srv := gatewaytest.Start(t, `
servers:
  geo:
    kind: command
    description: d
    tools:
      region: {description: r, inputSchema: {type: object, properties: {region: {type: string, x-mcp-header: Region}}}, argv: [echo, {direct: region}]}
`, gateway.Options{})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"region","arguments":{"region":"eu"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", srv.URL+"/mcp/geo", strings.NewReader(body))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"},
		"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"region"}, "Mcp-Param-Region": {"us"}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "-32020") {
		t.Fatalf("a mismatched header: %d %s", resp.StatusCode, b)
	}
	resp, err = http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(m), `mcpbridge_http_requests_total{code="400",server="geo"} 1`) || strings.Contains(string(m), `mcpbridge_http_requests_total{code="200",server="geo"}`) {
		t.Errorf("the refusal is not counted as one 400:\n%s", grepLines(string(m), "mcpbridge_http_requests_total"))
	}
}
