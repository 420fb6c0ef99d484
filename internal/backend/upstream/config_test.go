package upstream_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

func parse(yaml string) (*config.Config, error) {
	return config.Parse("c.yaml", "/tmp", []byte(yaml), backend.Kinds())
}

// Every problem of a definition is reported with its position and field path.
func TestConfigProblems(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"neither", "servers:\n  a:\n    kind: mcp\n    description: d\n",
			[]string{"c.yaml:3:5: servers.a: give command (a program that speaks MCP on stdio"}},
		{"both", "servers:\n  a:\n    kind: mcp\n    command: [node, s.js]\n    url: http://x/mcp\n",
			[]string{"c.yaml:5:10: servers.a.url: give command or url, not both"}},
		{"bad url", "servers:\n  a:\n    kind: mcp\n    url: ftp://x\n",
			[]string{`c.yaml:4:10: servers.a.url: expected an http or https URL such as http://127.0.0.1:9000/mcp, got "ftp://x"`}},
		{"credentials in url", "servers:\n  a:\n    kind: mcp\n    url: http://u:p@x/mcp\n",
			[]string{"servers.a.url: credentials in the URL would be logged"}},
		{"typo", "servers:\n  a:\n    kind: mcp\n    url: http://x/mcp\n    isolaton: shared\n",
			[]string{`c.yaml:5:5: servers.a.isolaton: unknown field "isolaton" (did you mean "isolation"?)`}},
		{"isolation", "servers:\n  a:\n    kind: mcp\n    url: http://x/mcp\n    isolation: private\n",
			[]string{`c.yaml:5:16: servers.a.isolation: isolation must be per-session or shared, got "private"`}},
		{"transport", "servers:\n  a:\n    kind: mcp\n    url: http://x/mcp\n    transport: websocket\n",
			[]string{`servers.a.transport: transport must be streamable or sse`}},
		{"env for url", "servers:\n  a:\n    kind: mcp\n    url: http://x/mcp\n    env: {A: b}\n",
			[]string{"c.yaml:5:5: servers.a.env: env is for a command's process; a url gets headers instead"}},
		{"headers for command", "servers:\n  a:\n    kind: mcp\n    command: [sh]\n    headers: {A: b}\n",
			[]string{"servers.a.headers: headers are sent to a url; a command gets env instead"}},
		{"header name", "servers:\n  a:\n    kind: mcp\n    url: http://x/mcp\n    headers: {\"Bad Name\": x, Mcp-Session-Id: y}\n",
			[]string{`servers.a.headers.Bad Name: "Bad Name" is not a valid header name`, "servers.a.headers.Mcp-Session-Id: this header is set by the MCP transport"}},
		{"inline credential", "servers:\n  a:\n    kind: mcp\n    url: http://x/mcp\n    headers: {Authorization: Bearer abc}\n",
			[]string{"warning: a credential written in the config; reference it instead"}},
		{"env name", "servers:\n  a:\n    kind: mcp\n    command: [sh]\n    env: {1X: y}\n",
			[]string{"servers.a.env.1X: not a valid environment variable name"}},
		{"protocol", "servers:\n  a:\n    kind: mcp\n    command: [sh]\n    protocol_version: 2099-01-01\n",
			[]string{`servers.a.protocol_version: unknown protocol version "2099-01-01"`}},
		{"tools", "servers:\n  a:\n    kind: mcp\n    command: [sh]\n    tools:\n      x: {description: d}\n",
			[]string{"servers.a.tools.x: a server of kind mcp takes its tools from the upstream server"}},
		{"missing program", "servers:\n  a:\n    kind: mcp\n    command: [no-such-program-mcpbridge]\n",
			[]string{`warning: the program "no-such-program-mcpbridge" is not on PATH`}},
		{"bad prefix", "servers:\n  a:\n    kind: mcp\n    command: [sh]\n    prefix: a__b\n",
			[]string{`servers.a.prefix: "a__b" cannot prefix tool names`}},
		{"field of another kind", "servers:\n  a:\n    kind: mcp\n    command: [sh]\n    base_url: http://x\n",
			[]string{`servers.a.base_url: field "base_url" belongs to kind http, not mcp`}},
		{"upstreams", `servers:
  a:
    kind: mcp
    command: [sh]
    upstreams:
      - command: [sh]
      - {name: x, url: http://x/mcp, isolation: nope}
      - {name: x, command: [sh]}
      - {name: "y__z", command: [sh]}
      - {name: w}
`, []string{
			"c.yaml:4:5: servers.a.command: command belongs in each entry of upstreams",
			"c.yaml:6:9: servers.a.upstreams[0]: missing name",
			`servers.a.upstreams[1].isolation: isolation must be per-session or shared, got "nope"`,
			`c.yaml:8:16: servers.a.upstreams[2].name: upstream "x" is named twice (also upstreams[1])`,
			`servers.a.upstreams[3].name: "y__z" cannot prefix tool names`,
			"servers.a.upstreams[4]: give command",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parse(c.yaml)
			var got string
			if err != nil {
				got = err.Error()
			}
			if cfg != nil {
				for _, w := range cfg.Warnings {
					got += "\n" + w.String()
				}
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems:\n%s\nwant one containing %q", got, w)
				}
			}
		})
	}
}

// A valid definition decodes, in both forms.
func TestConfigValid(t *testing.T) {
	cfg, err := parse(`servers:
  one:
    kind: mcp
    description: d
    command: [sh, -c, "exec cat"]
    env: {API_TOKEN: "secret:EVERYTHING_TOKEN", MODE: plain}
    isolation: per-session
    idle_timeout: 10m
    timeout: 2m
    descriptions: {echo: Echo}
  many:
    kind: mcp
    description: d
    isolation: shared
    upstreams:
      - {name: gh, url: "https://example.com/mcp", headers: {Authorization: "secret:GH"}, transport: streamable}
      - {name: fs, command: [npx, -y, "@modelcontextprotocol/server-filesystem", /tmp], isolation: per-session}
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"one", "many"} {
		if cfg.Servers[name].Spec == nil {
			t.Errorf("server %s was not decoded", name)
		}
	}
}

// Check reports a secret that is not set, located like a decoding problem.
func TestCheckSecrets(t *testing.T) {
	cfg, err := parse(`servers:
  a:
    kind: mcp
    command: [sh]
    env: {API_TOKEN: "secret:MCPBRIDGE_TEST_UNSET_TOKEN"}
  b:
    kind: mcp
    upstreams:
      - {name: x, url: "http://x/mcp", headers: {Authorization: "env:MCPBRIDGE_TEST_UNSET_ENV"}}
`)
	if err != nil {
		t.Fatal(err)
	}
	ps := backend.Check(cfg.Servers["a"], backend.Deps{})
	if len(ps) != 1 || !strings.Contains(ps[0].String(), "c.yaml:5:22: servers.a.env.API_TOKEN: secret MCPBRIDGE_TEST_UNSET_TOKEN is not set") {
		t.Errorf("check a = %v", ps)
	}
	ps = backend.Check(cfg.Servers["b"], backend.Deps{})
	if len(ps) != 1 || !strings.Contains(ps[0].String(), "servers.b.upstreams[0].headers.Authorization: environment variable MCPBRIDGE_TEST_UNSET_ENV is not set") {
		t.Errorf("check b = %v", ps)
	}
	t.Setenv("MCPBRIDGE_SECRET_MCPBRIDGE_TEST_UNSET_TOKEN", "x")
	if ps := backend.Check(cfg.Servers["a"], backend.Deps{}); len(ps) != 0 {
		t.Errorf("check with the secret set = %v", ps)
	}
}

// Secrets in env reach the child, and their values are scrubbed from what comes back.
func TestEnvSecret(t *testing.T) {
	t.Setenv("MCPBRIDGE_SECRET_UPSTREAM_TEST_TOKEN", "tok-0123456789abcdef")
	t.Setenv("MCPBRIDGE_TEST_GATEWAY_ONLY", "not for children")
	srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n"+stdioUpstream(t, map[string]string{"API_TOKEN": "secret:UPSTREAM_TEST_TOKEN"}, ""))
	_, cs := connect(t, srv, "up", "2025-11-25")
	wantText(t, cs, "env", map[string]any{"name": "API_TOKEN"}, "[secret UPSTREAM_TEST_TOKEN]")
	wantText(t, cs, "echo", map[string]any{"text": "say tok-0123456789abcdef"}, "say [secret UPSTREAM_TEST_TOKEN]")
	// The gateway's own environment is not passed on (secrets live there).
	wantText(t, cs, "env", map[string]any{"name": "MCPBRIDGE_TEST_GATEWAY_ONLY"}, "unset")
	wantText(t, cs, "env", map[string]any{"name": "MCPBRIDGE_SECRET_UPSTREAM_TEST_TOKEN"}, "unset")
}

// Configured headers (secrets resolved) reach an HTTP upstream; the downstream client's
// Authorization never does.
func TestHeaders(t *testing.T) {
	t.Setenv("MCPBRIDGE_SECRET_UPSTREAM_AUTH", "Bearer upstream-token-42")
	url := startHTTPServer(t, "UPSTREAM_TEST_EXPECT_AUTH=Bearer upstream-token-42")
	for _, iso := range []string{"per-session", "shared"} {
		srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    isolation: "+iso+"\n    url: "+url+"\n    headers: {Authorization: \"secret:UPSTREAM_AUTH\"}\n")
		_, mc := newClient()
		hc := &http.Client{Transport: authTransport{"Bearer downstream-token"}}
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			cs, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/up", HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				t.Fatal(err)
			}
			wantText(t, cs, "auth", nil, "expected=true count=1")
			cs.Close()
		}
	}
}

type authTransport struct{ value string }

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", a.value)
	return http.DefaultTransport.RoundTrip(r)
}
