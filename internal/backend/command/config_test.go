package command

import (
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

func TestDecodeArgs(t *testing.T) {
	c, err := config.Parse("c.yaml", "/tmp", []byte(`
servers:
  tools-demo:
    kind: command
    description: d
    tools:
      echo:
        description: Echo
        inputSchema: {type: object, properties: {message: {type: string}}, required: [message]}
        argv: [echo, {direct: message}, {constant: 3}, plain, {expression: "args.message + 1"}, {allow_options: true, direct: message}]
        stdin: {direct: message}
        timeout: 5s
`), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	sp := c.Servers["tools-demo"].Spec.(*spec)
	ts := sp.tools["echo"]
	argv := ts.Argv
	if argv[0].Source != ArgConstant || argv[0].Constant != "echo" || argv[1].Source != ArgDirect || argv[1].Direct != "message" {
		t.Errorf("argv: %+v", argv)
	}
	if argv[1].AllowOptions || !argv[5].AllowOptions || argv[5].Direct != "message" {
		t.Errorf("allow_options: %+v", argv)
	}
	if argv[2].Constant != int64(3) {
		t.Errorf("constant number: %#v", argv[2].Constant)
	}
	if ts.Timeout.String() != "5s" || ts.Stdin == nil || ts.Stdin.Direct != "message" {
		t.Errorf("timeout, stdin: %v %+v", ts.Timeout, ts.Stdin)
	}
	if sp.programs["args.message + 1"] == nil {
		t.Error("the expression was not compiled when decoding")
	}
}
