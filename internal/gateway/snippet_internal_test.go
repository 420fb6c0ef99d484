package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The desktop snippet's command runs as printed: a real binary is named by its absolute
// path; a `go run` binary (deleted when the run ends) is replaced by the binary the note
// says to build, in the module the gateway was run from.
func TestSnippetCommand(t *testing.T) {
	tmp := t.TempDir()
	real := filepath.Join(tmp, "bin", "mcpbridge")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	real, _ = filepath.EvalSymlinks(real)
	if cmd, note := snippetCommand(real, tmp); cmd != real || note != "" {
		t.Errorf("a real binary: %q, %q; want its path and no note", cmd, note)
	}

	repo := filepath.Join(tmp, "src", "mcpbridge")
	sub := filepath.Join(repo, "examples")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module github.com/mcpbridge/mcpbridge\n\ngo 1.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	goRun := filepath.Join(tmp, "go-build2671234", "b001", "exe", "mcpbridge")
	cmd, note := snippetCommand(goRun, sub)
	if cmd != filepath.Join(repo, "mcpbridge") {
		t.Errorf("go run: command %q, want %s (the binary the note builds)", cmd, filepath.Join(repo, "mcpbridge"))
	}
	if !strings.Contains(note, "cd "+repo+" && go build -o mcpbridge ./cmd/mcpbridge") {
		t.Errorf("go run: note %q does not say how to build the binary", note)
	}

	// go run outside the module (go run PKG@VERSION): no module to build in.
	cmd, note = snippetCommand(goRun, tmp)
	if cmd != "mcpbridge" || !strings.Contains(note, "go install github.com/mcpbridge/mcpbridge/cmd/mcpbridge@latest") {
		t.Errorf("go run outside the module: %q, %q; want mcpbridge and how to install it", cmd, note)
	}
}
