// Package internal_test checks the architecture's nevers (DESIGN.md, "Nevers are a test")
// against the import graph that `go list -deps` reports for the packages of the binary
// (test files are not part of it).
package internal_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpbridge/mcpbridge"

// A never forbids the packages matching from to import, directly or indirectly, any package
// matching one of banned. Patterns are import paths, relative to the module when they start
// with internal/; "x/..." matches x and every package below it.
type never struct {
	from   string
	banned []string
	why    string
}

var nevers = []never{
	{
		from:   "internal/lowdefy/...",
		banned: []string{"internal/gateway/...", "internal/backend/...", "internal/store/...", "github.com/modelcontextprotocol/go-sdk/..."},
		why:    "the Lowdefy runtime is headless and knows nothing of MCP; internal/backend/lowdefy connects it to the gateway and the store",
	},
	{
		from:   "internal/store/...",
		banned: []string{"internal/gateway/..."},
		why:    "the store serves the gateway, never the other way round",
	},
}

// A leaf imports no package of the module outside its own tree but the leaves it names
// (uses), unless an allowance below lets it. An optional leaf may not exist yet; its rule
// holds from the day it does.
type leaf struct {
	tree     string
	uses     []string
	optional bool
}

var leaves = []leaf{
	// admission decides whether a request may run now; who the caller is stays the gateway's.
	{tree: "internal/admission/...", uses: []string{"internal/config"}},
	// the admin API reaches the served servers only through the gateway's adminapi.Servers.
	{tree: "internal/adminapi/...", uses: []string{"internal/auth", "internal/config", "internal/store"}},
	{tree: "internal/config/...", uses: []string{"internal/lazy"}},
	// the REST routes reach the servers only through the gateway's restapi.Servers.
	{tree: "internal/restapi/...", uses: []string{"internal/admission", "internal/auth"}},
	// expr converts JavaScript values into the value model, and only into it.
	{tree: "internal/expr/...", uses: []string{"internal/jsvalue", "internal/lazy"}},
	{tree: "internal/jsvalue/..."}, // the JavaScript value model
	{tree: "internal/lazy/..."},    // values built on first use
}

// An allowance lets the packages of a leaf matching from import the packages matching to,
// for a reason that has an end. An allowance that no import uses fails TestLeaves, so it is
// deleted in the change that removes its import.
type allowance struct{ from, to, why string }

var allowances = []allowance{}

func TestNevers(t *testing.T) {
	g := loadGraph(t)
	for _, n := range nevers {
		t.Run(n.from, func(t *testing.T) {
			from := g.matching(n.from)
			if len(from) == 0 {
				t.Fatalf("no package matches %s: update the rule", n.from)
			}
			inFrom := func(p string) bool { return match(n.from, p) }
			isBanned := func(p string) bool {
				return slices.ContainsFunc(n.banned, func(b string) bool { return match(b, p) })
			}
			for _, p := range from {
				for _, chain := range g.chains(p, inFrom, isBanned) {
					t.Errorf("%s must not import %s (%s):\n\t%s", short(p), short(chain[len(chain)-1]), n.why, strings.Join(shortAll(chain), " → "))
				}
			}
		})
	}
}

func TestLeaves(t *testing.T) {
	g := loadGraph(t)
	for _, l := range leaves {
		t.Run(l.tree, func(t *testing.T) {
			pkgs := g.matching(l.tree)
			if len(pkgs) == 0 {
				if l.optional {
					t.Skipf("no package matches %s yet", l.tree)
				}
				t.Fatalf("no package matches %s: update the rule", l.tree)
			}
			for _, p := range pkgs {
				for _, imp := range g.imports[p] {
					if !inModule(imp) || match(l.tree, imp) || slices.ContainsFunc(l.uses, func(u string) bool { return match(u, imp) }) || allowed(p, imp) {
						continue
					}
					t.Errorf("%s is a leaf and must not import %s, a package of this module:\n\t%s → %s", short(p), short(imp), short(p), short(imp))
				}
			}
		})
	}
	for _, a := range allowances {
		used := false
		for _, p := range g.matching(a.from) {
			used = used || slices.ContainsFunc(g.imports[p], func(imp string) bool { return match(a.to, imp) })
		}
		if !used {
			t.Errorf("allowance %s → %s (%s) is no longer needed: delete its line in allowances", a.from, a.to, a.why)
		}
	}
}

// allowed reports whether an allowance lets p import imp.
func allowed(p, imp string) bool {
	return slices.ContainsFunc(allowances, func(a allowance) bool { return match(a.from, p) && match(a.to, imp) })
}

// graph is the import graph of the module's packages and everything they depend on.
type graph struct {
	imports map[string][]string // import path → its direct imports
	order   []string            // every package, in go list order
}

func loadGraph(t *testing.T) *graph {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.Bytes())
	}
	g := &graph{imports: map[string][]string{}}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		g.imports[p.ImportPath] = p.Imports
		g.order = append(g.order, p.ImportPath)
	}
	return g
}

// matching returns the packages that match pattern.
func (g *graph) matching(pattern string) []string {
	var ps []string
	for _, p := range g.order {
		if match(pattern, p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// chains returns, for each package matching target that p reaches, the shortest import chain
// from p to it that leaves the packages of inside at its first step (so a violation is
// reported once, by the package that brings it in). Chains do not pass through targets.
func (g *graph) chains(p string, inside, target func(string) bool) [][]string {
	parent := map[string]string{}
	var queue []string
	for _, imp := range g.imports[p] {
		if !inside(imp) {
			if _, seen := parent[imp]; !seen {
				parent[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	var found [][]string
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		if target(q) {
			chain := []string{q}
			for x := q; x != p; {
				x = parent[x]
				chain = append(chain, x)
			}
			slices.Reverse(chain)
			found = append(found, chain)
			continue
		}
		for _, imp := range g.imports[q] {
			if _, seen := parent[imp]; !seen && imp != p {
				parent[imp] = q
				queue = append(queue, imp)
			}
		}
	}
	return found
}

// match reports whether the import path p matches pattern.
func match(pattern, p string) bool {
	if strings.HasPrefix(pattern, "internal/") {
		pattern = module + "/" + pattern
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
}

func inModule(p string) bool { return p == module || strings.HasPrefix(p, module+"/") }

func short(p string) string { return strings.TrimPrefix(p, module+"/") }

func shortAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = short(p)
	}
	return out
}
