package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestSecretsNotShown reads everything a client or an operator can read about the servers
// that hold the canary secret (testdata/secret-canaries.txt) — the pages, tools/list in both
// eras, the tool's result and error, an HTTP tool's connection error, the admin API and its
// audit — and checks that the secret's value is in none of it. (The gateway's log is checked
// by TestMain when the run ends, and by scripts/secrets-scan.sh in the test command.)
func TestSecretsNotShown(t *testing.T) {
	gw := sharedGateway(t)
	canaries := canaryValues()
	if len(canaries) == 0 {
		t.Fatal("no canary secrets in the environment")
	}
	check := func(what, s string) {
		t.Helper()
		for _, c := range canaries {
			if strings.Contains(s, c) {
				t.Errorf("%s shows a secret's value:\n%.2000s", what, s)
			}
		}
	}
	get := func(path string, hdr map[string]string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", gw.Base+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s %.300s", path, resp.Status, b)
		}
		return string(b)
	}
	for _, p := range []string{"/mcp", "/mcp/meta/secrets-demo", "/mcp/meta/secrets-api"} {
		check("GET "+p, get(p, map[string]string{"Accept": "text/html"}))
	}
	ctx := context.Background()
	for _, era := range []string{modernEra, legacyEra} {
		for _, server := range []string{"secrets-demo", "secrets-api"} {
			cs, err := connectMCP(ctx, gw.MCPURL(server), "", era, nil)
			if err != nil {
				t.Fatalf("%s %s: %v", server, era, err)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools.Tools {
				b, _ := json.Marshal(tool)
				check(era+" tools/list of "+server, string(b))
			}
			tool, args := "token", map[string]any{}
			if server == "secrets-api" {
				tool, args = "get", map[string]any{"q": "x"}
			}
			out, err := callTool(ctx, cs, tool, args)
			if err == nil {
				t.Errorf("%s %s: succeeded (%q), want a tool error", era, tool, out)
			} else if tool == "token" && !strings.Contains(err.Error(), "token on stderr=") {
				t.Errorf("%s token: the tool did not run: %v", era, err)
			}
			t.Logf("%s %s: %v", era, tool, err)
			check(era+" "+tool+" answer", out)
			if err != nil {
				check(era+" "+tool+" error", err.Error())
			}
			cs.Close()
		}
	}
	admin := map[string]string{"Authorization": "Bearer " + os.Getenv("MCPBRIDGE_ADMIN_KEY")}
	for _, p := range []string{"/admin/api/servers", "/admin/api/servers/secrets-demo", "/admin/api/servers/secrets-api", "/admin/api/audit?limit=100"} {
		check("GET "+p, get(p, admin))
	}
}
