package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The secrets of these tests, and a config whose tools read any file, print their own
// environment, and count the bytes of a secret they are given.
const (
	testSecret   = "x-secret-value-0123"
	testAdminKey = "admin-key-0123456789abcdef"
	secretsYAML  = `
servers:
  s:
    kind: command
    description: d
    tools:
      read:
        description: prints a file
        inputSchema: {type: object, properties: {path: {type: string}}, required: [path]}
        argv: [cat, {direct: path}]
      selfenv:
        description: prints its own environment
        inputSchema: {type: object}
        argv: [cat, /proc/self/environ]
        env: {TOKEN: "secret:X", PLAIN: plain}
      grep:
        description: searches a file
        inputSchema: {type: object, properties: {pattern: {type: string}, file: {type: string}}, required: [pattern, file]}
        argv: [grep, {direct: pattern}, {direct: file}]
      echo:
        description: echoes a number
        inputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
        argv: [echo, {direct: n}]
      tokenlen:
        description: counts the bytes of the secret it is given
        inputSchema: {type: object}
        argv: [sh, -c, 'printf %s "$TOKEN" | wc -c']
        env: {TOKEN: "secret:X"}
`
)

// mcpbridgeBin is the test binary installed as mcpbridge on PATH by testscript.Main.
func mcpbridgeBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("mcpbridge")
	if err != nil {
		t.Fatalf("mcpbridge is not on PATH (testscript.Main puts it there): %v", err)
	}
	return bin
}

func secretsEnv() []string {
	return append(os.Environ(), "MCPBRIDGE_SECRET_X="+testSecret, "MCPBRIDGE_ADMIN_KEY="+testAdminKey)
}

// callText calls tool with args (or with raw JSON arguments) and returns the text result.
func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, raw ...json.RawMessage) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var a any = args
	if len(raw) > 0 {
		a = raw[0]
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var sb strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// checkHidden performs the attack on a running gateway (pid) and checks that it fails: a
// tool reads /proc/PID/environ, the environment the gateway was started with, and finds no
// secret there; the test reads it too. The gateway still has its secrets: a tool gets
// secret:X in its env, and the tool's environment is PATH plus its own env only.
func checkHidden(t *testing.T, cs *mcp.ClientSession, pid int) {
	environ := fmt.Sprintf("/proc/%d/environ", pid)
	got := callText(t, cs, "read", map[string]any{"path": environ})
	for _, s := range []string{testSecret, testAdminKey} {
		if strings.Contains(got, s) {
			t.Errorf("a tool read %s from %s", s, environ)
		}
	}
	if !strings.Contains(got, "PATH=") {
		t.Errorf("the tool did not read %s: %q", environ, got)
	}
	data, err := os.ReadFile(environ)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{testSecret, testAdminKey, "MCPBRIDGE_SECRET_X=", "MCPBRIDGE_ADMIN_KEY="} {
		if strings.Contains(string(data), s) {
			t.Errorf("%s holds %s", environ, s)
		}
	}
	var names []string
	for _, line := range strings.Split(strings.Trim(callText(t, cs, "selfenv", nil), "\x00"), "\x00") {
		name, _, _ := strings.Cut(line, "=")
		names = append(names, name)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "PATH PLAIN TOKEN" {
		t.Errorf("the tool's environment has %v, want PATH, PLAIN and TOKEN only", names)
	}
	if got := strings.TrimSpace(callText(t, cs, "tokenlen", nil)); got != fmt.Sprint(len(testSecret)) {
		t.Errorf("secret:X in a tool's env gave %s bytes, want %d (the secret's value)", got, len(testSecret))
	}
}

// serve re-executes itself without the secrets in its environment.
func TestServeHidesSecretsFromChildren(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte(secretsYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(mcpbridgeBin(t), "serve", "--config", cfg, "--listen", addr, "--log-level", "warn")
	cmd.Env = secretsEnv()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	base := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not answer")
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checkHidden(t, cs, cmd.Process.Pid)

	// Options smuggled into grep are refused; an integer beyond 2^53 arrives whole.
	got := callText(t, cs, "grep", map[string]any{"pattern": "-aoeMCPBRIDGE_[A-Z_]*=[a-z0-9-]*", "file": fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid)})
	if !strings.Contains(got, `argument "pattern" starts with "-"`) {
		t.Errorf("grep -aoe: %q", got)
	}
	if got := callText(t, cs, "echo", nil, json.RawMessage(`{"n": 9007199254740993}`)); got != "9007199254740993\n" {
		t.Errorf("echo 9007199254740993: %q", got)
	}

	// The admin key still works.
	req, _ := http.NewRequest("GET", base+"/admin/api/servers", nil)
	req.Header.Set("Authorization", "Bearer "+testAdminKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("admin API with MCPBRIDGE_ADMIN_KEY: %s", resp.Status)
	}
}

// stdio does the same.
func TestStdioHidesSecretsFromChildren(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte(secretsYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mcpbridgeBin(t), "stdio", "--config", cfg, "s")
	cmd.Dir = dir
	cmd.Env = secretsEnv()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checkHidden(t, cs, cmd.Process.Pid)
}
