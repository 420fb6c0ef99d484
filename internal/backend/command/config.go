package command

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/expr"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

func init() {
	backend.Register(backend.Kind{
		Name:         "command",
		ServerFields: append(backend.FieldsOf(serverSection{}), transform.Fields...),
		ToolFields:   backend.FieldsOf(toolSection{}),
		Decode:       decode,
	})
}

// serverSection is the command kind's part of a server definition. Its argv and env are
// used with auto_discover (one tool named like the server that runs argv with the caller's
// extra arguments appended) and by the tools a tools_transform generates in the seed's
// minimal shape (name, description, inputSchema), which run argv the same way.
type serverSection struct {
	AutoDiscover bool `yaml:"auto_discover"`
	// Discover is a command run (without a shell, under the rules of the kind) before the
	// transforms; its output is in their context as discovery.
	Discover []string       `yaml:"discover"`
	Argv     []Arg          `yaml:"argv"`
	Env      map[string]Arg `yaml:"env"`
	Workdir  string         `yaml:"workdir"`
	Timeout  time.Duration  `yaml:"timeout"`
	// AllowOptions lets the auto_discover tool's args start with "-".
	AllowOptions bool `yaml:"allow_options"`
}

// toolSection is the command kind's part of a tool definition.
type toolSection struct {
	Argv      []Arg          `yaml:"argv"`
	Stdin     *Arg           `yaml:"stdin"`
	Env       map[string]Arg `yaml:"env"`
	Workdir   string         `yaml:"workdir"`
	Timeout   time.Duration  `yaml:"timeout"`
	MaxOutput int64          `yaml:"max_output"`
	// Output declares what stdout is: auto (sniffed, the default), text, image, audio,
	// binary, or a MIME type.
	Output string `yaml:"output"`
	// LogStderr is the level at which stderr lines are sent to the client as log
	// notifications (info by default), or off.
	LogStderr string `yaml:"log_stderr"`
}

// spec is a decoded and checked command server, ready to open.
type spec struct {
	server *config.Server
	conf   serverSection
	tools  map[string]toolSection
	// programs are the compiled {expression: ...} elements, by source.
	programs map[string]*expr.Program
	// refs name the transforms of the server.
	refs transform.Refs
}

// logLevels are the MCP log levels.
var logLevels = map[string]bool{"debug": true, "info": true, "notice": true, "warning": true, "error": true, "critical": true, "alert": true, "emergency": true}

var envName = lazy.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}

func decode(s *config.Server) (backend.Spec, config.Problems) {
	sp := &spec{server: s, tools: map[string]toolSection{}, programs: map[string]*expr.Program{}}
	refs, rest, ps := transform.Decode(s.Section, "tools", "resources", "prompts")
	sp.refs = refs
	ps = append(ps, rest.Decode(&sp.conf)...)
	sec := s.Section
	usesArgv := sp.conf.AutoDiscover || refs.Tools != ""
	if len(sp.conf.Discover) > 0 {
		if refs.Empty() {
			ps = append(ps, sec.Problem("discover", "discover is only used with a transform (tools_transform, resources_transform or prompts_transform): its output is in their context"))
		}
		if sp.conf.Discover[0] == "" {
			ps = append(ps, sec.Problem("discover[0]", "empty program"))
		} else {
			ps = append(ps, checkDiscover(sec, sp.conf.Discover[0])...)
		}
	}
	if sp.conf.AutoDiscover {
		if len(sp.conf.Argv) == 0 {
			ps = append(ps, sec.Problem("argv", "auto_discover needs a server-level argv (the command to run)"))
		} else if _, clash := s.Tools[s.Name]; clash {
			ps = append(ps, sec.Problem("tools."+s.Name, "tool %q clashes with the tool auto_discover creates; rename it", s.Name))
		}
	} else if len(sp.conf.Argv) > 0 && !usesArgv {
		ps = append(ps, sec.Problem("argv", "a server-level argv is only used with auto_discover: true or by the tools of a tools_transform"))
	}
	if sp.conf.AllowOptions && !usesArgv {
		ps = append(ps, sec.Problem("allow_options", "a server-level allow_options is only used with auto_discover: true or a tools_transform; put allow_options: true on a tool's argument instead"))
	}
	if len(sp.conf.Argv) > 0 {
		ps = append(ps, checkProgram(sec, sp.conf.Argv[0])...)
	}
	for i, a := range sp.conf.Argv {
		ps = append(ps, sp.checkArg(sec, fmt.Sprintf("argv[%d]", i), a, nil)...)
	}
	for _, k := range slices.Sorted(maps.Keys(sp.conf.Env)) {
		ps = append(ps, sp.checkEnv(sec, k, sp.conf.Env[k], nil)...)
	}
	for _, name := range s.ToolNames() {
		t := s.Tools[name]
		if t == nil {
			continue
		}
		var ts toolSection
		tsec := t.Section
		ps = append(ps, tsec.Decode(&ts)...)
		if len(ts.Argv) == 0 {
			ps = append(ps, tsec.Problem("argv", "missing argv: the command and its arguments, e.g. [echo, {direct: message}]"))
		} else {
			ps = append(ps, checkProgram(tsec, ts.Argv[0])...)
		}
		props := config.SchemaProperties(t.InputSchema)
		for i, a := range ts.Argv {
			ps = append(ps, sp.checkArg(tsec, fmt.Sprintf("argv[%d]", i), a, props)...)
		}
		if ts.Stdin != nil {
			ps = append(ps, sp.checkArg(tsec, "stdin", *ts.Stdin, props)...)
			if ts.Stdin.AllowOptions {
				ps = append(ps, tsec.Problem("stdin.allow_options", "allow_options only applies to argv"))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(ts.Env)) {
			ps = append(ps, sp.checkEnv(tsec, k, ts.Env[k], props)...)
			if ts.Env[k].AllowOptions {
				ps = append(ps, tsec.Problem("env."+k+".allow_options", "allow_options only applies to argv"))
			}
		}
		if strings.Contains(ts.Workdir, "\x00") {
			ps = append(ps, tsec.Problem("workdir", "invalid path"))
		}
		if ts.MaxOutput < 0 {
			ps = append(ps, tsec.Problem("max_output", "must not be negative"))
		}
		if msg := backend.CheckOutput(ts.Output); msg != "" {
			ps = append(ps, tsec.Problem("output", "%s", msg))
		}
		if t.OutputSchema != nil && ts.Output != "" && ts.Output != backend.OutputAuto && ts.Output != backend.OutputText && ts.Output != "application/json" {
			ps = append(ps, tsec.Problem("output", "output %q cannot go with outputSchema: a tool with an outputSchema prints one JSON object matching it; remove output or the outputSchema", ts.Output))
		}
		if ts.LogStderr != "" && ts.LogStderr != "off" && !logLevels[ts.LogStderr] {
			ps = append(ps, tsec.Problem("log_stderr", "log_stderr %q is neither off nor a log level (debug, info, notice, warning, error, critical, alert, emergency)", ts.LogStderr))
		}
		sp.tools[name] = ts
	}
	return sp, ps
}

func (sp *spec) checkEnv(sec config.Section, k string, a Arg, props map[string]any) config.Problems {
	var ps config.Problems
	if !envName.Get().MatchString(k) {
		ps = append(ps, sec.Problem("env."+k, "not a valid environment variable name"))
	}
	return append(ps, sp.checkArg(sec, "env."+k, a, props)...)
}

// checkArg checks one argv, stdin or env element: a direct argument must be a property of
// the input schema (when props is not nil), an expression must compile; it is compiled once
// here and kept for the backend.
func (sp *spec) checkArg(sec config.Section, path string, a Arg, props map[string]any) config.Problems {
	switch a.Source {
	case ArgDirect:
		if props != nil {
			if _, ok := props[a.Direct]; !ok {
				return config.Problems{sec.Problem(path+".direct", "argument %q is not a property of inputSchema", a.Direct)}
			}
		}
	case ArgExpression:
		if sp.programs[a.Expression] != nil {
			return nil
		}
		p, err := expr.Compile(config.JoinPath(sec.Path, path), a.Expression)
		if err != nil {
			return config.Problems{sec.Problem(path+".expression", "%s", expr.Problem(err))}
		}
		sp.programs[a.Expression] = p
	}
	return nil
}

// checkDiscover warns when the discovery program is not found, as checkProgram.
func checkDiscover(sec config.Section, name string) config.Problems {
	ps := checkProgram(sec, Arg{Source: ArgConstant, Constant: name})
	for i := range ps {
		ps[i] = sec.Warning("discover[0]", "%s", strings.Replace(ps[i].Msg, "the tool will fail", "discovery will fail", 1))
	}
	return ps
}

// checkProgram warns when a constant program is not found: on PATH for a bare name, on disk
// for a path. The tool would fail at call time, but the program may be installed later, so
// it is a warning, not a problem.
func checkProgram(sec config.Section, a Arg) config.Problems {
	name, ok := a.Constant.(string)
	if a.Source != ArgConstant || !ok || name == "" {
		return nil
	}
	if strings.ContainsRune(name, '/') {
		if _, err := os.Stat(name); err != nil && filepath.IsAbs(name) {
			return config.Problems{sec.Warning("argv[0]", "the program %s does not exist; the tool will fail until it does", name)}
		}
		return nil
	}
	if _, err := exec.LookPath(name); err != nil {
		return config.Problems{sec.Warning("argv[0]", "the program %q is not on PATH; the tool will fail until it is installed", name)}
	}
	return nil
}
