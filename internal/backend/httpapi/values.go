package httpapi

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// scalarText formats a JSON-like value for a place that holds text (path, query, header,
// cookie, form): strings as they are, numbers and booleans as JSON writes them, objects and
// arrays as compact JSON. ok is false for null, which is left out.
func scalarText(v any) (s string, ok bool, err error) {
	switch x := v.(type) {
	case nil:
		return "", false, nil
	case string:
		return x, true, nil
	case bool:
		return strconv.FormatBool(x), true, nil
	case json.Number:
		return x.String(), true, nil
	case int:
		return strconv.Itoa(x), true, nil
	case int64:
		return strconv.FormatInt(x, 10), true, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false, fmt.Errorf("the number %v cannot be sent", x)
		}
		b, _ := json.Marshal(x)
		return string(b), true, nil
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), true, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false, fmt.Errorf("cannot encode value as JSON: %w", err)
	}
	return string(b), true, nil
}

// multiText formats a value that may be an array as one text per element (arrays become
// repeated query keys, form keys or header values). Null elements are skipped.
func multiText(v any) ([]string, error) {
	arr, isArr := v.([]any)
	if !isArr {
		s, ok, err := scalarText(v)
		if err != nil || !ok {
			return nil, err
		}
		return []string{s}, nil
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok, err := scalarText(e)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// setPath stores v at a dotted path ("note.title") in the object root, creating the objects
// on the way. It fails when a prefix of the path already holds something other than an object.
func setPath(root map[string]any, path string, v any) error {
	parts := strings.Split(path, ".")
	cur := root
	for i, p := range parts[:len(parts)-1] {
		next, exists := cur[p]
		if !exists || next == nil {
			m := map[string]any{}
			cur[p] = m
			cur = m
			continue
		}
		m, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("body field %s is not an object, so %s cannot be set inside it", strings.Join(parts[:i+1], "."), path)
		}
		cur = m
	}
	cur[parts[len(parts)-1]] = v
	return nil
}

// mergeInto deep-merges src into dst: objects merge key by key, anything else from src
// replaces what dst holds.
func mergeInto(dst, src map[string]any) {
	for k, sv := range src {
		if sm, ok := sv.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeInto(dm, sm)
				continue
			}
			dst[k] = deepCopy(sm)
			continue
		}
		dst[k] = deepCopy(sv)
	}
}

// deepCopy copies the maps and slices of a JSON-like value, so a request never shares
// (and never mutates) configuration values or another request's values.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// cookieValue encodes s as a cookie value: bytes outside RFC 6265's cookie-octet set
// (space, quote, comma, semicolon, backslash, controls, non-ASCII) and '%' are
// percent-encoded, so nothing is silently dropped.
func cookieValue(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == 0x21 || (c >= 0x23 && c <= 0x2B && c != '%') || (c >= 0x2D && c <= 0x3A) ||
			(c >= 0x3C && c <= 0x5B) || (c >= 0x5D && c <= 0x7E)
		if ok {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
