package changes

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

func recv(t *testing.T, ch <-chan store.Change) store.Change {
	t.Helper()
	select {
	case c, ok := <-ch:
		if !ok {
			t.Fatal("channel closed")
		}
		return c
	case <-time.After(2 * time.Second):
		t.Fatal("nothing received")
	}
	panic("unreachable")
}

func TestOrderAndFanOut(t *testing.T) {
	var h Hub
	a := h.Subscribe(t.Context())
	b := h.Subscribe(t.Context())
	for i := range 10 {
		h.Publish(store.Change{Kind: store.ChangePut, Slug: fmt.Sprint(i)})
	}
	for _, ch := range []<-chan store.Change{a, b} {
		for i := range 10 {
			if c := recv(t, ch); c.Slug != fmt.Sprint(i) {
				t.Fatalf("change %d = %+v", i, c)
			}
		}
	}
}

// A subscriber that never reads does not block Publish; when it falls more
// than MaxBacklog behind, its backlog becomes one resync followed by what
// came after.
func TestSlowSubscriberGetsResync(t *testing.T) {
	var h Hub
	slow := h.Subscribe(t.Context())
	done := make(chan struct{})
	go func() {
		for i := range MaxBacklog + 10 {
			h.Publish(store.Change{Kind: store.ChangePut, Slug: fmt.Sprint(i)})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a subscriber that does not read")
	}
	// The forwarding goroutine may already hold the first change.
	sawResync := false
	last := ""
	for {
		c := recv(t, slow)
		if c.Kind == store.ChangeResync {
			sawResync = true
			continue
		}
		last = c.Slug
		if last == fmt.Sprint(MaxBacklog+9) {
			break
		}
	}
	if !sawResync {
		t.Error("no resync after overflowing the backlog")
	}
}

func TestCancelAndClose(t *testing.T) {
	var h Hub
	ctx, cancel := context.WithCancel(t.Context())
	ch := h.Subscribe(ctx)
	other := h.Subscribe(t.Context())
	cancel()
	for range ch {
	}
	if n := h.Subscribers(); n != 1 {
		t.Errorf("%d subscribers after cancel, want 1", n)
	}
	h.Close()
	for range other {
	}
	if _, ok := <-h.Subscribe(t.Context()); ok {
		t.Error("Subscribe after Close returned an open channel")
	}
	h.Publish(store.Change{Kind: store.ChangePut, Slug: "x"}) // must not panic
}
