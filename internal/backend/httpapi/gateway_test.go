package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/mcpbridge/mcpbridge/internal/backend/httpapi"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// usersConfig is the user's documented example, pointed at the test upstream.
func usersConfig(base string) string {
	return fmt.Sprintf(`servers:
  users:
    kind: http
    description: Users API
    base_url: %s
    headers: {X-Api-Key: secret:GW_USERS_API_KEY}
    allow_private: true
    tools:
      get_user:
        description: Get a user by id
        inputSchema: {type: object, properties: {id: {type: string}, verbose: {type: boolean}}, required: [id]}
        method: GET
        path: /users/{id}
        mappings:
          - {field: id, in: path, direct: id}
          - {field: verbose, in: query, direct: verbose}
          - {field: X-Tenant, in: header, constant: acme}
          - {field: session, in: cookie, constant: abc123}
      create_note:
        description: Create a note
        inputSchema: {type: object, properties: {title: {type: string}, n: {type: integer}}, required: [title]}
        method: POST
        path: /notes
        body: json
        mappings:
          - {field: note.title, in: body, direct: title}
          - {field: note.count, in: body, direct: n}
          - {field: source, in: body, constant: mcp}
          - {field: upper, in: body, expression: "args.title.toUpperCase()"}
        response: {expression: "response.body.note"}
      missing:
        description: a 404
        method: GET
        path: /status/404
`, base)
}

const gwAPIKey = "gw-key-5f1c2b9a7e"

func newGateway(t testing.TB, upstreamURL string) *gatewaytest.Server {
	t.Helper()
	return gatewaytest.Start(t, usersConfig(upstreamURL), gateway.Options{Version: "test"})
}

func connectMCP(t testing.TB, url, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "httpapi-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s (%s): %v", url, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestThroughGateway(t *testing.T) {
	t.Setenv("MCPBRIDGE_SECRET_GW_USERS_API_KEY", gwAPIKey)
	up := newUpstream(t)
	srv := newGateway(t, up.URL)
	for _, page := range []string{"/mcp", "/mcp/meta/users"} {
		resp, err := http.Get(srv.URL + page)
		if err != nil {
			t.Fatal(err)
		}
		html, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(html), "get_user") && page != "/mcp" {
			t.Errorf("%s: status %d", page, resp.StatusCode)
		}
		if strings.Contains(string(html), gwAPIKey) {
			t.Errorf("page %s shows the secret", page)
		}
	}
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			cs := connectMCP(t, srv.URL+"/mcp/users", v)
			var names []string
			for tool, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
				if b, _ := json.Marshal(tool); strings.Contains(string(b), gwAPIKey) {
					t.Errorf("tool listing contains the secret: %s", b)
				}
			}
			if strings.Join(names, " ") != "create_note get_user missing" {
				t.Errorf("tools = %v", names)
			}

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_user", Arguments: map[string]any{"id": "42", "verbose": true}})
			if err != nil {
				t.Fatal(err)
			}
			sc, _ := json.Marshal(res.StructuredContent)
			if res.IsError || !strings.Contains(string(sc), `"id":"42"`) || !strings.Contains(string(sc), `"verbose":"true"`) {
				t.Errorf("get_user: isError %v structured %s text %q", res.IsError, sc, resultText(res))
			}
			got := up.last(t)
			if got.RawPath != "/users/42" || got.Query != "verbose=true" || got.Header.Get("X-Tenant") != "acme" ||
				got.Header.Get("Cookie") != "session=abc123" || got.Header.Get("X-Api-Key") != gwAPIKey || got.Header.Get("Authorization") != "" {
				t.Errorf("upstream saw %+v", got)
			}

			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_note", Arguments: map[string]any{"title": "hello", "n": 3}})
			if err != nil {
				t.Fatal(err)
			}
			sc, _ = json.Marshal(res.StructuredContent)
			// The upstream answers {"note": <the body it received>, ...}; the expression picks "note".
			if res.IsError || string(sc) != `{"note":{"count":3,"title":"hello"},"source":"mcp","upper":"HELLO"}` {
				t.Errorf("create_note: isError %v structured %s text %q", res.IsError, sc, resultText(res))
			}
			if b := up.last(t).Body; b != `{"note":{"count":3,"title":"hello"},"source":"mcp","upper":"HELLO"}` {
				t.Errorf("create_note body = %s", b)
			}

			// A missing required argument is refused by the gateway before the backend runs.
			before := up.count()
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_note", Arguments: map[string]any{"n": 3}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(resultText(res), "title") || up.count() != before {
				t.Errorf("missing title: isError %v %q, upstream calls +%d", res.IsError, resultText(res), up.count()-before)
			}

			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "missing", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(resultText(res), "GET /status/404 failed: HTTP 404 Not Found") {
				t.Errorf("404: isError %v %q", res.IsError, resultText(res))
			}
			if strings.Contains(resultJSON(t, res), gwAPIKey) {
				t.Errorf("the 404 result (whose body echoes X-Api-Key) contains the secret")
			}
		})
	}
}
