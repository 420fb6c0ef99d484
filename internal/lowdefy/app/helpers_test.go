package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// writeApp writes files (path → content) into a new temporary app directory.
func writeApp(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mustLoad loads files as an app and fails the test on error.
func mustLoad(t testing.TB, files map[string]string) *App {
	t.Helper()
	app, err := Load(writeApp(t, files), Options{Env: map[string]string{"GREETING": "hi"}})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return app
}

// loadProblems loads files and returns the problems (failing if it loads).
func loadProblems(t testing.TB, files map[string]string) []Problem {
	t.Helper()
	_, err := Load(writeApp(t, files), Options{})
	if err == nil {
		t.Fatal("Load succeeded, want problems")
	}
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("Load error %T %v, want *Error", err, err)
	}
	if len(le.Problems) == 0 {
		t.Fatal("*Error without problems")
	}
	return le.Problems
}

func problemsText(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteString("\n")
	}
	return b.String()
}

// dig follows keys and list indexes ("0") through JSON-like data.
func dig(v any, path ...string) any {
	for _, k := range path {
		switch x := v.(type) {
		case *jsvalue.Object:
			v, _ = x.Get(k)
		case []any:
			i, ok := jsvalue.ArrayIndex(k)
			if !ok || int(i) >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
