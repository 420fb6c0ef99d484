package runtime_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/knex"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/runtime"
)

// BenchmarkTutorialSteps measures the steps of the tutorial's ticket form (06-requests-sql)
// on the whole runtime — engine, server and the Knex connection on a copy of
// tutorial_db.sqlite: a setValue step, the submit onClick chain (Validate, a KnexRaw insert,
// Reset), and the same insert run directly on the connection in the same run (the
// database's own time), so the chain's cost without the database is reported too. Each
// iteration fills the form (four setValue steps) and submits it. Metrics: p50/p99 of each
// step kind in µs, and the submit's p50 minus the direct insert's p50.
func BenchmarkTutorialSteps(b *testing.B) {
	ta := lowdefytest.Tutorial(b, "06-requests-sql", "http://127.0.0.1:1")
	env := map[string]string{}
	for k, v := range ta.Secrets {
		env["LOWDEFY_SECRET_"+k] = v
	}
	a, err := app.Load(ta.Dir, app.Options{Env: env})
	if err != nil {
		b.Fatal(err)
	}
	pools := &connections.Pools{}
	defer pools.Close()
	e := runtime.NewEngine(a, runtime.Options{Secrets: ta.Secrets, Pools: pools})
	ctx := context.Background()
	if err := e.Navigate(ctx, "new-ticket", nil, nil); err != nil {
		b.Fatal(err)
	}
	fields := []struct {
		id    string
		value any
	}{{"ticket_title", "Chair squeaks"}, {"ticket_type", "Complaint"}, {"purchase_in_last_month", "No"}, {"ticket_description", "Squeaks when I lean back."}}

	// The direct insert: the same query and parameters, on the same pool.
	insert := knex.Type().Requests["KnexRaw"]
	conn := jsvalue.ObjectOf("client", "sqlite3", "connection", jsvalue.ObjectOf("filename", ta.SQLite), "useNullAsDefault", true)
	req := jsvalue.ObjectOf("query", "INSERT INTO tickets (ticket_title, ticket_type, ticket_description, product, purchase_in_last_month, created_date) VALUES(:ticket_title, :ticket_type, :ticket_description, :product, :purchase_in_last_month, :created_date)",
		"parameters", jsvalue.ObjectOf("ticket_title", "Chair squeaks", "ticket_type", "Complaint", "ticket_description", "Squeaks when I lean back.", "product", nil, "purchase_in_last_month", "No", "created_date", time.Now()))
	deps := &connections.Deps{Pools: pools}

	var setValue, submit, direct []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range fields {
			t0 := time.Now()
			if err := e.SetValue(ctx, f.id, f.value); err != nil {
				b.Fatal(err)
			}
			setValue = append(setValue, time.Since(t0))
		}
		t0 := time.Now()
		if err := e.Trigger(ctx, "submit_button", "onClick", nil); err != nil {
			b.Fatal(err)
		}
		submit = append(submit, time.Since(t0))
		t0 = time.Now()
		if _, err := insert.Run(ctx, &connections.Call{ConnectionID: "knex", Connection: conn, Request: req, Deps: deps}); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(t0))
	}
	b.StopTimer()
	if r := e.Page().RequestResults(); fmt.Sprint(r.Prop("save_new_ticket")) == "" {
		b.Fatal("no save_new_ticket result")
	} else if res, _ := r.Prop("save_new_ticket").(*jsvalue.Object); res == nil || res.Prop("error") != nil {
		b.Fatalf("save_new_ticket failed: %v", r)
	}
	b.ReportMetric(us(pct(setValue, 50)), "setValue-p50-µs")
	b.ReportMetric(us(pct(setValue, 99)), "setValue-p99-µs")
	b.ReportMetric(us(pct(submit, 50)), "submit-p50-µs")
	b.ReportMetric(us(pct(submit, 99)), "submit-p99-µs")
	b.ReportMetric(us(pct(direct, 50)), "db-insert-p50-µs")
	b.ReportMetric(us(pct(submit, 50)-pct(direct, 50)), "submit-minus-db-p50-µs")
}

// BenchmarkSaveRestore measures saving a filled tutorial page and restoring it into a
// fresh engine, the cost of a work session's round trip through the store (without the
// store).
func BenchmarkSaveRestore(b *testing.B) {
	ta := lowdefytest.Tutorial(b, "06-requests-sql", "http://127.0.0.1:1")
	a, err := app.Load(ta.Dir, app.Options{Env: map[string]string{}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	e := runtime.NewEngine(a, runtime.Options{NoServer: true})
	if err := e.Navigate(ctx, "new-ticket", nil, nil); err != nil {
		b.Fatal(err)
	}
	if err := e.SetValue(ctx, "ticket_title", "Chair squeaks"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := e.Save()
		if err != nil {
			b.Fatal(err)
		}
		f := runtime.NewEngine(a, runtime.Options{NoServer: true})
		if err := f.Restore(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func us(d time.Duration) float64 { return float64(d.Microseconds()) }
