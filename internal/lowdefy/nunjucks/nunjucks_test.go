package nunjucks

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func TestRender(t *testing.T) {
	off := false
	tests := []struct {
		name string
		src  string
		vars map[string]any
		opts Options
		want string
	}{
		{"lookup", "{{ a.b[1] }}", map[string]any{"a": map[string]any{"b": []any{1, 2}}}, Options{}, "2"},
		{"int values", "{{ n + 1 }} {{ m * 2 }}", map[string]any{"n": 41, "m": int64(4)}, Options{}, "42 8"},
		{"undefined renders empty", "[{{ nope }}][{{ nope.deeper.still }}]", nil, Options{}, "[][]"},
		{"autoescape default on", "{{ s }}", map[string]any{"s": "<a href='x'>"}, Options{}, "&lt;a href=&#39;x&#39;&gt;"},
		{"autoescape off", "{{ s }}", map[string]any{"s": "<a>"}, Options{Autoescape: &off}, "<a>"},
		{"SafeString var", "{{ s }}", map[string]any{"s": SafeString("<b>")}, Options{}, "<b>"},
		{"date filter on time", "{{ d | date('YYYY-MM-DD HH:mm') }}", map[string]any{"d": time.Date(2024, 2, 29, 13, 5, 0, 0, time.UTC)}, Options{}, "2024-02-29 13:05"},
		{"set leaks out of if", "{% if true %}{% set x = 1 %}{% endif %}{{ x }}", nil, Options{}, "1"},
		{"macro sees top-level set", "{% set who = 'w' %}{% macro m() %}{{ who }}{% endmacro %}{{ m() }}", nil, Options{}, "w"},
		{"whitespace control", "a \n{%- if true -%}\n b \n{%- endif -%}\n c", nil, Options{}, "abc"},
		{"vars not mutated", "{% set a = 2 %}{{ a }}", map[string]any{"a": 1}, Options{}, "2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := CompileOptions(tc.name, tc.src, tc.opts)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			got, err := tpl.Render(tc.vars)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("output mismatch (-want +got):\n%s", diff)
			}
		})
	}
	vars := map[string]any{"a": 1.0}
	if _, err := Render("{% set a = 5 %}", vars); err != nil || vars["a"] != 1.0 {
		t.Errorf("Render changed the caller's vars: %v %v", vars, err)
	}
}

func TestErrorsCarryPosition(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"ok\n  {{ x | nosuch }}", 2, 10, "filter not found: nosuch"},
		{"{% if x %}\nunclosed", 2, 9, "missing end tag"},
		{"a\nb {% bogus %}", 2, 6, "unknown block tag: bogus"},
		{"{{ f() }}", 1, 5, "Unable to call `f`, which is undefined or falsey"},
		{"\n\n{{ 'open", 3, 4, "unterminated string"},
		{"{{ 1 in 2 }}", 1, 6, "Cannot use \"in\" operator"},
		{"{% include 'x.njk' %}", 1, 4, "not supported"},
	}
	for _, tc := range tests {
		_, err := Render(tc.src, nil)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: want *Error, got %v", tc.src, err)
			continue
		}
		if e.Line != tc.line || e.Col != tc.col || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("%q: got line %d col %d %q; want line %d col %d containing %q", tc.src, e.Line, e.Col, e.Msg, tc.line, tc.col, tc.msg)
		}
	}
}

func TestRenderValue(t *testing.T) {
	got, err := RenderValue("v={{ value }}", 3.5)
	if err != nil || got != "v=3.5" {
		t.Errorf("primitive: got %q, %v", got, err)
	}
	got, err = RenderValue("{{ a }}", map[string]any{"a": "x"})
	if err != nil || got != "x" {
		t.Errorf("object: got %q, %v", got, err)
	}
	if err := Valid("{% if %}"); err == nil {
		t.Error("Valid accepted a broken template")
	}
}

func TestConcurrentRender(t *testing.T) {
	tpl, err := Compile("c", "{% for x in xs %}{% set y = x * 2 %}{{ y }},{% endfor %}")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got, err := tpl.Render(map[string]any{"xs": []any{i, i + 1}})
			want := strings.Repeat("", 0) + itoa(2*i) + "," + itoa(2*i+2) + ","
			if err != nil || got != want {
				errs <- got
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent render mismatch: %q", e)
	}
}

func itoa(i int) string { return jsvalue.NumberToString(float64(i)) }

func TestLimits(t *testing.T) {
	if _, err := Render("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", nil); err == nil || !strings.Contains(err.Error(), "recursion") {
		t.Errorf("infinite macro recursion: got %v", err)
	}
	deep := strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)
	if _, err := Render("{{ "+deep+" }}", nil); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("deep nesting: got %v", err)
	}
	if _, err := Render(strings.Repeat("{% if true %}", 1000)+strings.Repeat("{% endif %}", 1000), nil); err == nil {
		t.Error("deep block nesting accepted")
	}
	if _, err := Render("{{ range(100000000) | length }}", nil); err == nil {
		t.Error("huge range accepted")
	}
}

func FuzzTemplate(f *testing.F) {
	for _, s := range corpus {
		f.Add(s)
	}
	vars := corpusVars()
	f.Fuzz(func(t *testing.T, src string) {
		tpl, err := Compile("fuzz", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) && !strings.Contains(err.Error(), "internal error") {
				t.Fatalf("compile error of unexpected type %T: %v", err, err)
			}
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("panic while compiling %q: %v", src, err)
			}
			return
		}
		if _, err := tpl.Render(vars); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("panic while rendering %q: %v", src, err)
		}
	})
}

func BenchmarkRender(b *testing.B) {
	tpl, err := Compile("bench", "<ul>{% for u in users %}<li>{{ loop.index }} {{ u.name | upper }} {{ u.role if u.active else 'inactive' }}</li>{% endfor %}</ul>")
	if err != nil {
		b.Fatal(err)
	}
	vars := corpusVars()
	// Go maps are converted to ordered objects on every Render; values that
	// are already *jsvalue.Object (as the _nunjucks operator passes) are not.
	ordered := map[string]any{}
	for k, v := range vars {
		ordered[k] = jsvalue.FromGo(v)
	}
	for _, bc := range []struct {
		name string
		vars map[string]any
	}{{"maps", vars}, {"ordered", ordered}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tpl.Render(bc.vars); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	src := strings.Join(corpus[:40], "\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("bench", src); err != nil {
			b.Fatal(err)
		}
	}
}
