package gateway_test

// Attacks through server:// resources: a resource, a resource template or a prompt that
// runs another server's tool must take the path of a tools/call of that tool by the same
// caller — the target server's rule, the key's server list, the tool's roles, the rate
// limit, the audit row — on every surface: both MCP eras, the HTTP+SSE transport and REST.
// Resources and prompts with roles are hidden from, and refused to, callers without them.

import (
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

const (
	readSalesKey  = "read-sales-key-0123456789abcdef"
	readScopedKey = "read-scoped-key-0123456789abcdef"
	readAdminKey  = "read-admin-key-0123456789abcdef"
)

// serverReadConfig: lobby is public and offers resources, a template and a prompt that
// run tools of vault, which admits sales and admin, and whose wipe tool is for admin only.
// sam has sales; sue has admin but her key is limited to lobby; ada has admin.
var serverReadConfig = fmt.Sprintf(`
auth:
  keys:
    - {id: sales, hash: "sha256:%s", user: {id: sam}, roles: [sales]}
    - {id: scoped, hash: "sha256:%s", user: {id: sue}, roles: [sales, admin], servers: [lobby]}
    - {id: admin, hash: "sha256:%s", user: {id: ada}, roles: [admin]}
servers:
  lobby:
    kind: command
    description: anyone
    auth: {public: true}
    tools:
      hello: {description: says hello, argv: [echo, lobby-hello]}
    resources:
      wipe: {uri_template: "server://vault/wipe{?what}"}
      peek: {uri: "server://vault/read"}
      loot: {uri: "server://vault/wipe?what=all"}
      own:  {uri: "server://lobby/hello"}
      rated: {uri: "server://metered/hello"}
      classified: {uri: "docs://lobby/classified", text: "for admins", roles: [admin]}
      admintpl: {uri_template: "server://lobby/hello{?x}", roles: [admin]}
    prompts:
      leak:
        description: embeds the wipe
        messages: [{role: user, resource: "server://vault/wipe?what=all"}]
      briefing:
        description: for admins
        roles: [admin]
        messages: [{role: user, text: "the admin briefing"}]
  vault:
    kind: command
    description: sales and admins
    auth: {roles: [sales, admin]}
    tools:
      read: {description: reads, argv: [echo, vault-read]}
      wipe:
        description: wipes
        roles: [admin]
        inputSchema: {type: object, properties: {what: {type: string}}}
        argv: [echo, wiped, {direct: what}]
  metered:
    kind: command
    description: one call an hour per caller
    auth: {public: true}
    limits: {rate: {per_principal: 1/h}}
    tools:
      hello: {description: says hello, argv: [echo, metered-hello]}
`, store.HashKey(readSalesKey), store.HashKey(readScopedKey), store.HashKey(readAdminKey))

// surface reads resources and gets prompts over one way in, as one caller.
type surface struct {
	name      string
	read      func(uri string) (string, error)
	prompt    func(name string) (string, error)
	resources func() []string // URIs and URI templates listed
	prompts   func() []string
}

func mcpSurface(t *testing.T, name string, cs *mcp.ClientSession) surface {
	return surface{
		name: name,
		read: func(uri string) (string, error) {
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				return "", err
			}
			return res.Contents[0].Text, nil
		},
		prompt: func(name string) (string, error) {
			res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name})
			if err != nil {
				return "", err
			}
			var out []string
			for _, m := range res.Messages {
				switch c := m.Content.(type) {
				case *mcp.TextContent:
					out = append(out, c.Text)
				case *mcp.EmbeddedResource:
					out = append(out, c.Resource.Text)
				}
			}
			return strings.Join(out, "\n"), nil
		},
		resources: func() []string {
			var out []string
			for r, err := range cs.Resources(t.Context(), nil) {
				if err != nil {
					t.Fatalf("%s: resources/list: %v", name, err)
				}
				out = append(out, r.URI)
			}
			for r, err := range cs.ResourceTemplates(t.Context(), nil) {
				if err != nil {
					t.Fatalf("%s: resources/templates/list: %v", name, err)
				}
				out = append(out, r.URITemplate)
			}
			return out
		},
		prompts: func() []string {
			var out []string
			for p, err := range cs.Prompts(t.Context(), nil) {
				if err != nil {
					t.Fatalf("%s: prompts/list: %v", name, err)
				}
				out = append(out, p.Name)
			}
			return out
		},
	}
}

func restSurface(t *testing.T, base, token string) surface {
	c := &http.Client{Transport: bearer(token)}
	u := base + "/api/mcp/lobby"
	fail := func(status int, out map[string]any) error {
		return fmt.Errorf("%d %v", status, out)
	}
	return surface{
		name: "rest",
		read: func(uri string) (string, error) {
			status, out := restDo(t, c, "POST", u+"/resources/read", fmt.Sprintf(`{"uri": %q}`, uri), nil)
			if status != 200 {
				return "", fail(status, out)
			}
			return fmt.Sprint(out["contents"].([]any)[0].(map[string]any)["text"]), nil
		},
		prompt: func(name string) (string, error) {
			status, out := restDo(t, c, "POST", u+"/prompts/get", fmt.Sprintf(`{"name": %q}`, name), nil)
			if status != 200 {
				return "", fail(status, out)
			}
			return fmt.Sprint(out["messages"]), nil
		},
		resources: func() []string {
			status, out := restDo(t, c, "GET", u+"/resources", "", nil)
			if status != 200 {
				t.Fatalf("rest resources: %d %v", status, out)
			}
			var list []string
			for _, r := range out["resources"].([]any) {
				list = append(list, r.(map[string]any)["uri"].(string))
			}
			for _, r := range out["resourceTemplates"].([]any) {
				list = append(list, r.(map[string]any)["uriTemplate"].(string))
			}
			return list
		},
		prompts: func() []string {
			status, out := restDo(t, c, "GET", u+"/prompts", "", nil)
			if status != 200 {
				t.Fatalf("rest prompts: %d %v", status, out)
			}
			var list []string
			for _, p := range out["prompts"].([]any) {
				list = append(list, p.(map[string]any)["name"].(string))
			}
			return list
		},
	}
}

// surfaces are the ways into lobby for one caller (token "" is anonymous): both MCP eras,
// the HTTP+SSE transport and REST.
func surfaces(t *testing.T, base, token string) []surface {
	t.Helper()
	var out []surface
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		cs, err := connectAs(t, base+"/mcp/lobby", token, v)
		if err != nil {
			t.Fatalf("connect %s: %v", v, err)
		}
		out = append(out, mcpSurface(t, v, cs))
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "sse", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.SSEClientTransport{Endpoint: base + "/mcp/lobby/sse", HTTPClient: &http.Client{Transport: bearer(token)}}, nil)
	if err != nil {
		t.Fatalf("connect sse: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	out = append(out, mcpSurface(t, "sse", cs), restSurface(t, base, token))
	return out
}

func TestAttackServerResourceRunsToolUnchecked(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := gatewaytest.Start(t, serverReadConfig, gateway.Options{Audit: st.Audit})

	refused := func(s surface, who, uri string) {
		t.Helper()
		if out, err := s.read(uri); err == nil || strings.Contains(out, "wiped") || strings.Contains(out, "vault-read") {
			t.Errorf("%s, %s: read %s = %q, %v; want it refused", who, s.name, uri, out, err)
		}
	}
	allowed := func(s surface, who, uri, want string) {
		t.Helper()
		if out, err := s.read(uri); err != nil || !strings.Contains(out, want) {
			t.Errorf("%s, %s: read %s = %q, %v; want %q", who, s.name, uri, out, err, want)
		}
	}

	// Anonymous on the public lobby: nothing of vault runs, whichever way it is asked;
	// lobby's own tool and the public metered one do.
	for _, s := range surfaces(t, srv.URL, "") {
		refused(s, "anonymous", "server://vault/wipe?what=everything") // the template
		refused(s, "anonymous", "server://vault/wipe?what=all")        // the resource
		refused(s, "anonymous", "server://vault/read")
		if out, err := s.prompt("leak"); err == nil || strings.Contains(out, "wiped") {
			t.Errorf("anonymous, %s: prompt leak = %q, %v; want it refused", s.name, out, err)
		}
		allowed(s, "anonymous", "server://lobby/hello", "lobby-hello")
		listed := s.resources()
		for _, hidden := range []string{"server://vault/wipe{?what}", "server://vault/read", "server://vault/wipe?what=all", "docs://lobby/classified", "server://lobby/hello{?x}"} {
			if slices.Contains(listed, hidden) {
				t.Errorf("anonymous, %s: %s is listed (%v); it cannot be read", s.name, hidden, listed)
			}
		}
		if !slices.Contains(listed, "server://lobby/hello") {
			t.Errorf("anonymous, %s: server://lobby/hello is not listed: %v", s.name, listed)
		}
	}

	// sam (sales) may read vault, not run its admin-only wipe; sue's key is limited to lobby,
	// though she has admin.
	for _, s := range surfaces(t, srv.URL, readSalesKey) {
		allowed(s, "sam", "server://vault/read", "vault-read")
		refused(s, "sam", "server://vault/wipe?what=all")
		refused(s, "sam", "server://vault/wipe?what=x")
		// A resource, a template and a prompt for admins: not listed, not readable.
		refused(s, "sam", "docs://lobby/classified")
		if out, err := s.read("server://lobby/hello?x=1"); err == nil {
			t.Errorf("sam, %s: the admin template was read: %q", s.name, out)
		}
		if out, err := s.prompt("briefing"); err == nil {
			t.Errorf("sam, %s: the admin prompt was got: %q", s.name, out)
		}
		listed := s.resources()
		if slices.Contains(listed, "docs://lobby/classified") || slices.Contains(listed, "server://lobby/hello{?x}") || slices.Contains(listed, "server://vault/wipe{?what}") || !slices.Contains(listed, "server://vault/read") {
			t.Errorf("sam, %s: resources listed %v", s.name, listed)
		}
		if prompts := s.prompts(); slices.Contains(prompts, "briefing") || !slices.Contains(prompts, "leak") {
			t.Errorf("sam, %s: prompts listed %v", s.name, prompts)
		}
	}
	for _, s := range surfaces(t, srv.URL, readScopedKey) {
		refused(s, "sue (key limited to lobby)", "server://vault/wipe?what=all")
		refused(s, "sue (key limited to lobby)", "server://vault/read")
		allowed(s, "sue", "docs://lobby/classified", "for admins") // her roles still count on lobby
	}
	// ada (admin) may do all of it.
	for _, s := range surfaces(t, srv.URL, readAdminKey) {
		allowed(s, "ada", "server://vault/wipe?what=all", "wiped all")
		allowed(s, "ada", "docs://lobby/classified", "for admins")
		allowed(s, "ada", "server://lobby/hello?x=1", "lobby-hello")
		if out, err := s.prompt("briefing"); err != nil || !strings.Contains(out, "the admin briefing") {
			t.Errorf("ada, %s: prompt briefing = %q, %v", s.name, out, err)
		}
		if out, err := s.prompt("leak"); err != nil || !strings.Contains(out, "wiped all") {
			t.Errorf("ada, %s: prompt leak = %q, %v", s.name, out, err)
		}
		if prompts := s.prompts(); !slices.Contains(prompts, "briefing") {
			t.Errorf("ada, %s: prompts listed %v", s.name, prompts)
		}
	}

	srv.Gateway.Close() // flushes the audit queue
	rows, err := st.Audit.List(t.Context(), store.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	count := func(server, tool, principal, via, outcome string) int {
		n := 0
		for _, r := range rows {
			if r.Server == server && r.Tool == tool && r.Principal == principal && r.Via == via && r.Outcome == outcome {
				n++
			}
		}
		return n
	}
	// Four surfaces each: one row per call that reached the tool, as a tools/call leaves.
	for _, c := range []struct {
		server, tool, principal, via, outcome string
		want                                  int
	}{
		{"vault", "read", "sam", "key:sales", "ok", 4},
		{"vault", "wipe", "sam", "key:sales", "forbidden", 8},
		{"vault", "wipe", "ada", "key:admin", "ok", 8}, // the resource and the prompt
		{"lobby", "hello", "", "", "ok", 4},
		{"vault", "read", "", "", "ok", 0},
		{"vault", "wipe", "", "", "ok", 0},
		{"vault", "read", "sue", "key:scoped", "ok", 0},
	} {
		if got := count(c.server, c.tool, c.principal, c.via, c.outcome); got != c.want {
			t.Errorf("audit rows server=%s tool=%s principal=%q via=%q outcome=%s: %d, want %d", c.server, c.tool, c.principal, c.via, c.outcome, got, c.want)
		}
	}
	for _, r := range rows {
		if r.Server == "vault" && r.Client != "127.0.0.1" {
			t.Errorf("audit row %+v: client %q, want the reader's address 127.0.0.1", r, r.Client)
		}
	}
}

// A server:// read is charged to the rate limit of the server whose tool it runs, as a
// tools/call there would be: metered allows one call an hour per caller.
func TestAttackServerResourceRateLimit(t *testing.T) {
	srv := gatewaytest.Start(t, serverReadConfig, gateway.Options{})
	ss := surfaces(t, srv.URL, readSalesKey)
	if out, err := ss[0].read("server://metered/hello"); err != nil || !strings.Contains(out, "metered-hello") {
		t.Fatalf("first read: %q, %v", out, err)
	}
	for _, s := range ss {
		out, err := s.read("server://metered/hello")
		if err == nil || !strings.Contains(err.Error(), "rate.per_principal") {
			t.Errorf("%s: a read past metered's rate = %q, %v; want the rate limit", s.name, out, err)
		}
		if s.name == "rest" && (err == nil || !strings.HasPrefix(err.Error(), "429 ")) {
			t.Errorf("rest: %v; want 429", err)
		}
	}
	// The limit is metered's, per caller: another caller still reads it.
	if out, err := surfaces(t, srv.URL, readAdminKey)[1].read("server://metered/hello"); err != nil || !strings.Contains(out, "metered-hello") {
		t.Errorf("ada's first read: %q, %v", out, err)
	}
}
