package command_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	scrubSecret = "x-secret-value-0123456789" // 25 bytes
	scrubAdmin  = "admin-key-0123456789abcdef"
)

// Secret values the gateway holds never come back in a command's output or error text:
// whole occurrences are replaced, and at an edge where the output was cut, what is left of a
// secret (4 bytes or more) is removed.
func TestOutputsAreScrubbedOfSecrets(t *testing.T) {
	t.Setenv("MCPBRIDGE_SECRET_SCRUB_X", scrubSecret)
	t.Setenv("MCPBRIDGE_ADMIN_KEY", scrubAdmin)
	held := filepath.Join(t.TempDir(), "held")
	os.WriteFile(held, []byte("key="+scrubAdmin+"\n"), 0o600)
	b := open(t, `
servers:
  s:
    kind: command
    description: d
    tools:
      echo_token:
        description: prints the secret it is given
        inputSchema: {type: object}
        argv: [sh, -c, 'echo "token=$TOKEN"; echo "again $TOKEN" >&2; exit $0', {expression: "args.code || 0"}]
        env: {TOKEN: "secret:SCRUB_X"}
      read:
        description: prints a file
        inputSchema: {type: object, properties: {path: {type: string}}}
        argv: [cat, {direct: path}]
      cut_stdout:
        description: output cut at max_output inside the secret
        inputSchema: {type: object}
        argv: [sh, -c, 'printf "abcd%s" "$TOKEN"']
        env: {TOKEN: "secret:SCRUB_X"}
        max_output: 14
      cut_stderr:
        description: stderr tail starting inside the secret
        inputSchema: {type: object}
        argv: [sh, -c, 'printf "%s" "$TOKEN" >&2; head -c 2038 /dev/zero | tr "\0" a >&2; exit 1']
        env: {TOKEN: "secret:SCRUB_X"}
      cut_excerpt:
        description: stdout excerpt of a failure cut inside the secret
        inputSchema: {type: object}
        argv: [sh, -c, 'head -c 2040 /dev/zero | tr "\0" a; printf "%s" "$TOKEN"; exit 2']
        env: {TOKEN: "secret:SCRUB_X"}
`)
	leaks := func(name, got string, pieces ...string) {
		t.Helper()
		for _, p := range pieces {
			if strings.Contains(got, p) {
				t.Errorf("%s: %q holds %q", name, got, p)
			}
		}
	}
	r := call(t, b, "echo_token", `{}`)
	if got := text(r); got != "token=[secret SCRUB_X]\n" {
		t.Errorf("echo_token: %q, want the secret replaced by [secret SCRUB_X]", got)
	}
	r = call(t, b, "echo_token", `{"code": 3}`)
	leaks("echo_token failing", text(r), scrubSecret)
	if !strings.Contains(text(r), "again [secret SCRUB_X]") {
		t.Errorf("stderr of a failure: %q", text(r))
	}
	r = call(t, b, "read", `{"path": "`+held+`"}`)
	if got := text(r); got != "key=[admin key]\n" {
		t.Errorf("read: %q, want the admin key replaced", got)
	}
	// abcd + the first 10 bytes of the secret: the piece goes, the note stays.
	r = call(t, b, "cut_stdout", `{}`)
	leaks("cut_stdout", text(r), scrubSecret[:4], scrubSecret[:10])
	if !strings.HasPrefix(text(r), "abcd\n[output truncated: 15 more bytes") {
		t.Errorf("cut_stdout: %q", text(r))
	}
	// The last 2048 bytes of stderr start with the last 10 bytes of the secret.
	r = call(t, b, "cut_stderr", `{}`)
	leaks("cut_stderr", text(r), scrubSecret[len(scrubSecret)-10:], scrubSecret[len(scrubSecret)-4:])
	if !strings.Contains(text(r), "stderr:\naaaa") {
		t.Errorf("cut_stderr: %q", text(r)[:60])
	}
	// The 2048-byte excerpt of stdout ends with the first 8 bytes of the secret.
	r = call(t, b, "cut_excerpt", `{}`)
	leaks("cut_excerpt", text(r), scrubSecret[:8], scrubSecret[:4])
	if !strings.Contains(text(r), "exit code 2") {
		t.Errorf("cut_excerpt: %q", text(r)[:60])
	}
}
