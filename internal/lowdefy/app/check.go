package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// Check loads the app in dir and returns a summary for `mcpbridge app check DIR`: the
// pages (id, type, auth), requests (page, id, connection, type), connections (id, type)
// and any warnings. When the app cannot be loaded, summary is empty and problems lists
// what to fix (the command should then exit 1).
func Check(dir string) (summary string, problems []Problem) {
	load := func(d string) (*App, error) { return Load(d, Options{}) }
	if IsBuildDir(dir) {
		load = LoadBuild
	}
	app, err := load(dir)
	if err != nil {
		var le *Error
		if errors.As(err, &le) {
			return "", le.Problems
		}
		return "", []Problem{{Message: err.Error()}}
	}
	return Summary(app), nil
}

// Summary describes a loaded app as aligned text.
func Summary(app *App) string {
	var b strings.Builder
	name := app.Name
	if name == "" {
		name = app.Dir
	}
	fmt.Fprintf(&b, "app %s", name)
	if app.Lowdefy != "" {
		fmt.Fprintf(&b, " (lowdefy %s)", app.Lowdefy)
	}
	b.WriteString("\n")

	fmt.Fprintf(&b, "\npages (%d):\n", len(app.Pages))
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tTYPE\tAUTH")
	nreq := 0
	for _, p := range app.Pages {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", p.ID, p.Type, p.Auth)
		nreq += len(p.Requests)
	}
	tw.Flush()

	fmt.Fprintf(&b, "\nrequests (%d):\n", nreq)
	if nreq > 0 {
		tw = tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  PAGE\tID\tCONNECTION\tTYPE")
		for _, p := range app.Pages {
			for _, r := range p.Requests {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.PageID, r.ID, r.ConnectionID, r.Type)
			}
		}
		tw.Flush()
	}

	fmt.Fprintf(&b, "\nconnections (%d):\n", len(app.Connections))
	if len(app.Connections) > 0 {
		tw = tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  ID\tTYPE")
		for _, c := range app.Connections {
			fmt.Fprintf(tw, "  %s\t%s\n", c.ID, c.Type)
		}
		tw.Flush()
	}

	if len(app.Warnings) > 0 {
		fmt.Fprintf(&b, "\nwarnings (%d):\n", len(app.Warnings))
		for _, w := range app.Warnings {
			fmt.Fprintf(&b, "  %s\n", w)
		}
	}
	return b.String()
}

// String describes page protection: "public", "protected" or "roles: a, b".
func (a PageAuth) String() string {
	switch {
	case a.Public:
		return "public"
	case len(a.Roles) > 0:
		return "roles: " + strings.Join(a.Roles, ", ")
	}
	return "protected"
}

// IsBuildDir reports whether dir holds Lowdefy build artifacts (a .lowdefy/server/build
// folder: config.json and pages/) rather than an app's source (lowdefy.yaml).
func IsBuildDir(dir string) bool {
	for _, f := range []string{"lowdefy.yaml", "lowdefy.yml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return false
		}
	}
	_, errCfg := os.Stat(filepath.Join(dir, "config.json"))
	st, errPages := os.Stat(filepath.Join(dir, "pages"))
	return errCfg == nil && errPages == nil && st.IsDir()
}
