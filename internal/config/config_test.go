package config

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestExpand(t *testing.T) {
	got := Expand("a {{x}} b {{ y }} c {{z}}", map[string]string{"x": "1", "y": "<2>"})
	if got != "a 1 b <2> c " {
		t.Errorf("Expand = %q", got)
	}
}

// echoKind is a kind written for this test: its server section has greeting, and each
// tool a required word.
type echoKind struct{ specs map[string]*echoSpec }

type echoSpec struct {
	Greeting string        `yaml:"greeting"`
	Wait     time.Duration `yaml:"wait"`
	words    map[string]string
}

func (echoKind) Names() []string { return []string{"echo"} }

func (k echoKind) Decode(s *Server) Problems {
	sp := &echoSpec{words: map[string]string{}}
	ps := s.Section.Decode(sp)
	for _, name := range s.ToolNames() {
		var ts struct {
			Word string `yaml:"word"`
		}
		sec := s.Tools[name].Section
		ps = append(ps, sec.Decode(&ts)...)
		if ts.Word == "" {
			ps = append(ps, sec.Problem("word", "missing word"))
		}
		sp.words[name] = ts.Word
	}
	s.Spec = sp
	return ps
}

func TestSectionDecodes(t *testing.T) {
	c, err := Parse("c.yaml", "/tmp", []byte(`servers:
  a:
    kind: echo
    description: d
    greeting: hello
    wait: 2s
    tools:
      t: {description: x, word: bird}
`), echoKind{})
	if err != nil {
		t.Fatal(err)
	}
	sp := c.Servers["a"].Spec.(*echoSpec)
	if sp.Greeting != "hello" || sp.Wait != 2*time.Second || sp.words["t"] != "bird" {
		t.Errorf("spec = %+v", sp)
	}
}

// Problems of the common fields and of the kind's sections come in one run, in source
// order, each located.
func TestSectionProblems(t *testing.T) {
	_, err := Parse("c.yaml", "/tmp", []byte(`servers:
  a:
    kind: echo
    greting: hello
    enabled: maybe
    wait: 5
    tools:
      t: {description: x}
      u: {descripton: x, word: w}
  b:
    kind: shell
`), echoKind{})
	want := []string{
		`c.yaml:4:5: servers.a.greting: unknown field "greting" (did you mean "greeting"?)`,
		`c.yaml:5:14: servers.a.enabled: expected true or false, got "maybe"`,
		`c.yaml:6:11: servers.a.wait: expected a duration with a unit, such as 5s`,
		`c.yaml:8:10: servers.a.tools.t.word: missing word`,
		`c.yaml:9:11: servers.a.tools.u.descripton: unknown field "descripton" (did you mean "description"?)`,
		`c.yaml:11:11: servers.b.kind: unknown kind "shell"; one of: echo`,
	}
	if err == nil {
		t.Fatal("no problems")
	}
	got := strings.Split(err.Error(), "\n")
	var filtered []string
	for _, g := range got {
		if !strings.Contains(g, "missing description") {
			filtered = append(filtered, g)
		}
	}
	if strings.Join(filtered, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

func TestParseServerSection(t *testing.T) {
	_, err := ParseServer("admin API", "notes", []byte(`{"kind":"echo",
 "tools":{"t":{"description":"x","wrd":"w"}}}`), echoKind{})
	if err == nil || !strings.Contains(err.Error(), `admin API:2:34: tools.t.wrd: unknown field "wrd" (did you mean "word"?)`) {
		t.Errorf("problems: %v", err)
	}
}

// check catches what would fail at call time: a schema the meta-schema refuses, required
// names without a property.
func TestSchemaProblems(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{type: object, properties: {a: {type: strng}}}`, `servers.a.tools.t.inputSchema.properties.a.type: "strng" is not a JSON Schema type; use one of string, number, integer, boolean, object, array, null`},
		{`{type: object, required: a}`, `servers.a.tools.t.inputSchema.required: must be a list of property names, such as [name, email], got the string "a"`},
		{`{type: object, properties: {a: {type: string}}, required: [a, b]}`, `servers.a.tools.t.inputSchema.required[1]: names "b", which is not in properties`},
		{`{type: object, properties: {a: {type: number, minimum: ten}}}`, `servers.a.tools.t.inputSchema.properties.a.minimum: must be a number, got the string "ten"`},
		{`{type: object, properties: {text: {type: string, description: Lines to sort, separated by newlines}}}`, `servers.a.tools.t.inputSchema.properties.text: the schema has a key "separated by newlines" with no value: a comma inside {...} ends a value in YAML; quote the text`},
		{`{type: object, properties: {a: {type: object, properties: {x: {type: [string, nope]}}}}}`, `servers.a.tools.t.inputSchema.properties.a.properties.x.type[1]: the string "nope" is not a JSON Schema type`},
		// x-mcp-header (SEP-2243): the go-sdk refuses such a tool at registration (a panic).
		{`{type: object, properties: {n: {type: number, x-mcp-header: N}}}`, `servers.a.tools.t.inputSchema.properties.n.x-mcp-header: only a property of type string, integer or boolean can have x-mcp-header (its value is sent as an HTTP header); this one's type is "number"`},
		{`{type: object, properties: {r: {type: string, x-mcp-header: "my region"}}}`, `servers.a.tools.t.inputSchema.properties.r.x-mcp-header: "my region" is not an HTTP header name`},
		{`{type: object, properties: {r: {type: string, x-mcp-header: ""}}}`, `servers.a.tools.t.inputSchema.properties.r.x-mcp-header: must be a non-empty string`},
		{`{type: object, properties: {a: {type: string, x-mcp-header: Region}, b: {type: object, properties: {c: {type: string, x-mcp-header: region}}}}}`, `servers.a.tools.t.inputSchema.properties.b.properties.c.x-mcp-header: "region" is already the header of properties.a (header names are case-insensitive)`},
	} {
		_, err := Parse("c.yaml", "/tmp", []byte("servers:\n  a:\n    kind: echo\n    tools:\n      t: {description: x, word: w, inputSchema: "+c.schema+"}\n"), echoKind{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("schema %s: problems\n%v\nwant to contain\n%s", c.schema, err, c.want)
		}
	}
	_, err := Parse("c.yaml", "/tmp", []byte("servers:\n  a:\n    kind: ecko\n"), echoKind{})
	if err == nil || !strings.Contains(err.Error(), `unknown kind "ecko" (did you mean "echo"?)`) {
		t.Errorf("kind typo: %v", err)
	}
}

// Every problem of a schema is reported in one run, in source order, each in words a
// person acts on (it used to be one per run, in no stable order, as validator text).
func TestSchemaProblemsAll(t *testing.T) {
	doc := `servers:
  a:
    kind: echo
    tools:
      t:
        description: x
        word: w
        inputSchema:
          type: object
          properties:
            a: {type: strng}
            b: {type: number, minimum: "ten"}
            c: {type: string, maxLength: -1, pattern: "a("}
          required: [a, foo]
`
	want := []string{
		`c.yaml:11:23: servers.a.tools.t.inputSchema.properties.a.type: "strng" is not a JSON Schema type; use one of string, number, integer, boolean, object, array, null`,
		`c.yaml:12:40: servers.a.tools.t.inputSchema.properties.b.minimum: must be a number, got the string "ten"`,
		`c.yaml:13:42: servers.a.tools.t.inputSchema.properties.c.maxLength: must be a whole number of 0 or more, got the number -1`,
		`c.yaml:13:55: servers.a.tools.t.inputSchema.properties.c.pattern: "a(" is not a valid regular expression: missing closing ): ` + "`a(`",
		`c.yaml:14:25: servers.a.tools.t.inputSchema.required[1]: names "foo", which is not in properties; describe it under properties or remove it`,
	}
	for range 3 { // the same every run
		_, err := Parse("c.yaml", "/tmp", []byte(doc), echoKind{})
		if err == nil || err.Error() != strings.Join(want, "\n") {
			t.Fatalf("problems:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
		}
	}
}

func TestGlobAndFilter(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"get_*", "get_user", true}, {"get_*", "list_users", false}, {"*user*", "get_user_by_id", true},
		{"GET /repos/*", "get /repos/a/b", true}, {"GET /repos/*", "POST /repos/a", false},
		{"a*b*c", "aXbYc", true}, {"a*b*c", "aXbY", false}, {"*", "", true}, {"", "", true}, {"", "x", false},
		{"**x", "abx", true}, {"a?", "a?", true}, {"a?", "ab", false},
	} {
		if got := Glob(c.pattern, c.s); got != c.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
	f := ToolFilter{Include: []string{"get_*", "search"}, Exclude: []string{"*_admin*"}}
	for name, want := range map[string]bool{"get_user": true, "search": true, "get_admin_keys": false, "delete_user": false} {
		if got := f.Keep(name); got != want {
			t.Errorf("Keep(%q) = %v, want %v", name, got, want)
		}
	}
	if !(ToolFilter{}).Keep("anything") {
		t.Error("an empty filter must keep every tool")
	}
}

func TestTemplateProblems(t *testing.T) {
	for _, c := range []struct{ res, want string }{
		{`{uri_template: "docs://{name", file: x}`, "servers.a.resources.r.uri_template: not a valid URI template"},
		{`{uri_template: "docs://g/{name}"}`, "servers.a.resources.r.file: give the file the template reads"},
		{`{uri_template: "docs://g/{name}", file: "g/{other}.md"}`, "servers.a.resources.r.file: {other} is not a variable of uri_template"},
		{`{uri_template: "docs://g/{name}", file: "../{name}"}`, "file must be a path inside the config's directory"},
		{`{uri_template: "docs://g/{name}", uri: "docs://x", file: "{name}"}`, "give uri or uri_template, not both"},
	} {
		_, err := Parse("c.yaml", "/tmp", []byte("servers:\n  a:\n    kind: echo\n    resources:\n      r: "+c.res+"\n"), echoKind{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s", c.res, err, c.want)
		}
	}
}

func TestLimits(t *testing.T) {
	c, err := Parse("c.yaml", "/tmp", []byte("limits: {sessions_per_client: 3, read_timeout: 2s}\n"), echoKind{})
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{
		MaxBody: DefaultMaxBody, PageSize: DefaultPageSize, DrainPeriod: DefaultDrainPeriod,
		Sessions: DefaultSessions, SessionsPerClient: 3, SessionIdle: DefaultSessionIdle,
		ConcurrentCalls: DefaultConcurrentCalls, CallQueueWait: DefaultCallQueueWait,
		ConnectionsPerClient: DefaultConnectionsPerClient,
		HeaderTimeout:        DefaultHeaderTimeout, ReadTimeout: 2 * time.Second, IdleTimeout: DefaultIdleTimeout,
	}
	if c.Limits != want {
		t.Errorf("limits = %+v\nwant %+v", c.Limits, want)
	}
	_, err = Parse("c.yaml", "/tmp", []byte("limits:\n  sessions: -1\n  concurrent_calls: -2\n  max_body: -1\n"), echoKind{})
	got := fmt.Sprint(err)
	for _, w := range []string{
		"c.yaml:2:13: limits.sessions: must not be negative",
		"c.yaml:3:21: limits.concurrent_calls: must not be negative",
		"c.yaml:4:13: limits.max_body: must not be negative",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("problems %q lack %q", got, w)
		}
	}
	if _, err := Parse("c.yaml", "/tmp", []byte("limits: {session_idle: 30}\n"), echoKind{}); !strings.Contains(fmt.Sprint(err), "limits.session_idle: expected a duration with a unit") {
		t.Errorf("unitless duration: %v", err)
	}
	if _, err := Parse("c.yaml", "/tmp", []byte("limits: {idle_timeout: -5s}\n"), echoKind{}); !strings.Contains(fmt.Sprint(err), "limits.idle_timeout: expected a duration") {
		t.Errorf("negative duration: %v", err)
	}
}

// trusted_proxies takes CIDRs and single addresses; anything else, and a proxy_header other
// than X-Forwarded-For or Forwarded, is a problem at its position.
func TestTrustedProxies(t *testing.T) {
	c, err := Parse("c.yaml", "/tmp", []byte("trusted_proxies: [10.0.0.0/8, 192.0.2.7, '2001:db8::/32', 10.1.2.3/16]\nproxy_header: forwarded\n"), echoKind{})
	if err != nil {
		t.Fatal(err)
	}
	var nets []string
	for _, n := range c.TrustedNets() {
		nets = append(nets, n.String())
	}
	if got := strings.Join(nets, " "); got != "10.0.0.0/8 192.0.2.7/32 2001:db8::/32 10.1.0.0/16" {
		t.Errorf("trusted nets %s", got)
	}
	if c.ClientHeader() != HeaderForwarded {
		t.Errorf("client header %q", c.ClientHeader())
	}
	if (&Config{}).ClientHeader() != HeaderXForwardedFor {
		t.Error("the default client header is not X-Forwarded-For")
	}
	_, err = Parse("c.yaml", "/tmp", []byte("trusted_proxies: [10.0.0.0/8, proxy.internal, 10.0.0.0/33]\nproxy_header: X-Real-IP\n"), echoKind{})
	got := fmt.Sprint(err)
	for _, w := range []string{
		`c.yaml:1:31: trusted_proxies[1]: expected a CIDR such as 10.0.0.0/8 or an address such as 192.0.2.10, got "proxy.internal"`,
		`trusted_proxies[2]: expected a CIDR`,
		`c.yaml:2:15: proxy_header: expected X-Forwarded-For or Forwarded`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("problems %q lack %q", got, w)
		}
	}
}

// A resource or prompt with an empty role is a problem at the role.
func TestResourcePromptRoles(t *testing.T) {
	_, err := Parse("c.yaml", "/tmp", []byte(`servers:
  s:
    kind: echo
    description: d
    resources:
      r: {uri: "docs://r", text: hi, roles: [admin, " "]}
    prompts:
      p: {roles: [""], messages: [{role: user, text: hi}]}
`), echoKind{})
	got := fmt.Sprint(err)
	for _, w := range []string{"servers.s.resources.r.roles[1]: empty role", "servers.s.prompts.p.roles[0]: empty role"} {
		if !strings.Contains(got, w) {
			t.Errorf("problems %q lack %q", got, w)
		}
	}
}
