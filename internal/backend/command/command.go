// Package command is the backend kind that runs local commands as tools (seed 004 "shell
// servers"). The argv is built from the tool's arguments without a shell; stdin and the
// environment are mapped the same way. A command that exits 0 returns its stdout; any other
// ending is a tool error the model can read. A tool with an outputSchema must print one
// JSON object matching it, returned as structuredContent and as text.
//
// A caller's value never becomes an option by accident: in argv, a value from a tool argument
// or an expression that starts with "-" is refused unless its element says allow_options, and
// an array argument expands into several elements only when the input schema declares it
// type: array.
package command

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/expr"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/proc"
	"github.com/mcpbridge/mcpbridge/internal/secret"
)

// stderrTail is how much of the end of stderr a failed call reports.
const stderrTail = 2048

// Backend runs the tools of one command server.
type Backend struct {
	name  string
	dir   string
	tools map[string]*tool
	list  []*mcp.Tool
	scrub scrubber // of outputs: the secrets the gateway holds and those of the tools' env
}

type tool struct {
	name      string
	server    string
	programs  map[string]*expr.Program // compiled {expression: ...} elements, by source (shared, read-only)
	argv      []Arg
	stdin     *Arg
	env       map[string]Arg
	arrays    map[string]bool // arguments the input schema declares type: array
	workdir   string
	timeout   time.Duration
	maxOutput int64
	output    string // what stdout is (backend.CheckOutput); "" to sniff
	logStderr string // the level of stderr lines sent as log notifications, or "off"
	extraArgs bool   // auto-discovered: append the "args" array
	// extraOptions lets the auto-discovered args start with "-" (server allow_options).
	extraOptions bool
	// outputSchema is the tool's resolved outputSchema, or nil: with one, stdout must be a
	// JSON object that matches it, returned as structuredContent (structuredResult).
	outputSchema *jsonschema.Resolved
}

// openStatic creates the backend of a command server's definition, without running its
// transforms.
func (sp *spec) openStatic(deps backend.Deps) (*Backend, error) {
	s := sp.server
	b := &Backend{name: s.Name, dir: deps.Dir, tools: map[string]*tool{}}
	for _, name := range s.ToolNames() {
		t := sp.tools[name]
		var outSchema *jsonschema.Resolved
		if schema := s.Tools[name].OutputSchema; schema != nil {
			rs, err := config.ResolveSchema(schema)
			if err != nil {
				return nil, fmt.Errorf("tool %s: outputSchema: %w", name, err)
			}
			outSchema = rs
		}
		b.tools[name] = &tool{
			outputSchema: outSchema,
			name:         name, server: s.Name, argv: t.Argv, stdin: t.Stdin, env: t.Env, programs: sp.programs,
			arrays:    arrayProps(s.Tools[name].InputSchema),
			workdir:   cmp.Or(t.Workdir, sp.conf.Workdir),
			timeout:   cmp.Or(t.Timeout, sp.conf.Timeout, config.DefaultTimeout),
			maxOutput: cmp.Or(t.MaxOutput, config.DefaultMaxOutput),
			output:    t.Output,
			logStderr: cmp.Or(t.LogStderr, "info"),
		}
		b.list = append(b.list, backend.ToolFromConfig(name, s.Tools[name]))
	}
	if sp.conf.AutoDiscover {
		desc := s.Description
		if desc == "" {
			desc = "Run " + argvText(sp.conf.Argv)
		}
		desc += fmt.Sprintf(" (runs: %s ARGS...)", argvText(sp.conf.Argv))
		b.tools[s.Name] = &tool{
			name: s.Name, server: s.Name, argv: sp.conf.Argv, env: sp.conf.Env, workdir: sp.conf.Workdir, programs: sp.programs,
			timeout:   cmp.Or(sp.conf.Timeout, config.DefaultTimeout),
			maxOutput: config.DefaultMaxOutput, extraArgs: true, extraOptions: sp.conf.AllowOptions,
			logStderr: "info",
		}
		b.list = append(b.list, &mcp.Tool{
			Name:        s.Name,
			Description: desc,
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"args": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Arguments appended to the command"},
				},
			},
		})
	}
	secrets := heldSecrets()
	for _, name := range slices.Sorted(maps.Keys(b.tools)) {
		t := b.tools[name]
		env, err := resolveEnv(deps, name, t.env, secrets)
		if err != nil {
			return nil, err
		}
		t.env = env
	}
	b.scrub = newScrubber(secrets)
	return b, nil
}

func argvText(argv []Arg) string {
	var parts []string
	for _, a := range argv {
		if a.Source == ArgConstant {
			parts = append(parts, fmt.Sprint(a.Constant))
		} else {
			parts = append(parts, "…")
		}
	}
	return strings.Join(parts, " ")
}

// Quiet reports that a call sends the client nothing but its result, progress when the
// call asks for it and stderr lines when the client set a log level (backend.Quiet).
func (b *Backend) Quiet() bool { return true }

// Catalog returns the server's tools.
func (b *Backend) Catalog(context.Context) (*backend.Catalog, error) {
	return &backend.Catalog{Tools: b.list}, nil
}

// CallTool runs the command of the called tool.
func (b *Backend) CallTool(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	name, raw := c.Name, c.Arguments
	t, ok := b.tools[name]
	if !ok {
		return backend.ErrorResult("unknown tool %q", name), nil
	}
	args, err := backend.DecodeArgs(raw)
	if err != nil {
		return backend.ErrorResult("arguments must be a JSON object: %v", err), nil
	}
	argv, err := t.buildArgv(ctx, args)
	if err != nil {
		return backend.ErrorResult("%v", err), nil
	}
	if len(argv) == 0 || argv[0] == "" {
		return backend.ErrorResult("the command of tool %q is empty; fix its argv", name), nil
	}
	var stdin []byte
	if t.stdin != nil {
		vs, err := t.value(ctx, *t.stdin, args)
		if err != nil {
			return backend.ErrorResult("stdin: %v", err), nil
		}
		stdin = []byte(strings.Join(vs, "\n"))
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	for _, k := range slices.Sorted(maps.Keys(t.env)) {
		vs, err := t.value(ctx, t.env[k], args)
		if err != nil {
			return backend.ErrorResult("env %s: %v", k, err), nil
		}
		env = append(env, k+"="+strings.Join(vs, " "))
	}
	return b.run(ctx, c.Session, t, argv, stdin, env), nil
}

// resolveEnv returns env with its secret references (secret:NAME, env:NAME, file:PATH
// written as constants) replaced by their values, read once when the backend opens. It adds
// the values to secrets (value -> label), to be scrubbed from outputs.
func resolveEnv(deps backend.Deps, tool string, env map[string]Arg, secrets map[string]string) (map[string]Arg, error) {
	out := make(map[string]Arg, len(env))
	for k, a := range env {
		if ref, ok := secretRef(a); ok {
			v, err := deps.Resolve(fmt.Sprintf("tool %s: env %s", tool, k), ref)
			if err != nil {
				return nil, err
			}
			a.Constant = v
			if _, ok := secrets[v]; !ok {
				secrets[v] = secret.Label(ref)
			}
		}
		out[k] = a
	}
	return out, nil
}

// secretRef returns the secret reference an env element holds, if it is one (a constant
// secret:NAME, env:NAME or file:PATH).
func secretRef(a Arg) (string, bool) {
	ref, ok := a.Constant.(string)
	return ref, ok && a.Source == ArgConstant && secret.IsRef(ref)
}

// checkSecrets resolves every secret reference of the env of the server (auto_discover) and of
// its tools, so a missing one is reported by `mcpbridge check` and the admin API before the
// server is served.
func (sp *spec) checkSecrets(deps backend.Deps) config.Problems {
	var ps config.Problems
	check := func(sec config.Section, env map[string]Arg) {
		for _, k := range slices.Sorted(maps.Keys(env)) {
			if ref, ok := secretRef(env[k]); ok {
				ps = append(ps, backend.CheckRef(deps, sec, "env."+k, ref)...)
			}
		}
	}
	if sp.conf.AutoDiscover {
		check(sp.server.Section, sp.conf.Env)
	}
	for _, name := range sp.server.ToolNames() {
		if t := sp.server.Tools[name]; t != nil {
			check(t.Section, sp.tools[name].Env)
		}
	}
	return ps
}

// staticToolNames returns the tools of the definition, and the one auto_discover adds.
func (sp *spec) staticToolNames() []string {
	names := sp.server.ToolNames()
	if sp.conf.AutoDiscover {
		names = append(names, sp.server.Name)
	}
	return names
}

// buildArgv maps the argv elements to strings. A value from a tool argument or an
// expression that starts with "-" is refused unless its element says allow_options: the
// program would read it as an option (grep -f, find -exec, git --output=).
func (t *tool) buildArgv(ctx context.Context, args map[string]any) ([]string, error) {
	var out []string
	for i, a := range t.argv {
		vs, err := t.value(ctx, a, args)
		if err != nil {
			return nil, fmt.Errorf("argv[%d]: %w", i, err)
		}
		if a.Source != ArgConstant && !a.AllowOptions {
			for j, v := range vs {
				if strings.HasPrefix(v, "-") {
					return nil, t.optionError(i, j, len(vs), a)
				}
			}
		}
		out = append(out, vs...)
	}
	if t.extraArgs {
		if extra, ok := args["args"].([]any); ok {
			for i, e := range extra {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("args[%d] must be a string, got %s", i, jsonText(e))
				}
				if strings.HasPrefix(s, "-") && !t.extraOptions {
					return nil, fmt.Errorf("args[%d] starts with \"-\", so %s would read it as an option, and options are not accepted by this tool; "+
						"pass only values that do not start with \"-\" (the gateway's administrator can accept options with allow_options: true on server %s)", i, t.name, t.server)
				}
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// optionError says which argv element produced a value starting with "-" and how to allow it.
func (t *tool) optionError(i, item, items int, a Arg) error {
	what := "the value of its expression"
	if a.Source == ArgDirect {
		what = fmt.Sprintf("the value of argument %q", a.Direct)
	}
	if items > 1 {
		what = fmt.Sprintf("item %d of %s", item, what)
	}
	return fmt.Errorf("argv[%d]: %s starts with \"-\", so the program would read it as an option, and options are not accepted there; "+
		"give a value that does not start with \"-\" (the gateway's administrator can accept options with allow_options: true on argv[%d] of tool %s)", i, what, i, t.name)
}

// value turns one Arg into zero or more strings: an absent optional argument gives none; an
// array gives one string per element when it comes from a constant, an expression, or an
// argument whose input schema says type: array, and its JSON text otherwise.
func (t *tool) value(ctx context.Context, a Arg, args map[string]any) ([]string, error) {
	var v any
	expand := true
	switch a.Source {
	case ArgConstant:
		v = a.Constant
	case ArgDirect:
		x, ok := args[a.Direct]
		if !ok || x == nil {
			return nil, nil
		}
		v = x
		expand = t.arrays[a.Direct]
	case ArgExpression:
		p := t.programs[a.Expression]
		if p == nil {
			return nil, errors.New("expression was not compiled")
		}
		x, err := p.Eval(ctx, map[string]any{"args": args}, expr.Limits{})
		if err != nil {
			return nil, fmt.Errorf("%w", err)
		}
		if x == nil {
			return nil, nil
		}
		v = x
	}
	if arr, ok := v.([]any); ok && expand {
		out := make([]string, 0, len(arr))
		for _, e := range arr {
			out = append(out, scalarText(e))
		}
		return out, nil
	}
	return []string{scalarText(v)}, nil
}

// arrayProps returns the properties of an input schema that are declared type: array (alone
// or among other types).
func arrayProps(schema map[string]any) map[string]bool {
	props, _ := schema["properties"].(map[string]any)
	out := map[string]bool{}
	for name, p := range props {
		ps, _ := p.(map[string]any)
		switch ty := ps["type"].(type) {
		case string:
			out[name] = ty == "array"
		case []any:
			out[name] = slices.Contains(ty, any("array"))
		}
	}
	return out
}

func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return numberText(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case nil:
		return ""
	}
	return jsonText(v)
}

// numberText writes an integer literal as it was sent and any other number as before
// (shortest decimal form of the float64), so 1e3 is still 1000.
func numberText(n json.Number) string {
	if !strings.ContainsAny(string(n), ".eE") {
		return string(n)
	}
	f, err := n.Float64()
	if err != nil {
		return string(n)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// waitDelay bounds how long a call waits for its output after its process has exited: a
// descendant that keeps stdout or stderr open (a background job, a daemon) gets this long to
// finish, and is then killed (proc.Job.Done), after which the call waits this long again
// at most. Output already written is never lost to these bounds: while nothing holds the
// pipes open the call reads to the end.
const waitDelay = 500 * time.Millisecond

// run executes the command in a session of its own, capping output and enforcing the
// timeout. When it returns, the command has exited, and what it started is killed or about
// to be (see proc.Job.Done).
func (b *Backend) run(ctx context.Context, sess backend.Session, t *tool, argv []string, stdin []byte, env []string) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = b.dir
	if t.workdir != "" {
		cmd.Dir = t.workdir
		if !filepath.IsAbs(t.workdir) {
			cmd.Dir = filepath.Join(b.dir, t.workdir)
		}
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
		// Bounds the copy to stdin when something that does not read it keeps it open.
		cmd.WaitDelay = waitDelay
	}
	stdout := &capBuffer{max: t.maxOutput}
	stderr := &tailBuffer{max: stderrTail}
	var errOut io.Writer = stderr
	var lines *lineLogger
	if t.logStderr != "off" {
		lines = &lineLogger{ctx: ctx, sess: sess, level: mcp.LoggingLevel(t.logStderr), logger: b.name + "/" + t.name, scrub: b.scrub}
		errOut = io.MultiWriter(stderr, lines)
	}
	pipes, err := newOutputs(stdout, errOut)
	if err != nil {
		return backend.ErrorResult("cannot start %q: %v", argv[0], err)
	}
	cmd.Stdout, cmd.Stderr = pipes.stdoutW, pipes.stderrW
	start := time.Now()
	job, err := proc.Start(cmd)
	pipes.started()
	if err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return backend.ErrorResult("cannot start %q: %v; check the command is installed and on PATH", argv[0], ee.Err)
		}
		return backend.ErrorResult("cannot start %q: %v", argv[0], err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Progress once a second (the session drops it when the client asked for none).
	tk := time.NewTicker(time.Second)
	defer tk.Stop()
	tick := tk.C
	timedOut, killed := false, false
wait:
	for {
		select {
		case err = <-exited:
			break wait
		case <-tick:
			el := time.Since(start)
			// The total is unknown: a command says nothing of how far it got.
			sess.Progress(ctx, el.Seconds(), 0, fmt.Sprintf("%s running for %s", t.name, el.Round(time.Second)))
		case <-ctx.Done():
			timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
			// Kill the whole process group so children die too; the rest goes in Done.
			_ = job.Kill()
			killed = true
			err = <-exited
			break wait
		}
	}
	pipes.await(ctx, job, killed)
	if lines != nil {
		lines.flush()
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The command exited 0; something it started kept its stdin open.
		err = nil
	}
	if timedOut {
		return backend.ErrorResult("%s timed out after %s and was stopped; make the input smaller or raise the tool's timeout", t.name, t.timeout)
	}
	if ctx.Err() != nil {
		return backend.ErrorResult("%s was cancelled", t.name)
	}
	// Outputs are cut first (max_output, the stderr tail, the excerpt), then scrubbed of the
	// gateway's secrets once, with the edges that were cut.
	data, cut := stdout.snapshot()
	out := cutText(data, cut)
	if err != nil {
		var ee *exec.ExitError
		code := -1
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		msg := fmt.Sprintf("%s failed with exit code %d", t.name, code)
		if tail := strings.TrimSpace(b.scrub.ScrubCut(stderr.text(), stderr.dropped, false)); tail != "" {
			msg += "\nstderr:\n" + tail
		} else if o, excerptCut := cutRunes(out, stderrTail); strings.TrimSpace(o) != "" {
			msg += "\nstdout:\n" + strings.TrimSpace(b.scrub.ScrubCut(o, false, excerptCut || cut > 0))
			if excerptCut {
				msg += "…"
			}
		}
		return backend.ErrorResult("%s", msg)
	}
	if t.outputSchema != nil {
		return b.structuredResult(t, out, cut)
	}
	if res := b.mediaResult(t, data, cut); res != nil {
		return res
	}
	out = b.scrub.ScrubCut(out, false, cut > 0)
	if cut > 0 {
		out += fmt.Sprintf("\n[output truncated: %d more bytes not shown; max_output is %d bytes]", cut, t.maxOutput)
	}
	return backend.TextResult(out)
}

// outputExcerpt is how much of stdout an error about its structure quotes.
const outputExcerpt = 512

// structuredResult returns the output of a tool with an outputSchema: stdout, scrubbed, must
// be one JSON object that matches the schema; it is returned as structuredContent and, for
// clients that read only content, as text. Anything else is an error result that says what
// did not match and quotes the start of what the command printed.
func (b *Backend) structuredResult(t *tool, out string, cut int64) *mcp.CallToolResult {
	fail := func(format string, a ...any) *mcp.CallToolResult {
		msg := fmt.Sprintf("%s declares an outputSchema, so it must print one JSON object that matches it, but ", t.name) + fmt.Sprintf(format, a...)
		excerpt, excerptCut := cutRunes(strings.TrimSpace(out), outputExcerpt)
		if excerpt == "" {
			return backend.ErrorResult("%s; it printed nothing", msg)
		}
		msg += "; it printed:\n" + b.scrub.ScrubCut(excerpt, false, excerptCut || cut > 0)
		if excerptCut || cut > 0 {
			msg += "…"
		}
		return backend.ErrorResult("%s", msg)
	}
	if cut > 0 {
		return fail("its output is longer than max_output (%d bytes), so it cannot be read whole; raise max_output on the tool", t.maxOutput)
	}
	out = b.scrub.Scrub(out)
	trimmed := strings.TrimSpace(out)
	if trimmed == "" {
		return fail("stdout is empty")
	}
	var v any
	d := json.NewDecoder(strings.NewReader(trimmed))
	if err := d.Decode(&v); err != nil {
		return fail("stdout is not JSON (%v)", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return fail("stdout holds more than one JSON value")
	}
	if _, ok := v.(map[string]any); !ok {
		return fail("stdout is a JSON %s, not an object", jsvalue.TypeName(v))
	}
	if err := t.outputSchema.Validate(v); err != nil {
		msg, _ := cutRunes(strings.TrimPrefix(err.Error(), "validating root: "), 600)
		return fail("its output does not match the outputSchema: %s", msg)
	}
	var raw bytes.Buffer
	if err := json.Compact(&raw, []byte(trimmed)); err != nil {
		return fail("stdout is not JSON (%v)", err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: trimmed}},
		StructuredContent: json.RawMessage(raw.Bytes()),
	}
}

// mediaResult returns the result of an output that is not text: an image or audio (sniffed,
// or as the tool's output: declares) as image or audio content, other binary output as an
// embedded blob. It returns nil for text.
func (b *Backend) mediaResult(t *tool, data []byte, cut int64) *mcp.CallToolResult {
	switch t.output {
	case "", backend.OutputAuto:
		mt := backend.SniffMediaType(data)
		if utf8.Valid(data) && !strings.HasPrefix(mt, "image/") && !strings.HasPrefix(mt, "audio/") {
			return nil
		}
	case backend.OutputText:
		if utf8.Valid(data) {
			return nil
		}
	}
	uri := "mcpbridge://" + b.name + "/" + t.name + "/output"
	c, msg := backend.MediaResult([]byte(b.scrub.ScrubCut(string(data), false, cut > 0)), t.output, "", uri)
	if msg != "" {
		return backend.ErrorResult("%s: %s", t.name, msg)
	}
	switch c.(type) {
	case *mcp.ImageContent, *mcp.AudioContent:
		if cut > 0 {
			return backend.ErrorResult("%s: the output is longer than max_output (%d bytes), so it cannot be returned whole; raise max_output on the tool", t.name, t.maxOutput)
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{c}}
}

// outputs reads a command's stdout and stderr through pipes of our own, so that the
// process's exit (cmd.Wait) and the end of its output are seen apart.
type outputs struct {
	stdoutW, stderrW *os.File // the command's ends, closed once it started
	readEnds         []*os.File
	done             chan struct{} // closed when both pipes reached EOF
}

func newOutputs(stdout, stderr io.Writer) (*outputs, error) {
	o := &outputs{done: make(chan struct{})}
	or, ow, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	er, ew, err := os.Pipe()
	if err != nil {
		or.Close()
		ow.Close()
		return nil, err
	}
	o.stdoutW, o.stderrW, o.readEnds = ow, ew, []*os.File{or, er}
	var wg sync.WaitGroup
	for i, w := range []io.Writer{stdout, stderr} {
		wg.Go(func() {
			io.Copy(w, o.readEnds[i])
			o.readEnds[i].Close()
		})
	}
	go func() { wg.Wait(); close(o.done) }()
	return o, nil
}

// started closes our copies of the command's ends of the pipes.
func (o *outputs) started() {
	o.stdoutW.Close()
	o.stderrW.Close()
}

// await waits for the end of the output of a command that has exited. Unless the command
// was killed, what it started gets waitDelay to finish writing; then the job's leftovers
// are killed (job.Done), and the call waits waitDelay more at most, and longer only while no
// process holds a pipe open (the readers are merely late). If something still holds a pipe
// then, the readers go on in the background until it ends, and what they read from then on
// is not reported (the buffers are read with snapshot).
func (o *outputs) await(ctx context.Context, job *proc.Job, killed bool) {
	if !killed {
		grace := time.NewTimer(waitDelay)
		defer grace.Stop()
		select {
		case <-o.done:
		case <-grace.C:
		case <-ctx.Done():
		}
	}
	job.Done()
	deadline := time.NewTimer(waitDelay)
	defer deadline.Stop()
	for {
		select {
		case <-o.done:
			return
		case <-deadline.C:
			if o.held() {
				return
			}
			deadline.Reset(10 * time.Millisecond)
		}
	}
}

// held reports whether some process may still hold a pipe open for writing.
func (o *outputs) held() bool {
	for _, r := range o.readEnds {
		if proc.HasWriters(r) {
			return true
		}
	}
	return false
}

// capBuffer keeps the first max bytes written and counts the rest. It is safe for
// concurrent use: an abandoned reader may still write to it.
type capBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int64
	cut int64
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - int64(c.buf.Len())
	if room >= int64(len(p)) {
		c.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.cut += int64(len(p)) - max(room, 0)
	return len(p), nil
}

// snapshot returns a copy of what was kept and the count of bytes cut.
func (c *capBuffer) snapshot() ([]byte, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes()), c.cut
}

// cutText returns data as text, without a partial UTF-8 sequence at the end when the
// output was cut there.
func cutText(data []byte, cut int64) string {
	s := string(data)
	if cut > 0 {
		// do not split a UTF-8 sequence at the cut
		for len(s) > 0 && !utf8.ValidString(s[len(s)-min(len(s), 3):]) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// tailBuffer keeps the last max bytes written; dropped says whether earlier ones were
// dropped.
type tailBuffer struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.dropped = true
	}
	return len(p), nil
}

func (t *tailBuffer) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), "")
}

// cutRunes returns the first n bytes of s, without a partial UTF-8 sequence at the cut, and
// whether anything was cut.
func cutRunes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

var (
	_ backend.Backend = (*Backend)(nil)
	_ io.Writer       = (*capBuffer)(nil)
)
