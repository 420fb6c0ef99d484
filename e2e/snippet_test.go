package e2e

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The desktop (stdio) snippet on a server's page works when pasted: its command is the
// absolute path of the running binary and its args name the config the gateway serves, so
// a client that runs it gets the server's tools.
func TestStdioSnippetWorks(t *testing.T) {
	bin := mcpbridgeBinary(t)
	dir := t.TempDir()
	gw, err := startGateway(bin, gatewayConfig, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer gw.stop()
	s := desktopSnippet(t, gw.Base, "tools-demo")
	if !strings.Contains(strings.Join(s.Args, " "), "--config "+gw.Config) {
		t.Errorf("args %q do not name the config %s", s.Args, gw.Config)
	}
	runSnippet(t, s, nil)
}

// The desktop snippet of `mcpbridge app DIR --http` serves the app over stdio: the
// command is `mcpbridge app DIR` with the absolute DIR (not stdio --config DIR, which
// fails), and it runs as printed.
func TestAppStdioSnippetWorks(t *testing.T) {
	ta, _ := tutorialApp(t)
	g := startAppHTTP(t, ta)
	s := desktopSnippet(t, g.Base, tutorialServer)
	want := []string{"app", ta.Dir, "--allow-private"}
	if strings.Join(s.Args, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("args %q, want %q", s.Args, want)
	}
	runSnippet(t, s, ta.Env())
}

// snippet is a server's entry in a page's desktop (stdio) snippet.
type snippet struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// desktopSnippet reads the desktop snippet of server from its page at base, and checks
// that its command is an absolute path to a binary called mcpbridge.
func desktopSnippet(t *testing.T, base, server string) snippet {
	t.Helper()
	resp, err := http.Get(base + "/mcp/meta/" + server)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := html.UnescapeString(string(page))
	i := strings.Index(text, `{`+"\n"+`  "mcpServers"`)
	if i < 0 {
		t.Fatalf("no desktop snippet on the page:\n%s", text)
	}
	var desk struct {
		MCPServers map[string]snippet `json:"mcpServers"`
	}
	if err := json.NewDecoder(strings.NewReader(text[i:])).Decode(&desk); err != nil {
		t.Fatalf("the snippet is not JSON: %v", err)
	}
	s, ok := desk.MCPServers[server]
	if !ok {
		t.Fatalf("snippet %+v has no %s", desk, server)
	}
	if !filepath.IsAbs(s.Command) || filepath.Base(s.Command) != "mcpbridge" {
		t.Errorf("command %q, want the absolute path of the running binary", s.Command)
	}
	return s
}

// runSnippet runs the snippet's command as a desktop client would, from another folder
// with env added to the environment, and lists its tools.
func runSnippet(t *testing.T, s snippet, env []string) {
	t.Helper()
	// Run it from another directory, as a desktop client would.
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	c := mcp.NewClient(&mcp.Implementation{Name: "snippet", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("running the snippet %s %q: %v", s.Command, s.Args, err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list through the snippet: %v, %v", tools, err)
	}
}
