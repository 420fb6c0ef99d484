package app

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// FuzzLoadYAML feeds arbitrary lowdefy.yaml content (which may reference a fixed set of
// sibling files) through the whole loader without the panic guard: it must return an app
// or an error, never panic.
func FuzzLoadYAML(f *testing.F) {
	seeds := []string{
		"lowdefy: 4.0.0\npages:\n  - id: p\n    type: Box\n",
		"lowdefy: 4.0.0\npages:\n  - _ref: a.yaml\n",
		"lowdefy: 4.0.0\nglobal:\n  _ref: {path: b.json, key: x.0}\n",
		"lowdefy: 4.0.0\nglobal: {_ref: {path: c.yaml.njk, vars: {n: 2}}}\n",
		"lowdefy: 4.0.0\nauth: {pages: {public: [a], roles: {r: [a]}}}\npages: [{id: a, type: Box}]\n",
		"lowdefy: 4.0.0\nmenus: [{id: m, links: [{id: g, type: MenuGroup, links: [{id: l, type: MenuLink, pageId: x}]}]}]\n",
		"lowdefy: 4.0.0\npages: [{id: p, type: Box, events: {onInit: {try: [{id: a, type: Wait}], catch: 1}}}]\n",
		"a: &a [*a]\n",
		"lowdefy: 4.0.0\nglobal: {_build.if: {test: {_build.eq: [1, 1]}, then: {_var: x}}}\n",
		"- [",
		"",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	dir := f.TempDir()
	for name, content := range map[string]string{
		"a.yaml":     "id: a\ntype: Box\nblocks:\n  - _ref: a.yaml\n",
		"b.json":     "{x: [1, 'two'], y: {_ref: 'a.yaml'}}",
		"c.yaml.njk": "n: {{ n }}\n{% if n > 0 %}c:\n  _ref: {path: c.yaml.njk, vars: {n: {{ n - 1 }}}}\n{% endif %}",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			app, err := load(dir, Options{Env: map[string]string{}})
			if err == nil && app == nil {
				t.Error("nil app without error")
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Fatalf("load took over 5s on %q:\n%s", src, buf[:n])
		}
	})
}

// FuzzParseJSON5 checks the JSON5 reader never panics and always gives a value or an error.
func FuzzParseJSON5(f *testing.F) {
	for _, s := range []string{`{a: 1, 'b': [0x1, .5, +Infinity,], /* c */ "d": null}`, `"\u00e9\x41"`, `[`, `{a`, "'\\\n'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		n, err := parseJSON5([]byte(src), "f.json")
		if (n == nil) == (err == nil) {
			t.Fatalf("parseJSON5(%q) = %v, %v: want exactly one of value and error", src, n, err)
		}
	})
}
