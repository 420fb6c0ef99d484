package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// A Problem is one thing wrong with a configuration, located in its source.
type Problem struct {
	File   string // the file, or a label such as "admin API" for stored definitions
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based; 0 when unknown
	Path   string // the field path, e.g. servers.tools-demo.tools.echo.argv[1]
	Msg    string
	// Warning marks something that may fail later (a program not on PATH) but does not
	// make the configuration invalid.
	Warning bool
}

func (p Problem) String() string {
	if p.Warning {
		p.Msg = "warning: " + p.Msg
	}
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	}
	if p.Path != "" {
		return fmt.Sprintf("%s: %s: %s", loc, p.Path, p.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, p.Msg)
}

// Problems is the error returned when a configuration is invalid; it lists every problem found.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// NodeUnmarshaler is implemented by config types that decode themselves from a YAML node
// (for example values that may be written as a scalar or as a mapping).
type NodeUnmarshaler interface {
	UnmarshalNode(d *Decoder, n *yaml.Node, path string)
}

// A Decoder decodes YAML nodes into config structs strictly: unknown keys, wrong types and
// duplicate keys are reported as problems with their position and field path. It collects
// every problem instead of stopping at the first.
type Decoder struct {
	File     string
	Problems Problems
}

// Errorf records a problem at node n.
func (d *Decoder) Errorf(n *yaml.Node, path, format string, args ...any) {
	p := Problem{File: d.File, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		p.Line, p.Column = n.Line, n.Column
	}
	d.Problems = append(d.Problems, p)
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	nodeType     = reflect.TypeOf(yaml.Node{})
	sectionType  = reflect.TypeOf(Section{})
)

// Decode decodes n into the value pointed to by out.
func (d *Decoder) Decode(n *yaml.Node, out any, path string) {
	d.decode(n, reflect.ValueOf(out).Elem(), path)
}

func joinPath(path, key string) string { return JoinPath(path, key) }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "null"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (d *Decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return
		}
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if v.CanAddr() {
		if u, ok := v.Addr().Interface().(NodeUnmarshaler); ok {
			u.UnmarshalNode(d, n, path)
			return
		}
	}
	if v.Type() == nodeType {
		v.Set(reflect.ValueOf(*n))
		return
	}
	if n.Tag == "!!null" && v.Kind() != reflect.Interface {
		v.Set(reflect.Zero(v.Type()))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		nv := reflect.New(v.Type().Elem())
		d.decode(n, nv.Elem(), path)
		v.Set(nv)
	case reflect.Interface:
		var x any
		if err := n.Decode(&x); err != nil {
			d.Errorf(n, path, "%v", err)
			return
		}
		x = normalize(x)
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.Errorf(n, path, "expected a mapping, got %s", kindName(n))
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if seen[k.Value] {
				d.Errorf(k, joinPath(path, k.Value), "duplicate key %q", k.Value)
				continue
			}
			seen[k.Value] = true
			ev := reflect.New(v.Type().Elem()).Elem()
			d.decode(val, ev, joinPath(path, k.Value))
			v.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), ev)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 && n.Kind == yaml.ScalarNode {
			b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(n.Value))
			if err != nil {
				d.Errorf(n, path, "expected base64 data: %v", err)
				return
			}
			v.SetBytes(b)
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.Errorf(n, path, "expected a list, got %s", kindName(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.Errorf(n, path, "expected a string, got %s", kindName(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil || n.Tag != "!!bool" {
			d.Errorf(n, path, "expected true or false, got %s", kindName(n))
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		if v.Type() == durationType {
			dur, err := parseDuration(n)
			if err != nil {
				d.Errorf(n, path, "%v", err)
				return
			}
			v.SetInt(int64(dur))
			return
		}
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if n.Kind == yaml.ScalarNode && (errors.Is(err, strconv.ErrRange) || err == nil && v.OverflowInt(i)) {
			d.Errorf(n, path, "the integer %s is too large (at most %d)", n.Value, int64(1)<<(v.Type().Bits()-1)-1)
			return
		}
		if n.Kind != yaml.ScalarNode || err != nil {
			d.Errorf(n, path, "expected an integer, got %s", kindName(n))
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if n.Kind != yaml.ScalarNode || err != nil {
			d.Errorf(n, path, "expected a number, got %s", kindName(n))
			return
		}
		v.SetFloat(f)
	default:
		d.Errorf(n, path, "internal: cannot decode into %s", v.Type())
	}
}

func parseDuration(n *yaml.Node) (time.Duration, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("expected a duration such as 5s, 2m, 12h or 30d, got %s", kindName(n))
	}
	if n.Tag == "!!int" {
		return 0, fmt.Errorf("expected a duration with a unit, such as %ss", n.Value)
	}
	// Whole days ("30d") are accepted too, for retentions.
	if days, ok := strings.CutSuffix(n.Value, "d"); ok {
		if d, err := strconv.Atoi(days); err == nil && d >= 0 && d <= 100*365 {
			return time.Duration(d) * 24 * time.Hour, nil
		} else if err == nil && d > 100*365 || errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(days, "-") {
			return 0, fmt.Errorf("a duration in days must be at most 36500d (100 years), got %q", n.Value)
		}
	}
	dur, err := time.ParseDuration(n.Value)
	if err != nil || dur < 0 {
		return 0, fmt.Errorf("expected a duration such as 5s, 2m, 12h or 30d, got %q", n.Value)
	}
	return dur, nil
}

type fieldInfo struct {
	index int
	name  string
}

func structFields(t reflect.Type) []fieldInfo {
	var fs []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			continue
		}
		fs = append(fs, fieldInfo{i, name})
	}
	return fs
}

func (d *Decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "expected a mapping, got %s", kindName(n))
		return
	}
	fs := structFields(v.Type())
	byName := map[string]int{}
	var names []string
	for _, f := range fs {
		byName[f.name] = f.index
		names = append(names, f.name)
	}
	// A struct with a Section field keeps the keys it does not know for its kind.
	var rest *Section
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Type() == sectionType {
			rest = v.Field(i).Addr().Interface().(*Section)
			*rest = Section{File: d.File, Path: path, Anchor: n, common: names}
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		p := joinPath(path, k.Value)
		if seen[k.Value] {
			d.Errorf(k, p, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		idx, ok := byName[k.Value]
		if !ok && rest != nil {
			if rest.Node == nil {
				rest.Node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
			}
			rest.Node.Content = append(rest.Node.Content, k, val)
			continue
		}
		if !ok {
			msg := fmt.Sprintf("unknown field %q", k.Value)
			if s := suggest(k.Value, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				sort.Strings(names)
				msg += fmt.Sprintf("; valid fields: %s", strings.Join(names, ", "))
			}
			d.Errorf(k, p, "%s", msg)
			continue
		}
		d.decode(val, v.Field(idx), p)
	}
}

// suggest returns the name closest to s when it is a likely typo.
func suggest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if dd := editDistance(strings.ToLower(s), n); dd < bestD {
			best, bestD = n, dd
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// normalize converts YAML-decoded values into JSON-like values: map[string]any keys,
// int → int64 preserved as float64 only when needed by JSON.
func normalize(x any) any {
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			t[k] = normalize(v)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, v := range t {
			m[fmt.Sprint(k)] = normalize(v)
		}
		return m
	case []any:
		for i, v := range t {
			t[i] = normalize(v)
		}
		return t
	case int:
		return int64(t)
	case time.Time:
		return t.Format(time.RFC3339Nano)
	}
	return x
}

// Sorted sorts the problems in source order and returns them: by file, then line and
// column; problems without a position keep their order after the located ones of their
// file.
func (ps Problems) Sorted() Problems {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if (a.Line == 0) != (b.Line == 0) {
			return a.Line != 0
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return ps
}
