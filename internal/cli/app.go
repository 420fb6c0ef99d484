package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/operators"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/runtime"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/server"
)

func runApp(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "Usage: mcpbridge app DIR [--http [--listen ADDR]] [--build] [--watch] [flags] | mcpbridge app eval [flags] EXPR_JSON | mcpbridge app check DIR | mcpbridge app run DIR --script FILE.json [--user JSON]")
		fmt.Fprintln(e.stderr, "Run 'mcpbridge app -h' for the flags of serving an app.")
		return errUsage
	}
	switch args[0] {
	case "eval":
		return runAppEval(ctx, e, args[1:])
	case "check":
		return runAppCheck(e, args[1:])
	case "run":
		return runAppRun(ctx, e, args[1:])
	}
	// Anything else is `mcpbridge app DIR [flags]`: serve the app.
	return runAppServe(ctx, e, args)
}

// jsonFlag is a flag holding a JSON document.
type jsonFlag struct{ raw json.RawMessage }

func (j *jsonFlag) String() string { return string(j.raw) }

func (j *jsonFlag) Set(s string) error {
	if !json.Valid([]byte(s)) {
		return fmt.Errorf("not valid JSON: %s", s)
	}
	j.raw = json.RawMessage(s)
	return nil
}

// runAppEval evaluates a Lowdefy operator expression and prints {"value": …, "errors": […]}.
func runAppEval(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "app eval", "[--server] [--state JSON] [--payload JSON] [--user JSON] [--secrets JSON] [--global JSON] [--input JSON] EXPR_JSON")
	server := fs.Bool("server", false, "use the server parser (with _secret and _payload; without _state)")
	var state, payload, user, secrets, global, input, urlQuery, event jsonFlag
	fs.Var(&state, "state", "page state (JSON object)")
	fs.Var(&payload, "payload", "request payload (JSON object, server parser)")
	fs.Var(&user, "user", "the user (JSON object)")
	fs.Var(&secrets, "secrets", "secrets (JSON object, server parser)")
	fs.Var(&global, "global", "the app's global (JSON object)")
	fs.Var(&input, "input", "page input (JSON object)")
	fs.Var(&urlQuery, "url-query", "URL query (JSON object)")
	fs.Var(&event, "event", "the event (JSON object)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	if !json.Valid([]byte(pos[0])) {
		return fmt.Errorf("EXPR_JSON is not valid JSON: %s (quote it for the shell, e.g. '{\"_sum\": [1, 2]}')", pos[0])
	}
	value, errs := operators.EvalJSON(ctx, *server, operators.EvalInputs{
		State: state.raw, Payload: payload.raw, User: user.raw, Secrets: secrets.raw,
		Global: global.raw, Input: input.raw, URLQuery: urlQuery.raw, Event: event.raw,
	}, []byte(pos[0]))
	if errs == nil {
		errs = []string{}
	}
	out, err := json.Marshal(map[string]any{"value": value, "errors": errs})
	if err != nil {
		return fmt.Errorf("encoding the result: %w", err)
	}
	fmt.Fprintln(e.stdout, string(out))
	return nil
}

// runAppCheck loads a Lowdefy app and prints its pages, requests and connections, or the
// problems found (exit 1).
func runAppCheck(e *env, args []string) error {
	fs := newFlags(e, "app check", "DIR")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	summary, problems := app.Check(pos[0])
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(e.stderr, p.String())
		}
		return exitError{1}
	}
	fmt.Fprint(e.stdout, strings.TrimRight(summary, "\n")+"\n")
	if a, err := loadAppDir(pos[0]); err == nil {
		// What the app uses that mcpbridge does not run (plugin blocks, actions, operators,
		// connection and request types), each with its file:line:col.
		if ps := runtime.Unsupported(a); len(ps) > 0 {
			fmt.Fprintf(e.stdout, "\nnot run by mcpbridge (%d):\n", len(ps))
			for _, p := range ps {
				fmt.Fprintf(e.stdout, "  %s\n", p)
			}
		}
		// Lowdefy runs with a secret that is not provided, and every request needing it
		// fails: say which LOWDEFY_SECRET_* variables the app reads that this environment
		// lacks.
		env := server.SecretsFromEnv(os.Environ())
		warned := map[string]bool{}
		for _, r := range a.SecretRefs() {
			if _, ok := env[r.Name]; ok || warned[r.Name] {
				continue
			}
			warned[r.Name] = true
			fmt.Fprintf(e.stderr, "warning: the app reads _secret %s (%s), which is not set: set %s%s (Lowdefy runs without it, but requests that need it fail)\n", r.Name, r.Where, lowdefySecretEnv, r.Name)
		}
	}
	return nil
}
