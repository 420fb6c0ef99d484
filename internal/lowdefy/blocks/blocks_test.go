package blocks

import (
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func TestLookup(t *testing.T) {
	cases := []struct {
		typ       string
		cat       Category
		valueType string
	}{
		{"TextInput", Input, "string"}, {"NumberInput", Input, "number"}, {"Switch", Input, "boolean"},
		{"DateSelector", Input, "date"}, {"MultipleSelector", Input, "array"}, {"Selector", Input, "any"},
		{"Pagination", Input, "object"}, {"ControlledList", List, "array"}, {"TimelineList", List, ""},
		{"List", List, "array"}, {"Box", Container, ""}, {"PageHeaderMenu", Container, ""},
		{"Button", Display, ""}, {"Markdown", Container, ""}, {"EChart", Display, ""},
		{"AgGridInputMaterial", Input, "array"}, {"Spinner", Display, ""}, {"S3UploadButton", Input, "object"},
	}
	for _, c := range cases {
		m, ok := Lookup(c.typ)
		if !ok || m.Category != c.cat || m.ValueType != c.valueType {
			t.Errorf("Lookup(%q) = %+v, %v; want %s %q", c.typ, m, ok, c.cat, c.valueType)
		}
	}
	if _, ok := Lookup("NoSuchBlock"); ok {
		t.Error("Lookup of an unknown type succeeded")
	}
	if n := len(Types()); n != 96 {
		t.Errorf("%d default types, want 96 (95 of defaultTypesMap plus AgGridInputMaterial)", n)
	}
	if !mustLookup(t, "ControlledList").HasMethod("pushItem") || mustLookup(t, "TimelineList").HasMethod("pushItem") {
		t.Error("list methods: ControlledList has pushItem, TimelineList has none")
	}
	if g := Guess("MyCustom", true); g.Category != Container {
		t.Errorf("Guess with areas = %s, want container", g.Category)
	}
	if g := Guess("MyCustom", false); g.Category != Display {
		t.Errorf("Guess without areas = %s, want display", g.Category)
	}
}

func mustLookup(t *testing.T, typ string) Meta {
	m, ok := Lookup(typ)
	if !ok {
		t.Fatalf("no %s", typ)
	}
	return m
}

func TestInitValue(t *testing.T) {
	p := mustLookup(t, "Pagination").InitValue().(*jsvalue.Object)
	if p.String() != `{"current":0,"pageSize":10,"skip":0}` {
		t.Errorf("Pagination init = %s", p)
	}
	p.Set("current", 3.0)
	if mustLookup(t, "Pagination").InitValue().(*jsvalue.Object).Prop("current") != 0.0 {
		t.Error("InitValue returned a shared object")
	}
	if v := mustLookup(t, "Switch").InitValue(); v != false {
		t.Errorf("Switch init = %v, want false", v)
	}
	if v, ok := mustLookup(t, "CheckboxSelector").InitValue().([]any); !ok || len(v) != 0 {
		t.Errorf("CheckboxSelector init = %v, want []", v)
	}
	if v := mustLookup(t, "TextInput").InitValue(); v != nil {
		t.Errorf("TextInput init = %v, want null", v)
	}
}

func TestEnforceType(t *testing.T) {
	now := time.UnixMilli(1700000000000).UTC()
	cases := []struct {
		typ  string
		in   any
		want any
	}{
		{"string", "a", "a"}, {"string", "", nil}, {"string", 1.0, nil},
		{"number", "12", nil}, {"number", 12.0, 12.0},
		{"boolean", "true", false}, {"boolean", true, true},
		{"date", "2023-01-01", nil}, {"date", now, now},
		{"any", jsvalue.Undefined, nil}, {"any", "x", "x"},
		{"object", []any{}, nil}, {"primitive", true, true}, {"primitive", "", nil},
		{"", "x", nil},
	}
	for _, c := range cases {
		if got := EnforceType(c.typ, c.in); !jsvalue.DeepEqual(got, c.want) {
			t.Errorf("EnforceType(%q, %v) = %v, want %v", c.typ, c.in, got, c.want)
		}
	}
	if a, ok := EnforceType("array", "x").([]any); !ok || len(a) != 0 {
		t.Errorf("EnforceType(array, x) = %v, want []", a)
	}
}
