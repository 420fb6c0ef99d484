package render

import (
	"strings"
	"testing"
)

// TestHTMLDeepNestingIsBounded: HTML in a page may come from a request's data, so markup
// nested tens of thousands deep is converted with its text kept, the tree cut at
// maxHTMLDepth (before the bound, 20,000 nested divs took minutes). Outcome only: the text
// arrives and the conversion finishes; speed is the benchmark's business.
func TestHTMLDeepNestingIsBounded(t *testing.T) {
	for name, s := range map[string]string{
		"divs":    strings.Repeat("<div>a", 20000),
		"lists":   strings.Repeat("<ul><li>a", 5000),
		"quotes":  strings.Repeat("<blockquote>a", 5000),
		"inline":  strings.Repeat("<b>a", 50000),
		"tables":  strings.Repeat("<table><tr><td>a", 5000),
		"scripts": strings.Repeat("<script>x", 20000) + "<p>after</p>",
	} {
		t.Run(name, func(t *testing.T) {
			out := htmlToMarkdown(s)
			if name == "tables" {
				// Text directly in a table (past the bound, where the cells stop) is not a
				// cell, so it is not shown, as a browser would move it out of the table.
				if !strings.Contains(out, "| a") {
					t.Errorf("nested tables lost their first cells: %.80q", out)
				}
				return
			}
			if name == "scripts" {
				if strings.Contains(out, "x") {
					t.Errorf("script text shown: %.80q", out)
				}
				return
			}
			if got := strings.Count(out, "a"); got < strings.Count(s, "a")-strings.Count(s, "<table") {
				t.Errorf("%d of %d text runs kept", got, strings.Count(s, ">a"))
			}
		})
	}
	if out := htmlToMarkdown(strings.Repeat("<div>", maxHTMLDepth+10) + "deep" + strings.Repeat("</div>", maxHTMLDepth+10) + "<p>next</p>"); !strings.Contains(out, "deep") || !strings.Contains(out, "next") {
		t.Errorf("text past the depth bound lost: %q", out)
	}
}

func BenchmarkHTMLDeepNesting(b *testing.B) {
	s := strings.Repeat("<div>a", 20000)
	b.ReportAllocs()
	for b.Loop() {
		htmlToMarkdown(s)
	}
}
