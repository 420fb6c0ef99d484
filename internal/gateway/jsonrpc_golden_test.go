package gateway_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

var updateGolden = flag.Bool("update", false, "rewrite the response sections of testdata/jsonrpc/*.txtar")

// goldenConfig is the gateway the JSON-RPC golden files talk to.
const goldenConfig = `limits: {max_body: 2048, drain_period: 1s}
servers:
  demo:
    kind: command
    description: demo
    tools:
      echo: {description: echo, inputSchema: {type: object, properties: {message: {type: string}}}, argv: [echo, {direct: message}]}
  eras:
    kind: command
    description: one of each thing a server serves, to show the fields of each era
    tools:
      region:
        description: echoes its region, which a 2026-07-28 request mirrors in Mcp-Param-Region
        inputSchema: {type: object, properties: {region: {type: string, x-mcp-header: Region}, level: {type: integer}}}
        argv: [echo, {direct: region}]
    resources:
      note: {uri: "note://hello", description: a note, mimeType: text/plain, text: hello}
    prompts:
      greet: {description: a greeting, messages: [{role: user, text: hello}]}
  eras-http:
    kind: http
    description: an HTTP API whose tool mirrors its region in a header; nothing listens there
    base_url: http://127.0.0.1:9
    allow_private: true
    timeout: 2s
    tools:
      region:
        description: gets the weather of a region
        inputSchema: {type: object, properties: {region: {type: string, x-mcp-header: Region}}}
        method: GET
        path: /weather
        mappings: [{field: region, in: query, direct: region}]
`

// goldenHeaders are the response headers a golden file records when present.
var goldenHeaders = []string{"Allow", "Content-Type", "Mcp-Session-Id", "Retry-After"}

// TestJSONRPCGolden replays testdata/jsonrpc/*.txtar against a gateway on a loopback
// listener. Each archive is a comment saying what it covers, then pairs of sections:
//
//	-- request --
//	POST /mcp/demo
//	Content-Type: application/json
//
//	{"jsonrpc":"2.0","id":1,"method":"ping"}
//	-- response --
//	400
//	Content-Type: application/json
//
//	{"error":...}
//
// A request names its method and path, then headers, a blank line and the body. In a
// request, ${SESSION} stands for the Mcp-Session-Id of the latest response that had one,
// and ${PAD:N} for N spaces. A response is the status, the headers of goldenHeaders that
// were present, a blank line and the body. go test -run TestJSONRPCGolden -update rewrites
// the responses.
func TestJSONRPCGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/jsonrpc/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	lb := serveLoopback(t, goldenConfig, gateway.Options{}, nil)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Files)%2 != 0 {
				t.Fatalf("%s: sections must come in request/response pairs", file)
			}
			session := ""
			changed := false
			for i := 0; i < len(a.Files); i += 2 {
				req, want := a.Files[i], a.Files[i+1]
				if req.Name != "request" || want.Name != "response" {
					t.Fatalf("%s: section %d is %q then %q; want request then response", file, i/2+1, req.Name, want.Name)
				}
				got := replay(t, lb.base, string(req.Data), &session)
				if got == string(want.Data) {
					continue
				}
				if *updateGolden {
					a.Files[i+1].Data = []byte(got)
					changed = true
					continue
				}
				t.Errorf("%s, request %d:\n%s\ngot:\n%s\nwant:\n%s", file, i/2+1, req.Data, got, want.Data)
			}
			if changed {
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

var padding = regexp.MustCompile(`\$\{PAD:(\d+)\}`)

// replay sends one request section and returns the response in golden form.
func replay(t *testing.T, base, section string, session *string) string {
	t.Helper()
	section = strings.ReplaceAll(section, "${SESSION}", *session)
	section = padding.ReplaceAllStringFunc(section, func(m string) string {
		n, _ := strconv.Atoi(padding.FindStringSubmatch(m)[1])
		return strings.Repeat(" ", n)
	})
	head, body, _ := strings.Cut(section, "\n\n")
	lines := strings.Split(head, "\n")
	method, path, ok := strings.Cut(lines[0], " ")
	if !ok {
		t.Fatalf("request line %q: want METHOD PATH", lines[0])
	}
	req, err := http.NewRequest(method, base+path, strings.NewReader(strings.TrimSuffix(body, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("header line %q", l)
		}
		req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		*session = sid
	}
	var out strings.Builder
	fmt.Fprintf(&out, "%d\n", resp.StatusCode)
	hdrs := append([]string(nil), goldenHeaders...)
	sort.Strings(hdrs)
	for _, h := range hdrs {
		if v := resp.Header.Get(h); v != "" {
			if h == "Mcp-Session-Id" {
				v = "${SESSION}"
			}
			fmt.Fprintf(&out, "%s: %s\n", h, v)
		}
	}
	out.WriteString("\n")
	out.WriteString(goldenBody(b))
	return out.String()
}

// goldenBody returns a response body with one JSON value or event per line: JSON is
// re-indented, event-stream lines are kept as they are but for event ids.
func goldenBody(b []byte) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	if json.Valid(b) {
		var buf bytes.Buffer
		json.Indent(&buf, bytes.TrimSpace(b), "", "  ")
		return buf.String() + "\n"
	}
	var out strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "id: ") {
			l = "id: ${EVENT_ID}" // event ids name the session and count its events
		}
		if l != "" {
			out.WriteString(l + "\n")
		}
	}
	return out.String()
}
