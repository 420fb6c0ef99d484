package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// maxRefHops bounds a chain of $refs that point at other $refs (a → b → c …).
const maxRefHops = 32

// errExternalRef marks a $ref to another document, which the importer does not fetch.
var errExternalRef = errors.New("references to other documents are not supported; bundle the spec into one file first")

// lookupPointer resolves a local reference ("#/components/schemas/Pet") against the root.
func lookupPointer(root any, ref string) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, errExternalRef
	}
	frag := ref[1:]
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	if frag == "" {
		return root, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer (anchors are not supported)", ref)
	}
	cur := root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case *jsvalue.Object:
			v, ok := c.Get(tok)
			if !ok {
				return nil, fmt.Errorf("%q does not exist (no %q)", ref, tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("%q does not exist (bad index %q)", ref, tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("%q does not exist (%q is inside a scalar)", ref, tok)
		}
	}
	return cur, nil
}

// deref follows $ref chains for non-schema objects (parameters, request bodies, path items),
// returning the referenced object. Keys next to $ref (e.g. description) are ignored, as
// OpenAPI 3.0 specifies for these objects.
func deref(root any, v any) (*jsvalue.Object, error) {
	for range maxRefHops {
		o, ok := v.(*jsvalue.Object)
		if !ok {
			return nil, fmt.Errorf("expected an object, found %s", describe(v))
		}
		ref, isRef := o.Get("$ref")
		if !isRef {
			return o, nil
		}
		s, ok := ref.(string)
		if !ok {
			return nil, errors.New("$ref is not a string")
		}
		next, err := lookupPointer(root, s)
		if err != nil {
			return nil, fmt.Errorf("resolving $ref %s: %w", s, err)
		}
		v = next
	}
	return nil, fmt.Errorf("more than %d $ref hops (a reference cycle?)", maxRefHops)
}

// describe names the JSON type of a value for error messages.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case *jsvalue.Object:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}
