package httpapi

import (
	"bytes"
	"encoding/json"
	"net/url"
)

// bodyBuilder assembles a request body structurally from mapped values: a JSON value built
// from dotted field paths, or form fields. Nothing is ever pasted into a string.
type bodyBuilder struct {
	kind string // "json", "form" or ""

	json    any            // the JSON body (nil until a field is set)
	root    map[string]any // json when it is an object
	hasJSON bool
	form    url.Values
}

func newBodyBuilder(kind string) *bodyBuilder {
	return &bodyBuilder{kind: kind, form: url.Values{}}
}

// add places the value of a body mapping.
func (bb *bodyBuilder) add(m *mapping, v any) error {
	if bb.kind == "form" {
		if m.field == "" {
			obj, ok := v.(map[string]any)
			if !ok {
				return failf("%s: a form body must be an object, got %s", m.label, jsonType(v))
			}
			for k, e := range obj {
				ss, err := multiText(e)
				if err != nil {
					return failf("%s: field %s: %v", m.label, k, err)
				}
				bb.form[k] = append(bb.form[k], ss...)
			}
			return nil
		}
		ss, err := multiText(v)
		if err != nil {
			return failf("%s: %v", m.label, err)
		}
		bb.form[m.field] = append(bb.form[m.field], ss...)
		return nil
	}
	bb.hasJSON = true
	if m.field == "" {
		bb.json = deepCopy(v)
		bb.root, _ = bb.json.(map[string]any)
		return nil
	}
	if err := bb.ensureObject(); err != nil {
		return failf("%s: %v, so field %s cannot be set in it", m.label, err, m.field)
	}
	if err := setPath(bb.root, m.field, deepCopy(v)); err != nil {
		return failf("%s: %v", m.label, err)
	}
	return nil
}

// ensureObject makes the JSON body an object, unless a whole-body mapping made it something else.
func (bb *bodyBuilder) ensureObject() error {
	if bb.root != nil {
		return nil
	}
	if bb.json != nil {
		return failf("the whole body is %s", jsonType(bb.json))
	}
	bb.root = map[string]any{}
	bb.json = bb.root
	return nil
}

// finish merges the static fields and encodes the body. A JSON tool with nothing mapped sends
// no body at all; a form tool always sends its (possibly empty) form.
func (bb *bodyBuilder) finish(static map[string]any) (body []byte, contentType string, err error) {
	switch bb.kind {
	case "json":
		if len(static) > 0 {
			bb.hasJSON = true
			if err := bb.ensureObject(); err != nil {
				return nil, "", failf("static_fields: %v, so static fields cannot be merged into it", err)
			}
			mergeInto(bb.root, static)
		}
		if !bb.hasJSON {
			return nil, "", nil
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(bb.json); err != nil {
			return nil, "", failf("encoding the JSON body: %v", err)
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), "application/json", nil
	case "form":
		for k, v := range static {
			ss, err := multiText(v)
			if err != nil {
				return nil, "", failf("static_fields.%s: %v", k, err)
			}
			bb.form[k] = append(bb.form[k], ss...)
		}
		return []byte(bb.form.Encode()), "application/x-www-form-urlencoded", nil
	}
	return nil, "", nil
}
