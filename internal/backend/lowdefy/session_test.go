package lowdefy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/auth"
)

// Two replicas on one store serve one session in turn: each call sees what the other
// replica's last call saved, never the engine a replica kept from its own earlier call.
func TestSessionAcrossReplicas(t *testing.T) {
	f := newSessionFixture(t)
	a, b := f.open(), f.open()
	sid := f.create(a)
	set := func(bk *Backend, block, v string) {
		t.Helper()
		f.call(bk, f.ada, "interact", map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "setValue", "blockId": block, "value": v}}}, false)
	}
	state := func(bk *Backend) string {
		t.Helper()
		return f.call(bk, f.ada, "get_state", map[string]any{"sessionId": sid}, false)
	}
	f.call(a, f.ada, "navigate", map[string]any{"sessionId": sid, "pageId": "new-ticket"}, false)
	set(a, "ticket_title", "from A")
	if a.cache.len() != 1 {
		t.Fatalf("replica A caches %d sessions after its calls, want 1", a.cache.len())
	}
	set(b, "ticket_title", "from B") // B restores A's save, and saves
	if got := state(a); !strings.Contains(got, `"ticket_title":"from B"`) {
		t.Errorf("replica A after B's save serves a stale engine: %s", got)
	}
	set(a, "ticket_description", "A again") // A restored B's save: both values stay
	for _, bk := range []*Backend{a, b} {
		if got := state(bk); !strings.Contains(got, `"ticket_title":"from B"`) || !strings.Contains(got, `"ticket_description":"A again"`) {
			t.Errorf("state: %s", got)
		}
	}
	// B's engine is from before A's last save: B must restore, and its next save must not
	// lose A's value.
	set(b, "ticket_title", "B again")
	if got := state(a); !strings.Contains(got, `"ticket_title":"B again"`) || !strings.Contains(got, `"ticket_description":"A again"`) {
		t.Errorf("state after both replicas wrote: %s", got)
	}

	// Another principal does not get the session, cached or not.
	eve := auth.Principal{User: "eve", Roles: []string{"support"}}
	if got := f.call(a, eve, "get_state", map[string]any{"sessionId": sid}, true); !strings.Contains(got, "not found") {
		t.Errorf("eve's get_state: %s", got)
	}

	// Closing drops the cached engine; the closed session is closed on every replica.
	f.call(b, f.ada, "get_state", map[string]any{"sessionId": sid}, false)
	f.call(b, f.ada, "session_close", map[string]any{"sessionId": sid}, false)
	if b.cache.len() != 0 {
		t.Errorf("replica B still caches the closed session")
	}
	for _, bk := range []*Backend{a, b} {
		if got := f.call(bk, f.ada, "get_state", map[string]any{"sessionId": sid}, true); !strings.Contains(got, "closed") {
			t.Errorf("get_state of a closed session: %s", got)
		}
	}
	if a.cache.len() != 0 {
		t.Errorf("replica A still caches the closed session")
	}
}

// The cache serves an entry only for the version and principal it was made for, and keeps
// the most recently used entries up to its bound.
func TestSessionCache(t *testing.T) {
	c := newSessionCache(2)
	ada := principalKey(auth.Principal{User: "ada", Roles: []string{"support"}})
	for _, id := range []string{"s1", "s2"} {
		c.put(&cachedSession{id: id, version: 3, who: ada})
	}
	if c.get("s1", 3, ada) == nil {
		t.Fatal("s1 at version 3 is not served")
	}
	c.put(&cachedSession{id: "s3", version: 1, who: ada}) // s2 is the least recently used
	if c.len() != 2 || c.get("s2", 3, ada) != nil || c.get("s1", 3, ada) == nil || c.get("s3", 1, ada) == nil {
		t.Errorf("after a third entry: %d entries; s2 should be the one dropped", c.len())
	}
	if c.get("s1", 4, ada) != nil {
		t.Error("s1 is served at another version")
	}
	if c.get("s1", 3, ada) != nil {
		t.Error("s1 is still cached after a call found another version")
	}
	sales := principalKey(auth.Principal{User: "ada", Roles: []string{"sales"}})
	if c.get("s3", 1, sales) != nil {
		t.Error("an engine made for ada (support) is served to ada (sales)")
	}
	c.put(&cachedSession{id: "s4", version: 1, who: ada})
	c.drop("s4")
	if c.len() != 0 {
		t.Errorf("%d entries left, want 0", c.len())
	}
}

// The audit trail stays with the session (seed 001, Session Management): every step, in
// order, the newest MaxAudit of them, whichever replica served it.
func TestSessionAuditTrail(t *testing.T) {
	f := newSessionFixture(t)
	a, b := f.open(), f.open()
	sid := f.create(a)
	f.call(a, f.ada, "navigate", map[string]any{"sessionId": sid, "pageId": "new-ticket"}, false)
	const calls = MaxAudit + 20
	for i := range calls {
		bk := a
		if i%3 == 0 {
			bk = b
		}
		f.call(bk, f.ada, "interact", map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "setValue", "blockId": "ticket_title", "value": fmt.Sprintf("title %d", i)}}}, false)
	}
	f.call(b, f.ada, "interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "setValue", "blockId": "no_such_block", "value": "x"}}}, false)
	ws, err := f.st.WorkSessions.Load(context.Background(), sid, f.ada.Owner())
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Name   string `json:"name"`
		PageID string `json:"pageId"`
		Audit  []struct {
			Tool   string `json:"tool"`
			Action struct {
				Value string `json:"value"`
			} `json:"action"`
			Page string `json:"page"`
			OK   bool   `json:"ok"`
		} `json:"audit"`
	}
	if err := json.Unmarshal(ws.Data, &data); err != nil {
		t.Fatalf("stored data: %v\n%.300s", err, ws.Data)
	}
	if data.Name != "bench" || data.PageID != "new-ticket" || len(data.Audit) != MaxAudit {
		t.Fatalf("stored data: name %q, page %q, %d audit entries (want %d)", data.Name, data.PageID, len(data.Audit), MaxAudit)
	}
	for i, e := range data.Audit[:MaxAudit-1] {
		want := fmt.Sprintf("title %d", calls-MaxAudit+1+i)
		if e.Tool != "interact" || !e.OK || e.Page != "new-ticket" || e.Action.Value != want {
			t.Fatalf("audit[%d] = %+v, want the setValue of %q", i, e, want)
		}
	}
	if last := data.Audit[MaxAudit-1]; last.OK {
		t.Errorf("the failed action is audited as ok: %+v", last)
	}
}
