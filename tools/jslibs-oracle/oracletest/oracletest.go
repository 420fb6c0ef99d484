// Package oracletest runs cases through the Node.js oracle in
// tools/jslibs-oracle (the real nunjucks, mingo, moment and change-case npm
// packages) for differential tests. When the oracle is not installed the tests skip
// naming scripts/setup-jslibs-oracle.sh, or fail under MCPBRIDGE_TEST_REQUIRE_ALL=1.
package oracletest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// Case is one call into the oracle: ops[Lib][Op](Args).
type Case struct {
	Lib  string `json:"lib"`
	Op   string `json:"op"`
	Args []any  `json:"args"`
}

// Result is the oracle's answer for one case.
type Result struct {
	OK    bool   `json:"ok"`
	Value any    `json:"value"`
	Error string `json:"error"`
	// Raw is the value's JSON text as the oracle wrote it, keys in JavaScript's order
	// (see DecodeOrdered).
	Raw json.RawMessage `json:"-"`
}

// Dir returns tools/jslibs-oracle, found by walking up to go.mod.
func Dir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "tools", "jslibs-oracle")
		}
		if filepath.Dir(d) == d {
			t.Fatal("oracletest: go.mod not found above the test directory")
		}
	}
}

// Run sends cases to the oracle and returns one result per case.
func Run(t testing.TB, cases []Case) []Result {
	t.Helper()
	dir := Dir(t)
	for _, p := range []string{"node_modules/mingo", "node_modules/moment", "node_modules/change-case", "node_modules/@lowdefy/nunjucks"} {
		testenv.Files(t, "the jslibs oracle", "scripts/setup-jslibs-oracle.sh", filepath.Join(dir, p))
	}
	node := testenv.NodeOnPath(t, "scripts/setup-jslibs-oracle.sh (it runs under node on PATH)")
	in, err := json.Marshal(encode(cases))
	if err != nil {
		t.Fatalf("encoding oracle cases: %v", err)
	}
	cmd := exec.Command(node, filepath.Join(dir, "oracle.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("running jslibs oracle: %v\n%s", err, stderr.String())
	}
	var res []Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("decoding oracle output: %v", err)
	}
	var raw []struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(out, &raw); err != nil || len(raw) != len(res) {
		t.Fatalf("decoding oracle output: %v", err)
	}
	for i := range res {
		res[i].Raw = raw[i].Value
	}
	if len(res) != len(cases) {
		t.Fatalf("oracle returned %d results for %d cases", len(res), len(cases))
	}
	for i := range res {
		res[i].Value = Decode(res[i].Value)
	}
	return res
}

// encode turns time.Time values into {"$date": ms} for the oracle.
func encode(v any) any {
	switch x := v.(type) {
	case time.Time:
		return map[string]any{"$date": x.UnixMilli()}
	case []Case:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = map[string]any{"lib": c.Lib, "op": c.Op, "args": encode(c.Args)}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = encode(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = encode(e)
		}
		return out
	}
	return v
}

// Undefined marks a JavaScript undefined in decoded oracle output.
type Undefined struct{}

// Decode converts oracle markers back: {"$date": ms} → time.Time (UTC),
// {"$undefined": true} → Undefined{}.
func Decode(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = Decode(x[i])
		}
	case map[string]any:
		if len(x) == 1 {
			if ms, ok := x["$date"].(float64); ok {
				return time.UnixMilli(int64(ms)).UTC()
			}
			if x["$undefined"] == true {
				return Undefined{}
			}
			if s, ok := x["$number"].(string); ok {
				return "number:" + s
			}
		}
		for k := range x {
			x[k] = Decode(x[k])
		}
	}
	return v
}

// Report logs an agreement figure "lib: agreed N/M".
func Report(t testing.TB, name string, agreed, total int) {
	t.Helper()
	msg := fmt.Sprintf("%s: differential agreement with the npm oracle %d/%d", name, agreed, total)
	t.Log(msg)
}

// DecodeOrdered decodes a Result's Raw text keeping key order: objects are
// *jsvalue.Object, and the oracle's markers become what Decode makes of them
// (time.Time, Undefined{}, "number:…").
func DecodeOrdered(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	v, err := jsvalue.Decode(raw)
	if err != nil {
		return nil
	}
	return decodeOrderedMarkers(v)
}

func decodeOrderedMarkers(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = decodeOrderedMarkers(x[i])
		}
	case *jsvalue.Object:
		if x.Len() == 1 {
			if ms, ok := x.Prop("$date").(float64); ok {
				return time.UnixMilli(int64(ms)).UTC()
			}
			if x.Prop("$undefined") == true {
				return Undefined{}
			}
			if s, ok := x.Prop("$number").(string); ok {
				return "number:" + s
			}
		}
		for k, e := range x.Range {
			x.Set(k, decodeOrderedMarkers(e))
		}
	}
	return v
}
