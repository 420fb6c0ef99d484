package upstream

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fillExported sets every exported field of the struct v points to a value that is not
// its zero value (a _meta with one key of the caller's and one 2026-07-28 key), and
// returns the names of the fields it set.
func fillExported(t *testing.T, v any) []string {
	t.Helper()
	rv := reflect.ValueOf(v).Elem()
	var names []string
	for i := 0; i < rv.NumField(); i++ {
		f, sf := rv.Field(i), rv.Type().Field(i)
		if !sf.IsExported() {
			continue
		}
		names = append(names, sf.Name)
		switch {
		case sf.Type == reflect.TypeOf(mcp.Meta{}):
			f.Set(reflect.ValueOf(mcp.Meta{"app/key": "kept", mcp.MetaKeyServerInfo: map[string]any{"name": "upstream"}}))
		case sf.Type == reflect.TypeOf(mcp.Cacheable{}):
			f.Set(reflect.ValueOf(mcp.Cacheable{TTLMs: 5, CacheScope: "private"}))
		case sf.Type == reflect.TypeOf(mcp.CompletionResultDetails{}):
			f.Set(reflect.ValueOf(mcp.CompletionResultDetails{Values: []string{"a"}, Total: 1}))
		case sf.Type == reflect.TypeOf(mcp.InputRequestMap{}):
			f.Set(reflect.ValueOf(mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: "m", RequestedSchema: map[string]any{"type": "object"}}}))
		case sf.Type == reflect.TypeOf([]mcp.Content{}):
			f.Set(reflect.ValueOf([]mcp.Content{&mcp.TextContent{Text: "t"}}))
		case sf.Type == reflect.TypeOf([]*mcp.PromptMessage{}):
			f.Set(reflect.ValueOf([]*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "t"}}}))
		case sf.Type == reflect.TypeOf([]*mcp.ResourceContents{}):
			f.Set(reflect.ValueOf([]*mcp.ResourceContents{{URI: "u://x", Text: "t"}}))
		case f.Kind() == reflect.String:
			f.SetString("x")
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		case f.Kind() == reflect.Interface:
			f.Set(reflect.ValueOf(map[string]any{"k": "v"}))
		case f.Kind() == reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case f.Kind() == reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
			f.SetMapIndex(reflect.ValueOf("id"), reflect.Zero(f.Type().Elem()))
		default:
			t.Fatalf("%s.%s: no value for a field of kind %s; teach fillExported", rv.Type().Name(), sf.Name, f.Kind())
		}
	}
	return names
}

// The own*Result copies keep every exported field of a backend's result (the go-sdk may
// grow one) and drop only the hop's protocol fields: the result type a client decoded and
// the 2026-07-28 _meta keys.
func TestOwnResultsKeepEveryField(t *testing.T) {
	for _, c := range []struct {
		in  any
		own func(any) any
	}{
		{&mcp.CallToolResult{}, func(v any) any { return ownToolResult(v.(*mcp.CallToolResult)) }},
		{&mcp.GetPromptResult{}, func(v any) any { return ownPromptResult(v.(*mcp.GetPromptResult)) }},
		{&mcp.ReadResourceResult{}, func(v any) any { return ownReadResult(v.(*mcp.ReadResourceResult)) }},
		{&mcp.CompleteResult{}, func(v any) any { return ownCompleteResult(v.(*mcp.CompleteResult)) }},
	} {
		name := reflect.TypeOf(c.in).Elem().Name()
		fields := fillExported(t, c.in)
		// As the go-sdk client leaves it: decoded from a 2026-07-28 answer with a resultType.
		b, err := json.Marshal(c.in)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(b, &m)
		m["resultType"] = "complete"
		b, _ = json.Marshal(m)
		decoded := reflect.New(reflect.TypeOf(c.in).Elem()).Interface()
		if err := json.Unmarshal(b, decoded); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := c.own(decoded)
		got, want := reflect.ValueOf(out).Elem(), reflect.ValueOf(decoded).Elem()
		for _, f := range fields {
			g, w := got.FieldByName(f).Interface(), want.FieldByName(f).Interface()
			if f == "Meta" {
				w = mcp.Meta{"app/key": "kept"}
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s.%s = %#v, want %#v", name, f, g, w)
			}
		}
		js, _ := json.Marshal(out)
		if strings.Contains(string(js), "resultType") || strings.Contains(string(js), mcp.MetaKeyServerInfo) {
			t.Errorf("%s keeps its hop's protocol fields: %s", name, js)
		}
	}
}
