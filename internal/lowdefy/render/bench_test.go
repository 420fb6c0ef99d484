package render_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/render"
)

// browserSnapshotTokens is the o200k size of Playwright MCP 0.0.83's browser_snapshot of
// the equivalent Ant Design page (title, 5 inputs, submit, 10x4 table) in
// reference/agent-ui.md §0.
const browserSnapshotTokens = 1178

// tickets are the ten tickets logged through the form before view-tickets is rendered, so
// that the pages hold what the browser page held: a form and a table of ten rows.
var tickets = [][3]string{
	{"Lid does not close", "Complaint", "The lid of the blender does not close properly."},
	{"Add a dark mode", "Suggestion", "Please add a dark mode to the app."},
	{"Delivery times", "Question", "How long does delivery to Cape Town take?"},
	{"Scratched screen", "Complaint", "The phone arrived with a scratch on the screen."},
	{"Gift wrapping", "Suggestion", "Offer gift wrapping at checkout."},
	{"Warranty period", "Question", "Is the warranty one or two years?"},
	{"Missing charger", "Complaint", "The box had no charger in it."},
	{"Bulk discounts", "Question", "Do you give discounts for orders over ten items?"},
	{"Track my order", "Suggestion", "Send a tracking link by SMS."},
	{"Wrong colour", "Complaint", "I ordered blue and got red."},
}

// BenchmarkTutorialPageTokens renders tutorial 08-final's new-ticket page (fresh) and its
// view-tickets page (after ten tickets were logged through the form on the real runtime),
// counts their o200k tokens with the pinned npm tokenizer (tools/tokenizer) and reports the
// ratio to the browser snapshot of the equivalent page. Goal: at most 0.4.
//
//	go test -p 1 -run '^$' -bench TutorialPageTokens ./internal/lowdefy/render
func BenchmarkTutorialPageTokens(b *testing.B) {
	ctx := context.Background()
	e := appEngine(b, lowdefytest.Tutorial(b, "08-final", lowdefytest.StartDummyJSON(b)))
	newTicket := render.Page(navigate(b, e, "new-ticket"), render.Options{})
	for _, tk := range tickets {
		must(b, e.SetValue(ctx, "ticket_title", tk[0]))
		must(b, e.SetValue(ctx, "ticket_type", tk[1]))
		if tk[1] == "Complaint" {
			must(b, e.SetValue(ctx, "purchase_in_last_month", "Yes"))
		}
		must(b, e.SetValue(ctx, "ticket_description", tk[2]))
		must(b, e.Trigger(ctx, "submit_button", "onClick", nil))
	}
	p := navigate(b, e, "view-tickets")
	viewTickets := render.Page(p, render.Options{})
	if !bytes.Contains([]byte(viewTickets), []byte("rows=10>")) {
		b.Fatalf("view-tickets does not show the ten tickets:\n%s", viewTickets)
	}

	b.ResetTimer()
	for b.Loop() {
		render.Page(p, render.Options{})
	}
	b.StopTimer()

	dir := b.TempDir()
	files := map[string]string{"new-ticket": newTicket, "view-tickets": viewTickets, "both": newTicket + "\n" + viewTickets}
	counts := map[string]int{}
	for _, name := range []string{"new-ticket", "view-tickets", "both"} {
		f := filepath.Join(dir, name+".md")
		if err := os.WriteFile(f, []byte(files[name]), 0o644); err != nil {
			b.Fatal(err)
		}
		counts[name] = o200k(b, f)
	}
	for _, name := range []string{"new-ticket", "view-tickets", "both"} {
		ratio := float64(counts[name]) / browserSnapshotTokens
		b.Logf("%-12s %5d chars %4d o200k tokens, %.2fx the browser snapshot (%d)", name, len(files[name]), counts[name], ratio, browserSnapshotTokens)
	}
	b.ReportMetric(float64(counts["new-ticket"]), "tokens-new-ticket")
	b.ReportMetric(float64(counts["view-tickets"]), "tokens-view-tickets")
	b.ReportMetric(float64(counts["both"])/browserSnapshotTokens, "ratio-both")
	if os.Getenv("RENDER_BENCH_PRINT") != "" {
		fmt.Printf("%s\n%s\n", newTicket, viewTickets)
	}
}

// o200k counts a file's o200k_base tokens with tools/tokenizer (gpt-tokenizer 4.0.0).
func o200k(b *testing.B, file string) int {
	b.Helper()
	dir := filepath.Join(lowdefytest.RepoRoot(b), "tools", "tokenizer")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "gpt-tokenizer", "package.json")); err != nil {
		b.Fatalf("the tokenizer is not installed: run npm ci --ignore-scripts --prefix tools/tokenizer (%v)", err)
	}
	out, err := exec.Command(lowdefytest.Node(b), filepath.Join(dir, "count.mjs"), file).Output()
	if err != nil {
		b.Fatalf("count tokens: %v", err)
	}
	var c struct{ Tokens int }
	if err := json.Unmarshal(out, &c); err != nil {
		b.Fatalf("count tokens: %v (%s)", err, out)
	}
	return c.Tokens
}
