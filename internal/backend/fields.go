package backend

import (
	"reflect"
	"strings"
)

// FieldsOf returns the keys a kind's section struct decodes: the yaml tag name of each
// exported field (the field name lower-cased when the tag gives none), in declaration order,
// following ",inline" fields. A kind derives its ServerFields and ToolFields from its
// section structs with it, so the lists cannot drift from what Decode reads.
func FieldsOf(section any) []string {
	t := reflect.TypeOf(section)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		panic("backend.FieldsOf: not a struct: " + reflect.TypeOf(section).String())
	}
	return appendFields(nil, t)
}

func appendFields(keys []string, t reflect.Type) []string {
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			keys = appendFields(keys, ft)
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		keys = append(keys, name)
	}
	return keys
}
