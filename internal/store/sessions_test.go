package store_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

func TestApplySave(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cur := store.WorkSession{ID: "s1", App: "app", Owner: "alice", Data: json.RawMessage(`{"a":1}`), Version: 3, CreatedAt: now.Add(-time.Hour)}
	save := store.WorkSession{ID: "s1", Owner: "alice", Data: json.RawMessage(`{"a":2}`), Version: 3, ExpiresAt: now.Add(time.Hour + time.Nanosecond)}

	got, err := store.ApplySave(cur, save, now)
	if err != nil {
		t.Fatalf("ApplySave: %v", err)
	}
	if string(got.Data) != `{"a":2}` || got.Version != 4 || !got.UpdatedAt.Equal(now) || got.App != "app" || !got.CreatedAt.Equal(cur.CreatedAt) {
		t.Errorf("saved %+v, want the new data, version 4, updated now, app and creation kept", got)
	}
	if want := now.Add(time.Hour); !got.ExpiresAt.Equal(want) {
		t.Errorf("expiry %v, want it normalized to %v", got.ExpiresAt, want)
	}
	save.Data[6] = '9'
	if string(got.Data) != `{"a":2}` {
		t.Error("the saved data shares the caller's bytes")
	}

	expired := cur
	expired.ExpiresAt = now
	closed := cur
	closed.Closed = true
	other := save
	other.Owner = "bob"
	stale := save
	stale.Version = 2
	for _, tt := range []struct {
		name    string
		cur, ws store.WorkSession
		want    error
	}{
		{"another owner", cur, other, store.ErrNotFound},
		{"expired at now", expired, save, store.ErrNotFound},
		{"closed", closed, save, store.ErrClosed},
		{"stale version", cur, stale, store.ErrConflict},
	} {
		if _, err := store.ApplySave(tt.cur, tt.ws, now); !errors.Is(err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestVisibleTo(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ws := store.WorkSession{Owner: "alice"}
	if !ws.VisibleTo("alice", now) || ws.VisibleTo("bob", now) {
		t.Error("a session without expiry is visible to its owner only")
	}
	ws.ExpiresAt = now.Add(time.Microsecond)
	if !ws.VisibleTo("alice", now) {
		t.Error("a session expiring after now is visible")
	}
	ws.ExpiresAt = now
	if ws.VisibleTo("alice", now) {
		t.Error("a session expiring at now is not visible")
	}
}
