package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// inspectorResult is the --format json output of the Inspector CLI.
type inspectorResult struct {
	Result *struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool                       `json:"isError"`
		Meta    map[string]json.RawMessage `json:"_meta"`
	} `json:"result"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// runInspector runs `inspector --cli ARGS --format json` with a private HOME (the Inspector
// keeps a catalog in ~/.mcp-inspector) and decodes its result.
func runInspector(t *testing.T, tools nodeTools, args ...string) inspectorResult {
	t.Helper()
	args = append([]string{tools.Inspector, "--cli", "--format", "json"}, args...)
	env := []string{"HOME=" + t.TempDir(), "NO_COLOR=1"}
	start := time.Now()
	stdout, stderr, err := runLogged(context.Background(), 60*time.Second, tools.Dir, env, tools.Node, args...)
	t.Logf("inspector %s: %s", strings.Join(args[1:], " "), time.Since(start).Round(time.Millisecond))
	var res inspectorResult
	if jerr := json.Unmarshal(stdout, &res); jerr != nil || (res.Result == nil && res.Error == nil) {
		t.Fatalf("inspector %s: %v; output is not an Inspector JSON result (%v)\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args[1:], " "), err, jerr, tail(stdout, 40), tail(stderr, 40))
	}
	if res.Error != nil {
		t.Fatalf("inspector %s: error %s: %s\nstderr:\n%s", strings.Join(args[1:], " "), res.Error.Code, res.Error.Message, tail(stderr, 40))
	}
	if err != nil {
		t.Fatalf("inspector %s: %v\nstderr:\n%s", strings.Join(args[1:], " "), err, tail(stderr, 40))
	}
	return res
}

// assertListsEcho checks a tools/list result names the echo tool.
func assertListsEcho(t *testing.T, res inspectorResult) {
	t.Helper()
	var names []string
	for _, tool := range res.Result.Tools {
		names = append(names, tool.Name)
		if tool.Name == "echo" {
			if tool.Description != "Echo a message back" {
				t.Errorf("echo description = %q, want %q", tool.Description, "Echo a message back")
			}
			return
		}
	}
	t.Errorf("tools/list = %v, want it to include echo", names)
}

// assertEchoed checks a tools/call result is the text want (a trailing newline from echo aside).
func assertEchoed(t *testing.T, res inspectorResult, want string) {
	t.Helper()
	if res.Result.IsError {
		t.Errorf("tools/call echo returned isError: %+v", res.Result.Content)
	}
	if len(res.Result.Content) == 0 || res.Result.Content[0].Type != "text" {
		t.Fatalf("tools/call echo content = %+v, want one text item", res.Result.Content)
	}
	if got := strings.TrimRight(res.Result.Content[0].Text, "\n"); got != want {
		t.Errorf("tools/call echo text = %q, want %q", got, want)
	}
}

// TestInspectorCLI drives the gateway with the MCP Inspector CLI: tools/list and tools/call over
// Streamable HTTP in the legacy and the modern protocol era (checking on the wire, through a
// recording proxy, that each era was really used), and over stdio (`mcpbridge stdio`) in both
// eras.
func TestInspectorCLI(t *testing.T) {
	tools := requireNodeTools(t)
	gw := sharedGateway(t)

	eras := []struct {
		era   string
		check func(t *testing.T, reqs []recordedRequest)
	}{
		{"legacy", checkLegacyWire},
		{"modern", checkModernWire},
	}
	for _, e := range eras {
		t.Run("http-"+e.era, func(t *testing.T) {
			proxy := newRecordingProxy(t, gw.Base)
			url := proxy.URL + "/mcp/tools-demo"

			list := runInspector(t, tools, url, "--transport", "http", "--protocol-era", e.era, "--method", "tools/list")
			assertListsEcho(t, list)
			e.check(t, proxy.Take())

			call := runInspector(t, tools, url, "--transport", "http", "--protocol-era", e.era,
				"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hello")
			assertEchoed(t, call, "hello")
			e.check(t, proxy.Take())
		})
	}

	for _, era := range []string{"legacy", "modern"} {
		t.Run("stdio-"+era, func(t *testing.T) {
			bin := mcpbridgeBinary(t)
			// The server command goes after "--": the Inspector has a --config option of its
			// own and would take mcpbridge's --config for itself.
			server := []string{"--", bin, "stdio", "--config", gw.Config, "tools-demo"}
			list := runInspector(t, tools, append([]string{"--protocol-era", era, "--method", "tools/list"}, server...)...)
			assertListsEcho(t, list)
			call := runInspector(t, tools, append([]string{"--protocol-era", era, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hello"}, server...)...)
			assertEchoed(t, call, "hello")
			// There is no wire to record on stdio; a modern-era result names the server in
			// _meta (2026-07-28 basic/index: servers SHOULD identify themselves in every result).
			if _, ok := call.Result.Meta["io.modelcontextprotocol/serverInfo"]; era == "modern" && !ok {
				t.Errorf("modern-era tools/call result over stdio has no _meta serverInfo (was the modern era used?): _meta = %v", call.Result.Meta)
			}
		})
	}
}

// checkLegacyWire checks a legacy-era exchange: initialize, then requests with a session and
// MCP-Protocol-Version 2025-11-25, all answered without an HTTP error.
func checkLegacyWire(t *testing.T, reqs []recordedRequest) {
	t.Helper()
	var sawInit bool
	var problems []string
	for _, r := range reqs {
		if r.Status >= 400 && r.HTTPMethod != "DELETE" && r.HTTPMethod != "GET" {
			problems = append(problems, fmt.Sprintf("HTTP %d for %s %s", r.Status, r.HTTPMethod, r.RPCMethod))
		}
		if r.RPCMethod == "initialize" {
			sawInit = true
			continue
		}
		if r.HTTPMethod == "POST" && r.RPCMethod != "" {
			if r.ProtocolVersion != "2025-11-25" {
				problems = append(problems, fmt.Sprintf("%s sent MCP-Protocol-Version %q, want 2025-11-25", r.RPCMethod, r.ProtocolVersion))
			}
			if r.SessionID == "" {
				problems = append(problems, r.RPCMethod+" carried no Mcp-Session-Id")
			}
		}
	}
	if !sawInit {
		problems = append(problems, "no initialize request")
	}
	if len(problems) > 0 {
		t.Errorf("legacy-era exchange is not what the spec describes: %s\nrequests:\n%s", strings.Join(problems, "; "), describe(reqs))
	}
}

// checkModernWire checks a modern-era exchange: no initialize, no session, every POST with
// MCP-Protocol-Version 2026-07-28, all answered without an HTTP error.
func checkModernWire(t *testing.T, reqs []recordedRequest) {
	t.Helper()
	var problems []string
	if len(reqs) == 0 {
		problems = append(problems, "no requests")
	}
	for _, r := range reqs {
		switch {
		case r.RPCMethod == "initialize":
			problems = append(problems, "the client sent initialize")
		case r.HTTPMethod == "POST" && r.ProtocolVersion != "2026-07-28":
			problems = append(problems, fmt.Sprintf("%s sent MCP-Protocol-Version %q, want 2026-07-28", r.RPCMethod, r.ProtocolVersion))
		case r.SessionID != "":
			problems = append(problems, r.RPCMethod+" carried an Mcp-Session-Id")
		}
		if r.Status >= 400 {
			problems = append(problems, fmt.Sprintf("HTTP %d for %s %s", r.Status, r.HTTPMethod, r.RPCMethod))
		}
	}
	if len(problems) > 0 {
		t.Errorf("modern-era exchange is not what the spec describes: %s\nrequests:\n%s", strings.Join(problems, "; "), describe(reqs))
	}
}
