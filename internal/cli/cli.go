// Package cli implements the mcpbridge command: serve, stdio, check, tools, call, cid, app,
// import and version. Main returns the process exit code.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/mcpbridge/mcpbridge/internal/proc"
)

// Version is the mcpbridge version, set at build time with -ldflags "-X ...cli.Version=v1.2.3".
var Version = ""

// version returns Version, or the module version the binary was built from.
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// env is what a command runs with; tests substitute the streams.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// errUsage means the command line was wrong; the message has been printed already.
var errUsage = errors.New("usage")

// exitError carries a specific exit code.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "serve every configured server over HTTP", runServe},
		{"stdio", "serve one server over stdio (for desktop clients)", runStdio},
		{"check", "validate a config file and exit", runCheck},
		{"tools", "list a server's tools and their arguments (tools SERVER)", runTools},
		{"call", "call one tool and print the result (call SERVER TOOL NAME=VALUE...)", runCall},
		{"cid", "manage content-addressed resources (cid add FILE)", runCID},
		{"keys", "manage API keys (keys create, list, revoke, hash)", runKeys},
		{"audit", "print the audit log of tool calls (audit tail [--follow])", runAudit},
		{"app", "serve one Lowdefy app (app DIR); app check, app eval, app run", runApp},
		{"import", "generate server definitions (import openapi SPEC)", runImport},
		{"version", "print the version", runVersion},
	}
}

// Main runs the mcpbridge command with os.Args and returns the exit code.
func Main() int {
	if len(os.Args) > 1 && slices.Contains([]string{"serve", "stdio", "call", "tools"}, os.Args[1]) {
		// The gateway runs commands: keep its secrets out of what they can read. This
		// re-executes the binary, so it comes before anything else.
		if err := proc.HideEnv(isSecretEnv); err != nil {
			fmt.Fprintf(os.Stderr, "mcpbridge %s: %v\n", os.Args[1], err)
			return 1
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run runs the mcpbridge command with args and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, e, args[1:])
			var ee exitError
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				return 2
			case errors.As(err, &ee):
				return ee.code
			}
			fmt.Fprintf(stderr, "mcpbridge %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "mcpbridge: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "mcpbridge exposes local commands, HTTP APIs, other MCP servers and Lowdefy apps to AI")
	fmt.Fprintln(w, "agents over MCP (server kinds: command, http, mcp, lowdefy).")
	fmt.Fprintln(w, "\nUsage: mcpbridge COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'mcpbridge COMMAND -h' for a command's flags.")
}

// newFlags returns a flag set that prints its usage to e.stderr.
func newFlags(e *env, name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: mcpbridge %s %s\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// usageError says what is wrong with a command's arguments (the first of pos, for a command
// that takes none, else problem), prints the command's usage and returns errUsage.
func usageError(e *env, fs *flag.FlagSet, pos []string, problem string) error {
	if len(pos) > 0 {
		fmt.Fprintf(e.stderr, "mcpbridge %s: unexpected argument %q\n", fs.Name(), pos[0])
	} else {
		fmt.Fprintf(e.stderr, "mcpbridge %s: %s\n", fs.Name(), problem)
	}
	fs.Usage()
	return errUsage
}

// parse parses flags, allowing flags after positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseN is parse for a command that takes exactly n positional arguments:
// any other count prints the usage and returns errUsage.
func parseN(fs *flag.FlagSet, args []string, n int) ([]string, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != n {
		fs.Usage()
		return nil, errUsage
	}
	return pos, nil
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, fmt.Errorf("--log-level: want debug, info, warn or error, got %q", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

func runVersion(ctx context.Context, e *env, args []string) error {
	fmt.Fprintf(e.stdout, "mcpbridge %s\n", version())
	return nil
}
