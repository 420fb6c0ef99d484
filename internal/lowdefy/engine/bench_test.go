package engine_test

import (
	"context"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// BenchmarkSetValue measures one setValue step (coercion, update loop,
// onChange) on the tutorial's new-ticket page.
func BenchmarkSetValue(b *testing.B) {
	ctx := context.Background()
	e := engine.New(load(b, "tutorial/04-interactive-pages"), engine.Options{Now: fixedClock()})
	must(b, e.Navigate(ctx, "new-ticket", nil, nil))
	vals := []any{"Complaint", "Question"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		must(b, e.SetValue(ctx, "ticket_type", vals[i%2]))
		i++
	}
}

// BenchmarkSaveRestore measures saving an engine on the new-ticket page
// and restoring it into a fresh engine.
func BenchmarkSaveRestore(b *testing.B) {
	ctx := context.Background()
	a := load(b, "tutorial/04-interactive-pages")
	e := engine.New(a, engine.Options{Now: fixedClock()})
	must(b, e.Navigate(ctx, "new-ticket", nil, nil))
	must(b, e.SetValue(ctx, "ticket_type", "Complaint"))
	must(b, e.Trigger(ctx, "submit_button", "onClick", nil))
	b.ReportAllocs()
	for b.Loop() {
		s, err := e.Save()
		must(b, err)
		must(b, engine.New(a, engine.Options{Now: fixedClock()}).Restore(ctx, s))
	}
}
