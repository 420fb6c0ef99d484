package all_test

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// The configuration as every kind of this build decodes it: common fields in config, each
// kind's section by its kind.

func Parse(file, dir string, data []byte) (*config.Config, error) {
	return config.Parse(file, dir, data, backend.Kinds())
}

func ParseServer(label, name string, data []byte) (*config.Server, error) {
	return config.ParseServer(label, name, data, backend.Kinds())
}

func TestParseValid(t *testing.T) {
	c, err := Parse("c.yaml", "/tmp", []byte(`
listen: 127.0.0.1:9000
origins: [https://a.example]
variables: {x: 1}
servers:
  tools-demo:
    kind: command
    description: d
    tools:
      echo:
        description: Echo
        inputSchema: {type: object, properties: {message: {type: string}}, required: [message]}
        argv: [echo, {direct: message}, {constant: 3}, plain]
        stdin: {direct: message}
        timeout: 5s
`))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Servers["tools-demo"]
	if s.Name != "tools-demo" || !s.IsEnabled() || c.Limits.PageSize != config.DefaultPageSize || c.Limits.MaxBody != config.DefaultMaxBody {
		t.Errorf("defaults: %+v %+v", s, c.Limits)
	}
	if s.Spec == nil {
		t.Error("the command kind did not decode the server")
	}
}

// T1.4, T14.1 and friends: every problem is reported with its position and field path.
func TestProblems(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key", "servers:\n  a:\n    kind: command\n    description: d\n    tolls: {}\n", []string{`c.yaml:5:5: servers.a.tolls: unknown field "tolls" (did you mean "tools"?)`}},
		{"traversal name", "servers:\n  ../x:\n    kind: command\n    description: d\n", []string{`c.yaml:2:3: servers.../x: server name "../x" is not allowed`}},
		{"reserved", "servers:\n  meta:\n    kind: command\n", []string{"reserved"}},
		{"unknown kind", "servers:\n  a:\n    kind: shell\n", []string{`c.yaml:3:11: servers.a.kind: unknown kind "shell"`}},
		{"wrong type", "servers:\n  a:\n    kind: command\n    enabled: maybe\n", []string{`c.yaml:4:14: servers.a.enabled: expected true or false, got "maybe"`}},
		{"bad duration", "servers:\n  a:\n    kind: command\n    tools:\n      t: {description: x, argv: [x], timeout: 5}\n", []string{"servers.a.tools.t.timeout: expected a duration with a unit, such as 5s"}},
		{"missing argv and description", "servers:\n  a:\n    kind: command\n    tools:\n      t: {inputSchema: {type: object}}\n", []string{"servers.a.tools.t.description: missing description", "servers.a.tools.t.argv: missing argv"}},
		{"schema not object", "servers:\n  a:\n    kind: command\n    tools:\n      t: {description: x, argv: [x], inputSchema: {type: string}}\n", []string{"inputSchema.type: an inputSchema must have type: object"}},
		{"direct names no property", "servers:\n  a:\n    kind: command\n    tools:\n      t: {description: x, argv: [x, {direct: nope}], inputSchema: {type: object}}\n", []string{`c.yaml:5:46: servers.a.tools.t.argv[1].direct: argument "nope" is not a property of inputSchema`}},
		{"expression syntax", "servers:\n  a:\n    kind: command\n    tools:\n      t: {description: x, argv: [x, {expression: 'args.a +* 2'}]}\n", []string{"servers.a.tools.t.argv[1].expression: invalid expression: SyntaxError", "at 1:"}},
		{"arg with two keys", "servers:\n  a:\n    kind: command\n    tools:\n      t: {description: x, argv: [{direct: a, constant: b}]}\n", []string{"expected exactly one of constant, direct or expression"}},
		{"field of other kind", "servers:\n  a:\n    kind: command\n    base_url: http://x\n", []string{`servers.a.base_url: field "base_url" belongs to kind http, not command`}},
		{"duplicate key", "servers:\n  a:\n    kind: command\n    kind: http\n", []string{`c.yaml:4:5: servers.a.kind: duplicate key "kind"`}},
		{"invalid yaml", "servers: [\n", []string{"c.yaml:1:1: invalid YAML"}},
		{"prompt placeholder", "servers:\n  a:\n    kind: command\n    prompts:\n      p: {messages: [{role: user, text: 'hi {{who}}'}]}\n", []string{"placeholder {{who}} names no argument"}},
		{"resource without content", "servers:\n  a:\n    kind: command\n    resources:\n      r: {uri: 'docs://x'}\n", []string{"give one of text, file or blob"}},
		{"resource file outside", "servers:\n  a:\n    kind: command\n    resources:\n      r: {uri: 'docs://x', file: ../etc/passwd}\n", []string{"file must be a path inside the config's directory"}},
		{"bad cid", "servers:\n  a:\n    kind: command\n    resources:\n      r: {uri: 'cid://abc'}\n", []string{"expected cid://sha256-"}},
		{"auto_discover without argv", "servers:\n  a:\n    kind: command\n    auto_discover: true\n", []string{"auto_discover needs a server-level argv"}},
		{"allow_options on a constant", "servers:\n  a:\n    kind: command\n    tools:\n      t: {description: x, argv: [x, {constant: -v, allow_options: true}]}\n", []string{"servers.a.tools.t.argv[1].allow_options: a constant is never checked for options"}},
		{"allow_options not a bool", "servers:\n  a:\n    kind: command\n    tools:\n      t: {description: x, argv: [x, {expression: args.a, allow_options: yes please}]}\n", []string{"argv[1].allow_options: expected true or false"}},
		{"allow_options on stdin", "servers:\n  a:\n    kind: command\n    tools:\n      t: {description: x, argv: [x], stdin: {expression: args.a, allow_options: true}}\n", []string{"servers.a.tools.t.stdin.allow_options: allow_options only applies to argv"}},
		{"server allow_options without auto_discover", "servers:\n  a:\n    kind: command\n    allow_options: true\n", []string{"c.yaml:4:20: servers.a.allow_options: a server-level allow_options is only used with auto_discover: true"}},
		{"bad listen", "listen: nope\n", []string{"listen: expected host:port"}},
		{"bad origin", "origins: [evil]\n", []string{"origins[0]: expected an origin"}},
		{"http mapping path var", "servers:\n  a:\n    kind: http\n    base_url: http://x\n    tools:\n      t:\n        description: x\n        method: GET\n        path: /u/{id}\n", []string{"path parameter {id} has no mapping"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("c.yaml", "/tmp", []byte(c.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			got := err.Error()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems:\n%s\nwant to contain: %s", got, w)
				}
			}
		})
	}
}

func TestAllProblemsReported(t *testing.T) {
	_, err := Parse("c.yaml", "/tmp", []byte("servers:\n  a:\n    kind: command\n    x: 1\n    y: 2\n  B: {kind: command}\n"))
	ps, ok := err.(config.Problems)
	// Both unknown fields and the bad name: decoding problems do not hide validation ones.
	if !ok || len(ps) != 3 {
		t.Fatalf("want 3 problems, got %v", err)
	}
}

func TestParseServerJSON(t *testing.T) {
	s, err := ParseServer("admin API", "notes", []byte(`{"kind":"command","description":"d","tools":{"t":{"description":"x","argv":["echo"]}}}`))
	if err != nil || s.Name != "notes" || s.Source != "store" {
		t.Fatalf("%v %+v", err, s)
	}
	_, err = ParseServer("admin API", "notes", []byte(`{"kind":"command",
 "tools":{"t":{"description":"x","argvv":["echo"]}}}`))
	if err == nil || !strings.Contains(err.Error(), `admin API:2:34: tools.t.argvv: unknown field "argvv"`) {
		t.Errorf("json problem: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("servers:\n  a:\n    kind: command\n    tools:\n      t: {description: x, argv: [x, {direct: a}]}\n"))
	f.Add([]byte("servers: {a: {kind: http, base_url: 'http://x', tools: {t: {method: GET, path: /a/{b}, mappings: [{field: b, in: path, direct: b}]}}}}"))
	f.Add([]byte("- [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.yaml", "/tmp", data)
		if err == nil && c == nil {
			t.Fatal("nil config without error")
		}
	})
}
