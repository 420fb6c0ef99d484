package lowdefytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Diff is the first difference between two journeys.
type Diff struct {
	// Step is the 1-based step whose lines differ (0 when only the number of lines differs).
	Step int
	// Path locates the difference in the step line, e.g. `state.ticket_title`,
	// `requests.get_products.response.data.products[3]`, or `state{keys}` when the same keys
	// come in another order.
	Path string
	// Want and Got are the differing values as JSON (or the key lists for an order difference).
	Want, Got string
}

func (d *Diff) String() string {
	if d == nil {
		return "no difference"
	}
	if d.Step == 0 {
		return fmt.Sprintf("%s: want %s, got %s", d.Path, d.Want, d.Got)
	}
	return fmt.Sprintf("step %d: %s: want %s, got %s", d.Step, d.Path, d.Want, d.Got)
}

// CompareOptions tune Compare.
type CompareOptions struct {
	// Ignore reports paths (as in Diff.Path, without the step) whose values are not compared,
	// such as a request's response time; nil compares everything.
	Ignore func(path string) bool
}

// Compare compares the step lines of two runs of a journey (want: the oracle) and returns
// the first difference, or nil. Objects compare with their key order; numbers by value.
func Compare(want, got []json.RawMessage, opts ...CompareOptions) *Diff {
	var o CompareOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	for i := 0; i < len(want) && i < len(got); i++ {
		w, err := parseOrdered(want[i])
		if err != nil {
			return &Diff{Step: i + 1, Path: "(want line)", Want: err.Error(), Got: string(got[i])}
		}
		g, err := parseOrdered(got[i])
		if err != nil {
			return &Diff{Step: i + 1, Path: "(got line)", Want: string(want[i]), Got: err.Error()}
		}
		if d := diffValues("", w, g, o); d != nil {
			d.Step = i + 1
			return d
		}
	}
	if len(want) != len(got) {
		return &Diff{Path: "number of steps", Want: strconv.Itoa(len(want)), Got: strconv.Itoa(len(got))}
	}
	return nil
}

// ordered JSON values: nil, bool, json.Number, string, []any, *object.
type object struct {
	keys []string
	vals map[string]any
}

func parseOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
	}
	return tok, nil
}

func joinPath(base, key string) string {
	simple := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			simple = false
			break
		}
	}
	if !simple {
		key = strconv.Quote(key)
	}
	if base == "" {
		return key
	}
	return base + "." + key
}

func show(v any) string {
	var b strings.Builder
	writeValue(&b, v)
	s := b.String()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func writeValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case *object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeValue(b, x.vals[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	case string:
		b.WriteString(strconv.Quote(x))
	default:
		fmt.Fprint(b, x)
	}
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case *object:
		return "object"
	}
	return "?"
}

func diffValues(path string, w, g any, o CompareOptions) *Diff {
	if o.Ignore != nil && path != "" && o.Ignore(path) {
		return nil
	}
	if kind(w) != kind(g) {
		return &Diff{Path: pathOrRoot(path), Want: show(w), Got: show(g)}
	}
	switch wv := w.(type) {
	case *object:
		gv := g.(*object)
		for _, k := range wv.keys {
			gval, ok := gv.vals[k]
			if !ok {
				if o.Ignore != nil && o.Ignore(joinPath(path, k)) {
					continue
				}
				return &Diff{Path: joinPath(path, k), Want: show(wv.vals[k]), Got: "(missing)"}
			}
			if d := diffValues(joinPath(path, k), wv.vals[k], gval, o); d != nil {
				return d
			}
		}
		for _, k := range gv.keys {
			if _, ok := wv.vals[k]; !ok {
				if o.Ignore != nil && o.Ignore(joinPath(path, k)) {
					continue
				}
				return &Diff{Path: joinPath(path, k), Want: "(missing)", Got: show(gv.vals[k])}
			}
		}
		wk, gk := filterKeys(path, wv.keys, o), filterKeys(path, gv.keys, o)
		if strings.Join(wk, "\x00") != strings.Join(gk, "\x00") {
			return &Diff{Path: pathOrRoot(path) + "{keys}", Want: show(toAny(wk)), Got: show(toAny(gk))}
		}
	case []any:
		gv := g.([]any)
		for i := 0; i < len(wv) && i < len(gv); i++ {
			if d := diffValues(fmt.Sprintf("%s[%d]", path, i), wv[i], gv[i], o); d != nil {
				return d
			}
		}
		if len(wv) != len(gv) {
			return &Diff{Path: pathOrRoot(path) + ".length", Want: strconv.Itoa(len(wv)), Got: strconv.Itoa(len(gv))}
		}
	case json.Number:
		wf, err1 := wv.Float64()
		gf, err2 := g.(json.Number).Float64()
		if err1 != nil || err2 != nil || !(wf == gf || math.IsNaN(wf) && math.IsNaN(gf)) {
			return &Diff{Path: pathOrRoot(path), Want: wv.String(), Got: g.(json.Number).String()}
		}
	default:
		if w != g {
			return &Diff{Path: pathOrRoot(path), Want: show(w), Got: show(g)}
		}
	}
	return nil
}

func filterKeys(path string, keys []string, o CompareOptions) []string {
	if o.Ignore == nil {
		return keys
	}
	var out []string
	for _, k := range keys {
		if !o.Ignore(joinPath(path, k)) {
			out = append(out, k)
		}
	}
	return out
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func pathOrRoot(p string) string {
	if p == "" {
		return "(line)"
	}
	return p
}
