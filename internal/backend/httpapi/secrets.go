package httpapi

import (
	"encoding/json"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/secret"
)

// SecretEnvPrefix is the prefix of the environment variable that holds a secret:NAME
// reference: secret:USERS_API_KEY is read from MCPBRIDGE_SECRET_USERS_API_KEY.
const SecretEnvPrefix = secret.EnvPrefix

// secrets resolves secret references and remembers every resolved value, so that they can be
// scrubbed from anything returned to a client or written to a log.
type secrets struct {
	deps   backend.Deps      // resolves through deps.Secrets
	values map[string]string // resolved value -> reference label ("secret USERS_API_KEY")
}

// isRef reports whether s is a secret reference (secret:NAME, env:NAME or file:PATH).
func isRef(s string) bool { return secret.IsRef(s) }

// resolve returns the value a string stands for: a reference is resolved through the
// backend's Deps; any other string is returned as it is. where names the config field for
// errors.
func (s *secrets) resolve(where, v string) (string, error) {
	if !secret.IsRef(v) {
		return v, nil
	}
	val, err := s.deps.Resolve(where, v)
	if err != nil {
		return "", err
	}
	label := secret.Label(v)
	if s.values == nil {
		s.values = map[string]string{}
	}
	s.values[val] = label
	return val, nil
}

// scrubber replaces resolved secret values, and their encodings (internal/secret.Scrubber,
// plus the cookie encoding of this package), with a placeholder that names the reference,
// in strings, bytes, JSON-like values and whole tool results. The zero value scrubs nothing.
type scrubber struct {
	sc *secret.Scrubber
}

func newScrubber(values map[string]string) scrubber {
	if len(values) == 0 {
		return scrubber{}
	}
	vals := make([]string, 0, len(values))
	for v := range values {
		vals = append(vals, v)
	}
	sort.Strings(vals) // a form shared by two secrets is named after the same one every time
	secrets := make([]secret.Secret, 0, 2*len(vals))
	for _, v := range vals {
		secrets = append(secrets, secret.Secret{Value: v, Label: values[v]}, secret.Secret{Value: cookieValue(v), Label: values[v]})
	}
	return scrubber{sc: secret.NewLabeledScrubber(secrets...)}
}

// cutPartial scrubs a response body cut at max_output: whole secrets are replaced and what
// is left of a secret the cut went through (4 bytes or more) is dropped.
func (s scrubber) cutPartial(b []byte) []byte { return s.sc.Cut(b, secret.CutEnd) }

// String returns x with every secret replaced.
func (s scrubber) String(x string) string { return s.sc.String(x) }

// Bytes returns binary content with every secret replaced, before it is base64-encoded.
func (s scrubber) Bytes(b []byte) []byte { return s.sc.Bytes(b) }

// Value returns a JSON-like value with secrets replaced in every string and key; the value
// itself when it holds none, else a copy.
func (s scrubber) Value(v any) any {
	if s.sc == nil {
		return v
	}
	out, _ := s.value(v)
	return out
}

func (s scrubber) value(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		y := s.sc.String(x)
		return y, y != x
	case json.Number: // a secret made of digits, echoed as a number, becomes a string
		if y := s.sc.String(string(x)); y != string(x) {
			return y, true
		}
		return x, false
	case []any:
		return jsvalue.MapItems(x, s.value)
	case *jsvalue.Object:
		var out *jsvalue.Object
		for i := range x.Len() {
			k, e := x.At(i)
			k2 := s.sc.String(k)
			y, changed := s.value(e)
			if (changed || k2 != k) && out == nil {
				out = jsvalue.NewObject(x.Len())
				for j := range i {
					out.Set(x.At(j))
				}
			}
			if out != nil {
				out.Set(k2, y)
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			k2 := s.sc.String(k)
			y, changed := s.value(e)
			if (changed || k2 != k) && out == nil {
				out = make(map[string]any, len(x))
				for k, e := range x {
					out[k] = e
				}
			}
			if out != nil {
				if k2 != k {
					delete(out, k)
				}
				out[k2] = y
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	}
	return v, false
}

// result scrubs a tool result in place, whatever built it: text, image and audio bytes,
// embedded resources and links, and structured content. It is the last step of every call,
// so nothing the API returned can reach the client with a secret in it.
func (s scrubber) result(r *mcp.CallToolResult) *mcp.CallToolResult {
	if s.sc == nil || r == nil {
		return r
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			c.Text = s.String(c.Text)
		case *mcp.ImageContent:
			c.Data, c.MIMEType = s.Bytes(c.Data), s.String(c.MIMEType)
		case *mcp.AudioContent:
			c.Data, c.MIMEType = s.Bytes(c.Data), s.String(c.MIMEType)
		case *mcp.EmbeddedResource:
			if rc := c.Resource; rc != nil {
				rc.URI, rc.MIMEType, rc.Text, rc.Blob = s.String(rc.URI), s.String(rc.MIMEType), s.String(rc.Text), s.Bytes(rc.Blob)
			}
		case *mcp.ResourceLink:
			c.URI, c.Name, c.Title, c.Description, c.MIMEType = s.String(c.URI), s.String(c.Name), s.String(c.Title), s.String(c.Description), s.String(c.MIMEType)
		}
	}
	if r.StructuredContent != nil {
		r.StructuredContent = s.Value(r.StructuredContent)
	}
	return r
}
