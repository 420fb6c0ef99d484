package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

func testWorkSessions(t *testing.T, open Opener, openPair PairOpener) {
	t.Run("Lifecycle", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		ws := s.WorkSessions
		expires := time.Now().Add(time.Hour)

		created, err := ws.Create(ctx, store.WorkSession{App: "crm", Owner: "alice", Data: json.RawMessage(`{"page":"home"}`), ExpiresAt: expires})
		must(t, "Create", err)
		if !store.SessionIDPattern.Get().MatchString(created.ID) || len(created.ID) < 16 {
			t.Errorf("generated id %q is not a long random id", created.ID)
		}
		if created.Version != 1 || created.Closed || created.CreatedAt.IsZero() || !created.ExpiresAt.Equal(store.Normalize(expires)) {
			t.Errorf("Create returned %+v", created)
		}

		loaded, err := ws.Load(ctx, created.ID, "alice")
		must(t, "Load", err)
		if diff := cmp.Diff(created, loaded); diff != "" {
			t.Errorf("Load (-create +load):\n%s", diff)
		}
		_, err = ws.Load(ctx, created.ID, "mallory")
		wantErr(t, "Load by another owner", err, store.ErrNotFound)
		_, err = ws.Load(ctx, "nope", "alice")
		wantErr(t, "Load missing", err, store.ErrNotFound)

		loaded.Data = json.RawMessage(`{"page":"contacts","n":1}`)
		saved, err := ws.Save(ctx, loaded)
		must(t, "Save", err)
		if saved.Version != 2 || string(saved.Data) != `{"page":"contacts","n":1}` || !saved.CreatedAt.Equal(created.CreatedAt) || saved.UpdatedAt.Before(created.UpdatedAt) {
			t.Errorf("Save returned %+v", saved)
		}
		reloaded, err := ws.Load(ctx, created.ID, "alice")
		must(t, "Load after Save", err)
		if diff := cmp.Diff(saved, reloaded); diff != "" {
			t.Errorf("Load after Save (-save +load):\n%s", diff)
		}

		_, err = ws.Save(ctx, loaded) // still version 1
		wantErr(t, "stale Save", err, store.ErrConflict)
		stranger := reloaded
		stranger.Owner = "mallory"
		_, err = ws.Save(ctx, stranger)
		wantErr(t, "Save by another owner", err, store.ErrNotFound)
		bad := reloaded
		bad.Data = json.RawMessage(`{not json`)
		_, err = ws.Save(ctx, bad)
		wantErr(t, "Save invalid data", err, store.ErrInvalid)
		missing := reloaded
		missing.ID = "missing"
		_, err = ws.Save(ctx, missing)
		wantErr(t, "Save missing", err, store.ErrNotFound)

		must(t, "Close", ws.Close(ctx, created.ID))
		must(t, "Close again", ws.Close(ctx, created.ID))
		wantErr(t, "Close missing", ws.Close(ctx, "missing"), store.ErrNotFound)
		closed, err := ws.Load(ctx, created.ID, "alice")
		must(t, "Load closed", err)
		if !closed.Closed || closed.Version != 3 {
			t.Errorf("closed session = %+v, want Closed and version 3", closed)
		}
		_, err = ws.Save(ctx, closed)
		wantErr(t, "Save closed", err, store.ErrClosed)
	})

	t.Run("CreateValidation", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		_, err := s.WorkSessions.Create(ctx, store.WorkSession{ID: "fixed-id", App: "crm", Owner: "alice", Data: json.RawMessage(`{}`)})
		must(t, "Create with id", err)
		tests := []struct {
			name string
			ws   store.WorkSession
			want error
		}{
			{"duplicate id", store.WorkSession{ID: "fixed-id", App: "crm", Owner: "bob", Data: json.RawMessage(`{}`)}, store.ErrExists},
			{"bad id", store.WorkSession{ID: "a b", App: "crm", Owner: "alice", Data: json.RawMessage(`{}`)}, store.ErrInvalid},
			{"no app", store.WorkSession{Owner: "alice", Data: json.RawMessage(`{}`)}, store.ErrInvalid},
			{"no owner", store.WorkSession{App: "crm", Data: json.RawMessage(`{}`)}, store.ErrInvalid},
			{"no data", store.WorkSession{App: "crm", Owner: "alice"}, store.ErrInvalid},
			{"bad data", store.WorkSession{App: "crm", Owner: "alice", Data: json.RawMessage(`[`)}, store.ErrInvalid},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.WorkSessions.Create(ctx, tc.ws)
				wantErr(t, "Create", err, tc.want)
			})
		}
		got, err := s.WorkSessions.Load(ctx, "fixed-id", "alice")
		must(t, "Load after failed duplicate", err)
		if got.Owner != "alice" || got.Version != 1 {
			t.Errorf("duplicate Create changed the session: %+v", got)
		}
	})

	t.Run("ListAndExpire", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		ws := s.WorkSessions
		now := time.Now()
		mk := func(id, owner string, expires time.Time) store.WorkSession {
			t.Helper()
			w, err := ws.Create(ctx, store.WorkSession{ID: id, App: "crm", Owner: owner, Data: json.RawMessage(`{}`), ExpiresAt: expires})
			must(t, "Create "+id, err)
			return w
		}
		mk("a1", "alice", time.Time{})
		mk("a2", "alice", now.Add(time.Hour))
		mk("a-expired", "alice", now.Add(-time.Minute))
		mk("a-closed", "alice", time.Time{})
		mk("b1", "bob", now.Add(2*time.Hour))
		must(t, "Close", ws.Close(ctx, "a-closed"))
		// Touch a1 so it is the most recently updated.
		a1, err := ws.Load(ctx, "a1", "alice")
		must(t, "Load a1", err)
		_, err = ws.Save(ctx, a1)
		must(t, "Save a1", err)

		_, err = ws.Load(ctx, "a-expired", "alice")
		wantErr(t, "Load expired", err, store.ErrNotFound)

		ids := func(owner string) []string {
			list, err := ws.List(ctx, owner)
			must(t, "List "+owner, err)
			out := []string{}
			for _, w := range list {
				out = append(out, w.ID)
			}
			return out
		}
		if diff := cmp.Diff([]string{"a1", "a2"}, ids("alice")); diff != "" {
			t.Errorf("List alice (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"b1"}, ids("bob")); diff != "" {
			t.Errorf("List bob (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{}, ids("nobody")); diff != "" {
			t.Errorf("List nobody (-want +got):\n%s", diff)
		}

		n, err := ws.Expire(ctx, now.Add(-time.Hour))
		must(t, "Expire long ago", err)
		if n != 0 {
			t.Errorf("Expire(an hour ago) deleted %d, want 0", n)
		}
		n, err = ws.Expire(ctx, time.Now())
		must(t, "Expire now", err)
		if n != 2 { // a-expired and a-closed
			t.Errorf("Expire(now) deleted %d, want 2", n)
		}
		_, err = ws.Load(ctx, "a-closed", "alice")
		wantErr(t, "Load expired closed", err, store.ErrNotFound)
		n, err = ws.Expire(ctx, now.Add(90*time.Minute))
		must(t, "Expire later", err)
		if n != 1 { // a2
			t.Errorf("Expire(+90m) deleted %d, want 1", n)
		}
		if diff := cmp.Diff([]string{"a1"}, ids("alice")); diff != "" {
			t.Errorf("List alice after Expire (-want +got):\n%s", diff)
		}
	})

	t.Run("ConcurrentSaves", func(t *testing.T) {
		// Two Stores on one database, as two replicas: of the saves that start
		// from the same version exactly one wins; the others get ErrConflict.
		a, b := openPair(t)
		ctx := ctxFor(t)
		base, err := a.WorkSessions.Create(ctx, store.WorkSession{App: "crm", Owner: "alice", Data: json.RawMessage(`{"n":0}`)})
		must(t, "Create", err)
		const writers = 8
		var wg sync.WaitGroup
		results := make([]error, writers)
		for i := range writers {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Go(func() {
				w := base
				w.Data = json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))
				_, results[i] = s.WorkSessions.Save(ctx, w)
			})
		}
		wg.Wait()
		wins := 0
		for i, err := range results {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, store.ErrConflict):
				t.Errorf("writer %d: %v, want nil or ErrConflict", i, err)
			}
		}
		if wins != 1 {
			t.Errorf("%d saves from version 1 succeeded, want exactly 1", wins)
		}
		got, err := b.WorkSessions.Load(ctx, base.ID, "alice")
		must(t, "Load", err)
		if got.Version != 2 {
			t.Errorf("version after the race = %d, want 2", got.Version)
		}

		// Retrying on conflict, every writer's increment lands.
		var wg2 sync.WaitGroup
		errs := make(chan error, writers)
		for i := range writers {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg2.Go(func() {
				for {
					cur, err := s.WorkSessions.Load(ctx, base.ID, "alice")
					if err != nil {
						errs <- err
						return
					}
					var v struct{ N int }
					if err := json.Unmarshal(cur.Data, &v); err != nil {
						errs <- err
						return
					}
					cur.Data = json.RawMessage(fmt.Sprintf(`{"n":%d}`, v.N+1))
					_, err = s.WorkSessions.Save(ctx, cur)
					if errors.Is(err, store.ErrConflict) {
						continue
					}
					if err != nil {
						errs <- err
					}
					return
				}
			})
		}
		wg2.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("retrying writer: %v", err)
		}
		before := got
		var v struct{ N int }
		final, err := a.WorkSessions.Load(ctx, base.ID, "alice")
		must(t, "Load final", err)
		must(t, "decode final", json.Unmarshal(final.Data, &v))
		var start struct{ N int }
		must(t, "decode start", json.Unmarshal(before.Data, &start))
		if v.N != start.N+writers || final.Version != before.Version+writers {
			t.Errorf("after %d retrying increments: n=%d version=%d, want n=%d version=%d", writers, v.N, final.Version, start.N+writers, before.Version+writers)
		}
	})
}
