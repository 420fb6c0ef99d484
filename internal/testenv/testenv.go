// Package testenv decides what a test does when a part it needs is not installed:
// PostgreSQL, MariaDB, Node 22 and the npm tools in tools/node, a Lowdefy or jslibs oracle,
// FerretDB, or Chromium.
//
// Plain `go test ./...` on a machine without the test command's setup skips such a test
// with one line naming what is missing and the script that installs it. With
// MCPBRIDGE_TEST_REQUIRE_ALL=1 — scripts/test.sh (`make test`, CI) sets it — the test fails
// instead, so the full run can never pass by skipping.
package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// RequireAllEnv names the variable that, set to 1, turns a missing part into a failure.
const RequireAllEnv = "MCPBRIDGE_TEST_REQUIRE_ALL"

// The variables naming the test database servers, printed by their setup scripts.
const (
	PostgresEnv = "MCPBRIDGE_TEST_POSTGRES"
	MySQLEnv    = "MCPBRIDGE_TEST_MYSQL"
)

// ChromiumPath is where Debian's chromium package (scripts/setup-chromium.sh) puts the browser.
const ChromiumPath = "/usr/bin/chromium"

// RequireAll reports whether MCPBRIDGE_TEST_REQUIRE_ALL=1: a missing part fails the test.
func RequireAll() bool { return os.Getenv(RequireAllEnv) == "1" }

// Missing stops the test because what is not there: it skips with one line saying what is
// missing and how to get it (how: the command to run), or fails with that line when
// MCPBRIDGE_TEST_REQUIRE_ALL=1.
func Missing(t testing.TB, what, how string) {
	t.Helper()
	msg := fmt.Sprintf("missing %s; get it with: %s", what, how)
	if RequireAll() {
		t.Fatalf("%s (%s=1: every part must be installed)", msg, RequireAllEnv)
	}
	t.Skipf("%s (skipped; %s=1 makes this a failure)", msg, RequireAllEnv)
}

// Files stops the test (see Missing) unless every path exists; what names the part they
// belong to and how the command that installs it.
func Files(t testing.TB, what, how string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			Missing(t, fmt.Sprintf("%s (%s not found)", what, p), how)
		}
	}
}

// PostgresURL returns MCPBRIDGE_TEST_POSTGRES, the URL of the test server that
// scripts/setup-postgres.sh starts and prints, or stops the test when it is unset.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(PostgresEnv)
	if u == "" {
		Missing(t, "PostgreSQL ("+PostgresEnv+" is unset)", `eval "$(scripts/setup-postgres.sh)"; export `+PostgresEnv)
	}
	return u
}

// MySQLURL returns MCPBRIDGE_TEST_MYSQL, the URL of the MariaDB test server that
// scripts/setup-mysql.sh starts and prints, or stops the test when it is unset.
func MySQLURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(MySQLEnv)
	if u == "" {
		Missing(t, "MariaDB ("+MySQLEnv+" is unset)", `eval "$(scripts/setup-mysql.sh)"; export `+MySQLEnv)
	}
	return u
}

// Chromium returns the path of headless Chromium, or stops the test when it is not installed.
func Chromium(t testing.TB) string {
	t.Helper()
	Files(t, "headless Chromium", "scripts/setup-chromium.sh", ChromiumPath)
	return ChromiumPath
}

// RepoRoot returns the module's root: the nearest directory above the working directory
// (a test's package directory) holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("testenv: no go.mod above %s", wd)
		}
	}
}

var node struct {
	once sync.Once
	path string
	err  error
}

// Node returns the Node 22 binary that scripts/setup-node.sh installs in tools/node, or
// stops the test when it is missing or not version 22.
func Node(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	node.once.Do(func() { node.path, node.err = findNode(root) })
	if node.err != nil {
		Missing(t, "Node 22 ("+node.err.Error()+")", "scripts/setup-node.sh")
	}
	return node.path
}

func findNode(root string) (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		return "", fmt.Errorf("no Node 22 package for GOARCH %s", runtime.GOARCH)
	}
	path := filepath.Join(root, "tools", "node", "node_modules", "node-linux-"+arch, "bin", "node")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s not found", path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("running %s --version: %w", path, err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "v22.") {
		return "", fmt.Errorf("%s is %s, want v22.x", path, v)
	}
	return path, nil
}

// NodeOnPath returns the node binary on PATH that the oracles run under, or stops the test
// when there is none; how is the oracle's setup script.
func NodeOnPath(t testing.TB, how string) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node on PATH", how)
	}
	return p
}

// LowdefyApps returns the folder holding Lowdefy's example apps (tutorial/ and crud/):
// $LOWDEFY_APPS, or shared/lowdefy-apps beside the repository; when they are not there the
// test stops (see Missing).
func LowdefyApps(t testing.TB) string {
	t.Helper()
	root := os.Getenv("LOWDEFY_APPS")
	if root == "" {
		root = filepath.Join(filepath.Dir(RepoRoot(t)), "shared", "lowdefy-apps")
	}
	Files(t, "Lowdefy's example apps", "set LOWDEFY_APPS to the folder holding tutorial/ and crud/ (the project's shared/lowdefy-apps)",
		filepath.Join(root, "tutorial", "tutorial_db.sqlite"), filepath.Join(root, "tutorial", "08-final", "lowdefy.yaml"), filepath.Join(root, "crud", "lowdefy.yaml"))
	return root
}
