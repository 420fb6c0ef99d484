package lowdefy_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

const h22Secret = "s3cr3t-Tok3n-9f8e7d6c5b4a"

const h22App = `lowdefy: 4.0.0
connections:
  - id: db
    type: Knex
    properties:
      client: sqlite
      useNullAsDefault: true
      connection: {filename: {_secret: SQLITE_FILENAME}}
pages:
  - id: leak
    type: Box
    requests:
      - id: echo
        type: KnexRaw
        connectionId: db
        properties:
          query: SELECT :t AS v
          parameters: {t: {_secret: TOKEN}}
      - id: bad
        type: KnexRaw
        connectionId: db
        properties:
          query: {_string.concat: ['SELECT * FROM t_', {_secret: TOKEN}]}
    events:
      onInit:
        - {id: load, type: Request, params: [echo, bad]}
        - {id: keep, type: SetState, params: {got: {_request: echo.0.v}}}
    blocks:
      - id: show
        type: Html
        properties:
          html: {_string.concat: ['<p><b>', {_request: echo.0.v}, '</b></p>']}
      - id: md
        type: Markdown
        properties:
          content: {_string.concat: ['**', {_state: got}, '**']}
      - id: day
        type: DateSelector
      - id: q
        type: Paragraph
        properties:
          content: {_string.concat: ['q=', {_url_query: id}]}
`

func startH22(t *testing.T) *gatewaytest.Server {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(h22App), 0o644); err != nil {
		t.Fatal(err)
	}
	dbFile := filepath.Join(dir, "notes.sqlite")
	db, err := sql.Open("sqlite", dbFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	t.Setenv("LD_TEST_SQLITE_FILENAME", dbFile)
	t.Setenv("LD_TEST_TOKEN", h22Secret)
	cfg := strings.Replace(gatewayConfig(dir, ""), "secrets: {SQLITE_FILENAME: env:LD_TEST_SQLITE_FILENAME}",
		"secrets: {SQLITE_FILENAME: env:LD_TEST_SQLITE_FILENAME, TOKEN: env:LD_TEST_TOKEN}", 1)
	st := openStore(t, filepath.Join(t.TempDir(), "s.db"))
	return gatewaytest.Start(t, cfg, gateway.Options{WorkSessions: st.WorkSessions})
}

// A secret a request reads, shown by Html and Markdown blocks, kept in state and named in
// a failed request's error, never reaches the agent.
func TestAttackSecretThroughPageAndLog(t *testing.T) {
	srv := startH22(t)
	a := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	sid := sessionOf(t, a)
	res := a.call("navigate", map[string]any{"sessionId": sid, "pageId": "leak"}, false)
	page, log := pageLog(t, res)
	all := text(res)
	if strings.Contains(all, h22Secret) || strings.Contains(all, "Tok3n") {
		t.Errorf("navigate leaks the secret:\n%s", all)
	}
	if !strings.Contains(all, "SQLITE_ERROR") || !strings.Contains(all, "[env LD_TEST_TOKEN]") {
		t.Errorf("the failed request's error is not in the log: %v", log)
	}
	t.Logf("page:\n%s", page)
	res = a.call("get_state", map[string]any{"sessionId": sid}, false)
	if strings.Contains(text(res), "Tok3n") {
		t.Errorf("get_state leaks the secret: %s", text(res))
	}
}

// Hostile navigate targets and date values: each a clear error result, bounded.
func TestAttackNavigateAndDates(t *testing.T) {
	srv := startH22(t)
	a := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	sid := sessionOf(t, a)
	for _, pid := range []string{"../x", "-x", "%00", "leak\x00", strings.Repeat("a", 1<<20)} {
		res := a.call("navigate", map[string]any{"sessionId": sid, "pageId": pid}, true)
		if len(text(res)) > 4096 {
			t.Errorf("navigate %.20q answers %d bytes", pid, len(text(res)))
		}
		t.Logf("navigate %.20q: %.200s", pid, text(res))
	}
	res := a.call("navigate", map[string]any{"sessionId": sid, "pageId": "leak?" + strings.Repeat("id=1&", 100000)}, false)
	t.Logf("100000 params: %d bytes", len(text(res)))
	res = a.call("navigate", map[string]any{"sessionId": sid, "pageId": "leak?id=" + strings.Repeat("x", 1<<20)}, false)
	t.Logf("1MB query: %d bytes", len(text(res)))
	res = a.call("navigate", map[string]any{"sessionId": sid, "pageId": "leak?id=1" + strings.Repeat("z", 1<<20), "urlQuery": map[string]any{"a": "y"}}, false)
	if _, log := pageLog(t, res); len(log) != 1 || len(log[0]["error"].(string)) > 1024 {
		t.Errorf("navigate with both queries: an error of %d bytes", len(log[0]["error"].(string)))
	}
	for _, v := range []any{strings.Repeat("2", 10<<20/4), "9999999-01-01", "-271821-04-19", map[string]any{"~d": 1e300}, "NaN", map[string]any{"~d": "NaN"}} {
		res := a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "setValue", "blockId": "day", "value": v}}}, false)
		s := text(res)
		if l := len(s[strings.LastIndex(s, "log: "):]); l > 4096 || !strings.Contains(s, "DateSelector takes") {
			t.Errorf("setValue %.30v logs %d bytes: %.300s", v, l, s[strings.LastIndex(s, "log: "):])
		}
		t.Logf("setValue %.30v: %.400s", v, s[strings.LastIndex(s, "log: "):])
	}
	for _, id := range []string{"day#999999999999", "day#-1", "day#0", "leak/day#99999999999999999999999", "day#1e3"} {
		res := a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "setValue", "blockId": id, "value": "2026-01-01"}}}, false)
		s := text(res)
		if !strings.Contains(s, "has no block") {
			t.Errorf("block %q: %.400s", id, s[strings.LastIndex(s, "log: "):])
		}
	}
}
