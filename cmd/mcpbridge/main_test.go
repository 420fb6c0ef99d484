package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A binary built with the version stamped, as make dist does, reports it.
func TestVersionStamped(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcpbridge")
	build := exec.Command("go", "build", "-ldflags", "-X github.com/mcpbridge/mcpbridge/internal/cli.Version=v9.8.7-test", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "mcpbridge v9.8.7-test" {
		t.Errorf("version = %q, %v", out, err)
	}
}
