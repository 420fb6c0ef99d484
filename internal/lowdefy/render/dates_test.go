package render_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/render"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/runtime"
)

// A date block shows its value as the block formats it (its format property or the
// block's default), in the app's time zone for DateTimeSelector (UTC with selectUTC), with
// the ISO value beside it; a value set with setState that is not a date is shown with a
// note that the picker shows it empty.
func TestDateValues(t *testing.T) {
	a, err := app.Load(filepath.Join("testdata", "dates"), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := runtime.NewEngine(a, runtime.Options{NoServer: true, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	p := navigate(t, e, "dates")
	ctx := context.Background()
	for id, v := range map[string]any{
		"day": "2026-03-01", "day_fr": "2026-03-01", "stamp": "2026-03-01T09:30", "stamp_utc": "2026-03-01T09:30",
		"month": "2026-03-17", "week": "2026-03-04", "span": []any{"2026-03-01", "2026-03-31"}, "span_to": "2026-03-01/2026-03-31",
	} {
		must(t, e.SetValue(ctx, id, v))
	}
	got := render.Page(p, render.Options{})
	contains(t, got,
		`<input id="day" type="DateSelector" label="Day" value="2026-03-01" iso="2026-03-01T00:00:00.000Z">`,
		`<input id="day_fr" type="DateSelector" label="Jour" format="DD/MM/YYYY" value="01/03/2026" iso="2026-03-01T00:00:00.000Z">`,
		// 09:30 in Paris (+01:00) is 08:30 UTC; the block shows Paris time.
		`<input id="stamp" type="DateTimeSelector" label="Stamp" value="2026-03-01 09:30" iso="2026-03-01T08:30:00.000Z">`,
		`<input id="stamp_utc" type="DateTimeSelector" label="Stamp UTC" value="2026-03-01 09:30" iso="2026-03-01T09:30:00.000Z">`,
		`<input id="month" type="MonthSelector" label="Month" value="March 2026" iso="2026-03-01T00:00:00.000Z">`,
		`<input id="week" type="WeekSelector" label="Week" value="2026-10th" iso="2026-03-01T00:00:00.000Z">`,
		`<input id="span" type="DateRangeSelector" label="Span" value="2026-03-01 ~ 2026-03-31" iso=["2026-03-01T00:00:00.000Z","2026-03-31T00:00:00.000Z"]>`,
		`<input id="span_to" type="DateRangeSelector" label="Span to" format="D MMM" value="1 Mar to 31 Mar" iso=[`,
	)

	// Not dates (setState writes what it is given): shown as they are, with a note.
	must(t, e.SetState(ctx, jsvalue.ObjectOf("day", "soon")))
	got = render.Page(p, render.Options{})
	contains(t, got, `<input id="day" type="DateSelector" label="Day" value="soon" note="not a date: the picker shows it empty">`)

	// A value the block cannot take changes nothing and says what it takes.
	err = e.SetValue(ctx, "stamp", "half past nine")
	if err == nil || !strings.Contains(err.Error(), `DateTimeSelector takes an ISO 8601 timestamp`) || !strings.Contains(err.Error(), "Europe/Paris") {
		t.Fatalf("SetValue of an unparseable date: %v", err)
	}
	contains(t, render.Page(p, render.Options{}), `iso="2026-03-01T08:30:00.000Z"`)
}
