package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A Section is the part of a server or tool definition that belongs to its kind: every key
// that is not a common field, kept as YAML nodes with their positions. The kind decodes it
// with Decode, strictly, and reports further problems with Problem, so its messages read
// FILE:LINE:COL: field.path: message like every other problem. Caddy's raw module config is
// the model.
type Section struct {
	// File names the source in problems.
	File string
	// Path is the field path of the enclosing definition, e.g. servers.notes or
	// servers.notes.tools.add ("" for a stored definition's top level).
	Path string
	// Node is a mapping of the kind's keys and values (nil when there are none).
	Node *yaml.Node
	// Anchor is the enclosing definition's node, for problems about a missing field.
	Anchor *yaml.Node
	// common are the names of the common fields, offered as suggestions for a typo.
	common []string
}

// Keys returns the section's keys in source order.
func (s Section) Keys() []string {
	if s.Node == nil {
		return nil
	}
	ks := make([]string, 0, len(s.Node.Content)/2)
	for i := 0; i+1 < len(s.Node.Content); i += 2 {
		ks = append(ks, s.Node.Content[i].Value)
	}
	return ks
}

// Has reports whether key is set in the section.
func (s Section) Has(key string) bool {
	for _, k := range s.Keys() {
		if k == key {
			return true
		}
	}
	return false
}

// Without returns a copy of the section with key removed (the nodes are shared).
func (s Section) Without(key string) Section {
	if s.Node == nil {
		return s
	}
	n := *s.Node
	n.Content = nil
	for i := 0; i+1 < len(s.Node.Content); i += 2 {
		if s.Node.Content[i].Value != key {
			n.Content = append(n.Content, s.Node.Content[i], s.Node.Content[i+1])
		}
	}
	s.Node = &n
	return s
}

// Decode decodes the section into the struct pointed to by out, by its yaml tags, strictly:
// an unknown key, a wrong type or a bad duration is a problem with its position. Types
// that implement NodeUnmarshaler decode themselves.
func (s Section) Decode(out any) Problems {
	d := &Decoder{File: s.File}
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic("config: Section.Decode needs a pointer to a struct")
	}
	if s.Node == nil {
		return nil
	}
	v = v.Elem()
	fs := structFields(v.Type())
	byName := map[string]int{}
	var names []string
	for _, f := range fs {
		byName[f.name] = f.index
		names = append(names, f.name)
	}
	for i := 0; i+1 < len(s.Node.Content); i += 2 {
		k, val := s.Node.Content[i], s.Node.Content[i+1]
		p := JoinPath(s.Path, k.Value)
		idx, ok := byName[k.Value]
		if !ok {
			msg := fmt.Sprintf("unknown field %q", k.Value)
			if sg := suggest(k.Value, append(names[:len(names):len(names)], s.common...)); sg != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sg)
			} else {
				all := append(append([]string(nil), names...), s.common...)
				sort.Strings(all)
				msg += fmt.Sprintf("; valid fields: %s", strings.Join(all, ", "))
			}
			d.Errorf(k, p, "%s", msg)
			continue
		}
		d.decode(val, v.Field(idx), p)
	}
	return d.Problems
}

// Problem returns a problem at the field path rel, relative to the section (e.g. argv[1]);
// rel "" points at the enclosing definition. The position is found in the source.
func (s Section) Problem(rel, format string, args ...any) Problem {
	p := Problem{File: s.File, Path: JoinPath(s.Path, rel), Msg: fmt.Sprintf(format, args...)}
	var n *yaml.Node
	if s.Node != nil && rel != "" {
		first := rel
		if i := strings.IndexAny(first, ".["); i >= 0 {
			first = first[:i]
		}
		if s.Has(first) {
			n = Find(s.Node, rel)
		}
	}
	if n == nil {
		n = s.Anchor
	}
	if n != nil {
		p.Line, p.Column = n.Line, n.Column
	}
	return p
}

// Warning returns a warning at the field path rel: something that may fail later but does not
// make the definition invalid.
func (s Section) Warning(rel, format string, args ...any) Problem {
	p := s.Problem(rel, format, args...)
	p.Warning = true
	return p
}

// Kinds is what configuration needs from the registry of backend kinds: their names, and a
// strict decoding of a server's kind sections. The registry lives in internal/backend; config
// knows no kind.
type Kinds interface {
	// Names returns the kinds in sorted order.
	Names() []string
	// Decode decodes and checks the kind sections of s (its own and its tools'), whose Kind
	// is one of Names, and stores the result in s.Spec.
	Decode(s *Server) Problems
}

// JoinPath joins a field path and a key: JoinPath("servers.a", "argv") is "servers.a.argv".
func JoinPath(path, key string) string {
	if key == "" {
		return path
	}
	if path == "" {
		return key
	}
	if strings.HasPrefix(key, "[") {
		return path + key
	}
	return path + "." + key
}

// Normalize converts YAML-decoded values into JSON-like values (map[string]any keys, int64
// integers, RFC 3339 times).
func Normalize(x any) any { return normalize(x) }

// KindName describes a YAML node for a problem message: "a mapping", "a list", or the
// quoted scalar.
func KindName(n *yaml.Node) string { return kindName(n) }
