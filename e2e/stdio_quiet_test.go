package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioQuietConfig has a server that needs a principal (an auth section, no public flag).
const stdioQuietConfig = `auth: {}
servers:
  crm:
    kind: command
    description: CRM
    tools:
      read: {description: reads, argv: [echo, read]}
`

// mcpbridge stdio talks to a person only when something is wrong: a server that needs a
// principal is refused with the one line that says what to do (no warnings before it), and
// a client that connects, calls and closes normally leaves nothing above INFO on stderr.
func TestStdioSaysWhatToDoAndNothingElse(t *testing.T) {
	bin := mcpbridgeBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte(stdioQuietConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(extra ...string) []string {
		var out []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "MCPBRIDGE_") {
				out = append(out, kv)
			}
		}
		return append(out, extra...)
	}

	cmd := exec.Command(bin, "stdio", "--config", cfg, "crm")
	cmd.Dir, cmd.Env = dir, env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("stdio without a principal succeeded")
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], `mcpbridge stdio: server "crm" needs a principal: set MCPBRIDGE_API_KEY`) {
		t.Errorf("stderr without a principal is\n%s\nwant the one line saying what to do", stderr.String())
	}

	stderr.Reset()
	cmd = exec.Command(bin, "stdio", "--config", cfg, "crm")
	cmd.Dir, cmd.Env = dir, env("MCPBRIDGE_USER=bob")
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "quiet", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read"})
	if err != nil || res.IsError {
		t.Fatalf("calling read: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			t.Errorf("a normal close logged %q; stderr:\n%s", l, stderr.String())
		}
	}
}
