package expr

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// TestOrderedObjectVariables checks that a *jsvalue.Object variable reaches the script
// with its keys in order (array indices first, then insertion order), nested objects too,
// and that jsvalue.Undefined is undefined.
func TestOrderedObjectVariables(t *testing.T) {
	p, err := Compile("keys", `JSON.stringify([Object.keys(o), Object.keys(o.nested), typeof u, o.missing === undefined])`)
	if err != nil {
		t.Fatal(err)
	}
	o := jsvalue.ObjectOf("zeta", 1.0, "alpha", 2.0, "10", 3.0, "2", 4.0, "nested", jsvalue.ObjectOf("y", true, "x", []any{jsvalue.ObjectOf("b", 1, "a", 2)}))
	got, err := p.Eval(context.Background(), map[string]any{"o": o, "u": jsvalue.Undefined}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[["2","10","zeta","alpha","nested"],["y","x"],"undefined",true]`; got != want {
		t.Errorf("got %v, want %s", got, want)
	}
	// A nil object is null; a bad value inside an object is reported with its path.
	p2, _ := Compile("null", `o === null`)
	if got, err := p2.Eval(context.Background(), map[string]any{"o": (*jsvalue.Object)(nil)}, Limits{}); err != nil || got != true {
		t.Errorf("nil object: %v, %v", got, err)
	}
	_, err = p2.Eval(context.Background(), map[string]any{"o": jsvalue.ObjectOf("bad", make(chan int))}, Limits{})
	if err == nil || err.Error() == "" {
		t.Fatal("unsupported value inside an object was accepted")
	}
	if want := "variable o.bad has unsupported Go type chan int"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}
