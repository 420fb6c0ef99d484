package lowdefytest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// OracleOptions are the optional settings of a run of the engine oracle.
type OracleOptions struct {
	// User is the session user (`_user`): nil for an anonymous user, else a value that
	// marshals to a JSON object (json.RawMessage, map, struct).
	User any
	// Env adds environment entries (LOWDEFY_SECRET_*) to those of the app fixture.
	Env []string
	// Now freezes the oracle's clock at this many milliseconds since the epoch (0 = real time).
	Now int64
	// Timeout bounds the run (default 2 minutes).
	Timeout time.Duration
}

// Node returns the Node 22 binary installed in tools/node by scripts/setup-node.sh; when it
// is missing or not version 22 the test skips, or fails under MCPBRIDGE_TEST_REQUIRE_ALL=1
// (see testenv).
func Node(t testing.TB) string {
	t.Helper()
	return testenv.Node(t)
}

// OracleDir returns tools/lowdefy-engine-oracle; when it is not installed the test skips
// naming scripts/setup-lowdefy-engine-oracle.sh, or fails under MCPBRIDGE_TEST_REQUIRE_ALL=1.
func OracleDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "tools", "lowdefy-engine-oracle")
	testenv.Files(t, "the Lowdefy engine oracle", "scripts/setup-lowdefy-engine-oracle.sh",
		filepath.Join(dir, "node_modules/@lowdefy/engine/package.json"), filepath.Join(dir, "node_modules/sqlite3/package.json"))
	return dir
}

// RunOracle runs the journey script on the app in appDir with Lowdefy's own engine and
// returns the step lines. user is the session user (nil = anonymous). When appDir is a fixture
// made by Tutorial or Crud, its secrets are passed along. A failure to run fails the test.
func RunOracle(t testing.TB, appDir, scriptPath string, user any) []json.RawMessage {
	t.Helper()
	return RunOracleWith(t, appDir, scriptPath, OracleOptions{User: user})
}

// RunOracleWith is RunOracle with options.
func RunOracleWith(t testing.TB, appDir, scriptPath string, o OracleOptions) []json.RawMessage {
	t.Helper()
	node := Node(t)
	dir := OracleDir(t)
	args := []string{filepath.Join(dir, "journey.mjs"), appDir, scriptPath}
	if o.User != nil {
		u, err := json.Marshal(o.User)
		if err != nil {
			t.Fatalf("user: %v", err)
		}
		args = append(args, "--user", string(u))
	}
	if o.Now != 0 {
		args = append(args, "--now", strconv.FormatInt(o.Now, 10))
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	env := append(os.Environ(), "NODE_NO_WARNINGS=1", "TZ=UTC")
	if a, ok := apps.Load(appDir); ok {
		env = append(env, a.(*App).Env()...)
	}
	cmd.Env = append(env, o.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("engine oracle on %s with %s: %v\nstderr:\n%s", appDir, scriptPath, err, tail(stderr.String(), 4000))
	}
	var lines []json.RawMessage
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			t.Fatalf("engine oracle printed a line that is not JSON: %q", tail(string(line), 400))
		}
		lines = append(lines, json.RawMessage(bytes.Clone(line)))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the oracle's output: %v", err)
	}
	if testing.Verbose() && stderr.Len() > 0 {
		t.Logf("oracle stderr (%s):\n%s", filepath.Base(scriptPath), tail(stderr.String(), 2000))
	}
	return lines
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// Step is one decoded step line (the fields tests look at; keys keep no order here —
// use Compare for order-sensitive comparison).
type Step struct {
	Step       int                      `json:"step"`
	PageID     string                   `json:"pageId"`
	State      map[string]any           `json:"state"`
	Global     map[string]any           `json:"global"`
	Validation map[string]Validation    `json:"validation"`
	Requests   map[string]RequestResult `json:"requests"`
	Events     []map[string]any         `json:"events"`
	Error      *string                  `json:"error"`
}

// Validation is the shown validation of one block.
type Validation struct {
	Status   *string  `json:"status"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
}

// RequestResult is the latest call of one request.
type RequestResult struct {
	Response any     `json:"response"`
	Error    *string `json:"error"`
}

// DecodeSteps decodes step lines, failing the test on malformed lines.
func DecodeSteps(t testing.TB, lines []json.RawMessage) []Step {
	t.Helper()
	steps := make([]Step, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal(l, &steps[i]); err != nil {
			t.Fatalf("step line %d: %v: %s", i+1, err, l)
		}
		if steps[i].Step != i+1 {
			t.Fatalf("line %d has step %d", i+1, steps[i].Step)
		}
	}
	return steps
}

func (s Step) String() string {
	b, _ := json.Marshal(s)
	return fmt.Sprintf("%s", b)
}
