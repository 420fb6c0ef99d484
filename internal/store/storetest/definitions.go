package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

func testDefinitions(t *testing.T, open Opener) {
	t.Run("CRUD", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		defs := s.Definitions

		_, err := defs.Get(ctx, "missing")
		wantErr(t, "Get missing", err, store.ErrNotFound)
		wantErr(t, "Delete missing", defs.Delete(ctx, "missing"), store.ErrNotFound)

		list, err := defs.List(ctx)
		must(t, "List empty", err)
		if len(list) != 0 {
			t.Errorf("List on empty store = %d definitions, want 0", len(list))
		}

		// Documents are opaque: whitespace and key order survive.
		doc := json.RawMessage("{\"z\": 1,\n  \"a\": [true, null, \"é\\u0000\"]}")
		created, err := defs.Create(ctx, "weather", doc)
		must(t, "Create", err)
		if created.Slug != "weather" || string(created.Doc) != string(doc) || created.Revision <= 0 {
			t.Errorf("Create returned %+v", created)
		}
		if created.CreatedAt.IsZero() || !created.CreatedAt.Equal(created.UpdatedAt) {
			t.Errorf("Create times: created %v updated %v; want equal, non-zero", created.CreatedAt, created.UpdatedAt)
		}
		got, err := defs.Get(ctx, "weather")
		must(t, "Get", err)
		if diff := cmp.Diff(created, got); diff != "" {
			t.Errorf("Get differs from what Create returned (-create +get):\n%s", diff)
		}

		_, err = defs.Create(ctx, "weather", json.RawMessage(`{}`))
		wantErr(t, "Create existing", err, store.ErrExists)
		again, err := defs.Get(ctx, "weather")
		must(t, "Get after failed Create", err)
		if string(again.Doc) != string(doc) || again.Revision != created.Revision {
			t.Errorf("failed Create changed the definition: %+v", again)
		}

		replaced, err := defs.Put(ctx, "weather", json.RawMessage(`{"v":2}`))
		must(t, "Put replace", err)
		if replaced.Revision <= created.Revision {
			t.Errorf("revision after Put = %d, want > %d", replaced.Revision, created.Revision)
		}
		if !replaced.CreatedAt.Equal(created.CreatedAt) {
			t.Errorf("Put changed CreatedAt from %v to %v", created.CreatedAt, replaced.CreatedAt)
		}
		if replaced.UpdatedAt.Before(created.UpdatedAt) {
			t.Errorf("UpdatedAt went back: %v then %v", created.UpdatedAt, replaced.UpdatedAt)
		}
		got, err = defs.Get(ctx, "weather")
		must(t, "Get after Put", err)
		if diff := cmp.Diff(replaced, got); diff != "" {
			t.Errorf("Get differs from what Put returned (-put +get):\n%s", diff)
		}

		putNew, err := defs.Put(ctx, "a-first_1", json.RawMessage(`[1,2,3]`))
		must(t, "Put new", err)
		list, err = defs.List(ctx)
		must(t, "List", err)
		if diff := cmp.Diff([]store.Definition{putNew, replaced}, list); diff != "" {
			t.Errorf("List (-want +got):\n%s", diff)
		}

		must(t, "Delete", defs.Delete(ctx, "weather"))
		_, err = defs.Get(ctx, "weather")
		wantErr(t, "Get deleted", err, store.ErrNotFound)
		wantErr(t, "Delete twice", defs.Delete(ctx, "weather"), store.ErrNotFound)

		recreated, err := defs.Create(ctx, "weather", json.RawMessage(`{"v":3}`))
		must(t, "Create after Delete", err)
		if recreated.Revision <= putNew.Revision {
			t.Errorf("revision after re-Create = %d, want > %d (revisions never go back)", recreated.Revision, putNew.Revision)
		}
	})

	t.Run("Validation", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		big := make([]byte, store.DefaultMaxDocumentBytes+1)
		copy(big, `"`)
		for i := 1; i < len(big)-1; i++ {
			big[i] = 'x'
		}
		big[len(big)-1] = '"'
		tests := []struct {
			name string
			slug string
			doc  string
			want error
		}{
			{"empty slug", "", `{}`, store.ErrInvalid},
			{"upper case", "Weather", `{}`, store.ErrInvalid},
			{"leading dash", "-x", `{}`, store.ErrInvalid},
			{"slash", "a/b", `{}`, store.ErrInvalid},
			{"dot", "a.b", `{}`, store.ErrInvalid},
			{"too long", strings.Repeat("a", 64), `{}`, store.ErrInvalid},
			{"not JSON", "ok", `{"a":`, store.ErrInvalid},
			{"two values", "ok", `{} {}`, store.ErrInvalid},
			{"empty doc", "ok", ``, store.ErrInvalid},
			{"too large", "ok", string(big), store.ErrTooLarge},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.Definitions.Put(ctx, tc.slug, json.RawMessage(tc.doc))
				wantErr(t, "Put", err, tc.want)
				_, err = s.Definitions.Create(ctx, tc.slug, json.RawMessage(tc.doc))
				wantErr(t, "Create", err, tc.want)
				if err != nil && strings.Contains(err.Error(), strings.Repeat("x", 200)) {
					t.Errorf("error echoes the whole document: %.200s…", err)
				}
			})
		}
		for _, slug := range []string{"a", "0", strings.Repeat("z", 63), "a-b_c"} {
			if _, err := s.Definitions.Put(ctx, slug, json.RawMessage(`{}`)); err != nil {
				t.Errorf("Put(%q) = %v, want success", slug, err)
			}
		}
		list, err := s.Definitions.List(ctx)
		must(t, "List", err)
		if len(list) != 4 {
			t.Errorf("List after invalid and valid Puts = %d definitions, want 4", len(list))
		}
	})

	t.Run("ConcurrentPuts", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		const workers, each = 8, 10
		var wg sync.WaitGroup
		errs := make(chan error, workers*each)
		revs := make(chan int64, workers*each)
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					// Half the writes go to one shared slug, half to own slugs.
					slug := "shared"
					if i%2 == 1 {
						slug = fmt.Sprintf("own-%d-%d", w, i)
					}
					def, err := s.Definitions.Put(ctx, slug, json.RawMessage(fmt.Sprintf(`{"w":%d,"i":%d}`, w, i)))
					if err != nil {
						errs <- err
						continue
					}
					revs <- def.Revision
				}
			})
		}
		wg.Wait()
		close(errs)
		close(revs)
		for err := range errs {
			t.Errorf("concurrent Put: %v", err)
		}
		seen := map[int64]bool{}
		for r := range revs {
			if seen[r] {
				t.Errorf("revision %d returned by two Puts", r)
			}
			seen[r] = true
		}
		list, err := s.Definitions.List(ctx)
		must(t, "List", err)
		if want := 1 + workers*each/2; len(list) != want {
			t.Errorf("List = %d definitions, want %d", len(list), want)
		}
	})
}
