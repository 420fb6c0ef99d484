package e2e

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
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
	resp, err := http.Get(gw.Base + "/mcp/meta/tools-demo")
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
	var snippet struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.NewDecoder(strings.NewReader(text[i:])).Decode(&snippet); err != nil {
		t.Fatalf("the snippet is not JSON: %v", err)
	}
	s, ok := snippet.MCPServers["tools-demo"]
	if !ok {
		t.Fatalf("snippet %+v has no tools-demo", snippet)
	}
	if !filepath.IsAbs(s.Command) || filepath.Base(s.Command) != "mcpbridge" {
		t.Errorf("command %q, want the absolute path of the running binary", s.Command)
	}
	if !strings.Contains(strings.Join(s.Args, " "), "--config "+gw.Config) {
		t.Errorf("args %q do not name the config %s", s.Args, gw.Config)
	}
	// Run it from another directory, as a desktop client would.
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = t.TempDir()
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
