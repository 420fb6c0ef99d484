package gateway_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

const auditAttackConfig = `
servers:
  argued:
    kind: command
    description: arguments are audited
    auth: {public: true}
    audit: {arguments: true}
    tools:
      take:
        description: takes anything
        inputSchema: {type: object}
        argv: [echo, taken]
      short:
        description: a short password
        inputSchema: {type: object, properties: {password: {type: string, maxLength: 3}, pin: {type: string, enum: [a]}}}
        argv: [echo, short]
`

// Audited arguments (audit: {arguments: true}) under attack: secret-named fields nested
// deep inside arrays are masked, a 1 MB argument is cut to the row's bound, and a refused
// call does not carry a secret into the row or the log through its error message.
func TestAttackAuditArguments(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var logs bytes.Buffer
	srv := gatewaytest.Start(t, auditAttackConfig, gateway.Options{Audit: st.Audit, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	cs, err := connectAs(t, srv.URL+"/mcp/argued", "", "2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"s3cr3t-pw", "s3cr3t-tok", "s3cr3t-key", "s3cr3t-auth", "s3cr3t-pwd", "s3cr3t-access", "s3cr3t-bearer", "s3cr3t-short"}
	var nested any = map[string]any{"list": []any{
		map[string]any{"password": secrets[0]},
		[]any{[]any{map[string]any{"Access_Token": secrets[1], "keep": "visible"}}},
		map[string]any{"x": []any{map[string]any{"API_KEY": secrets[2], "Authorization": secrets[3]}}},
		map[string]any{"pwd": secrets[4], "accessKey": secrets[5], "bearer": secrets[6]},
	}}
	for range 50 {
		nested = []any{nested}
	}
	call(t, cs, "take", map[string]any{"deep": nested})
	call(t, cs, "take", map[string]any{"blob": strings.Repeat("b", 1<<20), "password": "s3cr3t-after-blob"})
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "short", Arguments: map[string]any{"password": secrets[7] + strings.Repeat("!", 2000)}})
	t.Logf("short: %v %v", res, err)
	srv.Gateway.Close() // flushes the audit queue

	rows, err := st.Audit.List(t.Context(), store.AuditFilter{})
	if err != nil || len(rows) != 3 {
		t.Fatalf("audit rows: %d, %v", len(rows), err)
	}
	for _, r := range rows {
		line, _ := json.Marshal(r)
		t.Logf("row %s: %d bytes of arguments, error %.200q", r.Tool, len(r.Arguments), r.Error)
		for _, s := range append(secrets, "s3cr3t-after-blob") {
			if strings.Contains(string(line), s) {
				t.Errorf("the audit row of %s holds %s: %.500s", r.Tool, s, line)
			}
		}
		if len(r.Arguments) > 4200 || len(r.Error) > 4200 {
			t.Errorf("the audit row of %s keeps %d bytes of arguments and %d of error", r.Tool, len(r.Arguments), len(r.Error))
		}
	}
	for _, s := range append(secrets, "s3cr3t-after-blob") {
		if strings.Contains(logs.String(), s) {
			t.Errorf("the log holds %s: %s", s, grepLines(logs.String(), s))
		}
	}
	if !strings.Contains(rows[2].Arguments, `"keep":"visible"`) {
		t.Errorf("masking took too much: %.300s", rows[2].Arguments)
	}
}
