package command_test

import "testing"

// Integers above 2^53 reach argv digit for digit: arguments are decoded with UseNumber, not
// into float64 (which turned 9007199254740993 into 9007199254740992).
func TestBigIntegersReachArgvExactly(t *testing.T) {
	b := open(t, `
servers:
  s:
    kind: command
    description: d
    tools:
      args:
        description: prints its arguments one per line
        inputSchema:
          type: object
          properties:
            n: {type: integer}
            list: {type: array, items: {type: number}}
            obj: {type: object}
        argv: [printf, '%s\n', {direct: n}, {direct: list}, {direct: obj}, {expression: "String(args.n > 0)"}]
`)
	r := call(t, b, "args", `{"n": 9007199254740993, "list": [18446744073709551617, 2.5, 1e3], "obj": {"id": 123456789012345678901}}`)
	want := "9007199254740993\n18446744073709551617\n2.5\n1000\n{\"id\":123456789012345678901}\ntrue\n"
	if r.IsError || text(r) != want {
		t.Errorf("got %q (isError %v), want %q", text(r), r.IsError, want)
	}
}
