package nunjucks

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/tools/jslibs-oracle/oracletest"
)

// genExpr builds a random nunjucks expression from atoms, operators, filters
// and tests, for the randomized differential test.
func genExpr(r *rand.Rand, depth int) string {
	atoms := []string{"n", "f", "neg", "zero", "t", "no", "nil", "missing", "name", "empty", "list", "words", "obj", "user.name",
		"user.tags", "users[0].n", "1", "2", "0", "3.5", "'a'", "'10'", "''", "true", "false", "none", "[1, 2]", "{a: 1}", "'<&>'"}
	if depth <= 0 || r.IntN(3) == 0 {
		return atoms[r.IntN(len(atoms))]
	}
	switch r.IntN(6) {
	case 0, 1:
		ops := []string{"+", "-", "*", "/", "%", "//", "**", "~", "==", "!=", "===", "<", ">", "<=", ">=", "and", "or", "in"}
		return genExpr(r, depth-1) + " " + ops[r.IntN(len(ops))] + " " + genExpr(r, depth-1)
	case 2:
		return []string{"not ", "-", "+"}[r.IntN(3)] + genExpr(r, depth-1)
	case 3:
		filters := []string{"upper", "lower", "length", "default('d')", "d('d', true)", "string", "abs", "first", "last", "join(',')",
			"int", "float", "round", "trim", "capitalize", "title", "reverse", "list", "sort", "dump", "safe", "escape", "wordcount", "sum", "truncate(3)"}
		return "(" + genExpr(r, depth-1) + ") | " + filters[r.IntN(len(filters))]
	case 4:
		return genExpr(r, depth-1) + " if " + genExpr(r, depth-1) + " else " + genExpr(r, depth-1)
	default:
		tests := []string{"defined", "undefined", "none", "number", "string", "odd", "even", "truthy", "iterable", "mapping", "divisibleby(2)"}
		return genExpr(r, depth-1) + " is " + []string{"", "not "}[r.IntN(2)] + tests[r.IntN(len(tests))]
	}
}

func TestDifferentialRandomExpressions(t *testing.T) {
	vars := corpusVars()
	var srcs []string
	for _, seed := range []uint64{1, 7, 41} {
		r := rand.New(rand.NewPCG(seed, seed+1))
		for range 300 {
			srcs = append(srcs, "{{ "+genExpr(r, 4)+" }}")
		}
	}
	cases := make([]oracletest.Case, len(srcs))
	for i, s := range srcs {
		cases[i] = oracletest.Case{Lib: "nunjucks", Op: "render", Args: []any{s, vars}}
	}
	res := oracletest.Run(t, cases)
	agreed, failures := 0, 0
	for i, src := range srcs {
		got, err := Render(src, vars)
		want := res[i]
		if (want.OK && err == nil && (got == want.Value || closeNumbers(got, want.Value))) || (!want.OK && err != nil) {
			agreed++
			continue
		}
		failures++
		if failures <= 25 {
			if want.OK {
				t.Errorf("%s\n got  %q (err %v)\n want %q", src, got, err, want.Value)
			} else {
				t.Errorf("%s\n want error %q, got %q", src, strings.SplitN(want.Error, "\n", 3)[len(strings.SplitN(want.Error, "\n", 3))-1], got)
			}
		}
	}
	oracletest.Report(t, "nunjucks random expressions", agreed, len(srcs))
}

var numberRe = regexp.MustCompile(`-?\d+\.\d+(e[+-]\d+)?|-?\d+e[+-]\d+|-?\d{16,}`)

// closeNumbers accepts last-bit differences of Math.pow between Go and V8:
// the texts must be equal apart from long numbers within 1e-12 of each other.
func closeNumbers(got string, want any) bool {
	w, ok := want.(string)
	if !ok || numberRe.ReplaceAllString(got, "#") != numberRe.ReplaceAllString(w, "#") {
		return false
	}
	gs, ws := numberRe.FindAllString(got, -1), numberRe.FindAllString(w, -1)
	for i := range gs {
		a, b := jsvalue.StringToNumber(gs[i]), jsvalue.StringToNumber(ws[i])
		if a == b {
			continue
		}
		if a != a || b != b || b == 0 {
			return false
		}
		if d := (a - b) / b; d > 1e-12 || d < -1e-12 {
			return false
		}
	}
	return true
}

// genTemplate builds a random template with statements and whitespace control.
func genTemplate(r *rand.Rand, depth int) string {
	var b strings.Builder
	ws := func() string { return []string{"", " ", "\n", "  \n  ", "\t"}[r.IntN(5)] }
	dash := func() string { return []string{"", "-"}[r.IntN(2)] }
	n := r.IntN(4) + 1
	for range n {
		b.WriteString(ws())
		switch k := r.IntN(8); {
		case k < 2 || depth <= 0:
			b.WriteString("{{" + dash() + " " + genExpr(r, 2) + " " + dash() + "}}")
		case k == 2:
			b.WriteString("{%" + dash() + " if " + genExpr(r, 1) + " " + dash() + "%}" + genTemplate(r, depth-1))
			if r.IntN(2) == 0 {
				b.WriteString("{%" + dash() + " elif " + genExpr(r, 1) + " " + dash() + "%}" + genTemplate(r, depth-1))
			}
			if r.IntN(2) == 0 {
				b.WriteString("{%" + dash() + " else " + dash() + "%}" + genTemplate(r, depth-1))
			}
			b.WriteString("{%" + dash() + " endif " + dash() + "%}")
		case k == 3:
			iter := []string{"list", "words", "users", "name", "missing", "[]", "range(3)", "user.tags", "pairs"}[r.IntN(9)]
			b.WriteString("{%" + dash() + " for x in " + iter + " " + dash() + "%}{{ loop.index }}{{ x }}" + genTemplate(r, depth-1))
			if r.IntN(3) == 0 {
				b.WriteString("{% else %}E")
			}
			b.WriteString("{%" + dash() + " endfor " + dash() + "%}")
		case k == 4:
			b.WriteString("{%" + dash() + " for k, v in " + []string{"obj", "user", "pairs", "users"}[r.IntN(4)] + " %}{{ k }}={{ v }}{% if loop.last %}.{% endif %}{% endfor %}")
		case k == 5:
			name := []string{"x", "n", "name", "acc"}[r.IntN(4)]
			b.WriteString("{%" + dash() + " set " + name + " = " + genExpr(r, 1) + " " + dash() + "%}{{ " + name + " }}")
		case k == 6:
			b.WriteString("{# c " + ws() + " #}" + "{#" + dash() + " d " + dash() + "#}")
		default:
			b.WriteString("text" + ws() + "{% raw %}{{ raw }}{% endraw %}")
		}
	}
	b.WriteString(ws())
	return b.String()
}

func TestDifferentialRandomTemplates(t *testing.T) {
	vars := corpusVars()
	var srcs []string
	for _, seed := range []uint64{5, 14, 18} {
		r := rand.New(rand.NewPCG(seed, 3))
		for range 150 {
			srcs = append(srcs, genTemplate(r, 2))
		}
	}
	cases := make([]oracletest.Case, len(srcs))
	for i, s := range srcs {
		cases[i] = oracletest.Case{Lib: "nunjucks", Op: "render", Args: []any{s, vars}}
	}
	res := oracletest.Run(t, cases)
	agreed, failures := 0, 0
	for i, src := range srcs {
		got, err := Render(src, vars)
		want := res[i]
		if (want.OK && err == nil && (got == want.Value || closeNumbers(got, want.Value))) || (!want.OK && err != nil) {
			agreed++
			continue
		}
		failures++
		if failures <= 10 {
			t.Errorf("%q\n got  %q (err %v)\n want %q (err %s)", src, got, err, want.Value, want.Error)
		}
	}
	oracletest.Report(t, "nunjucks random templates", agreed, len(srcs))
}
