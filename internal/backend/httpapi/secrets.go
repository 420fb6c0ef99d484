package httpapi

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/secret"
)

// SecretEnvPrefix is the prefix of the environment variable that holds a secret:NAME
// reference: secret:USERS_API_KEY is read from MCPBRIDGE_SECRET_USERS_API_KEY.
const SecretEnvPrefix = secret.EnvPrefix

// secrets resolves secret references and remembers every resolved value, so that they can be
// scrubbed from anything returned to a client or written to a log.
type secrets struct {
	dir    string
	values map[string]string // resolved value -> reference label ("secret USERS_API_KEY")
}

// isRef reports whether s is a secret reference (secret:NAME, env:NAME or file:PATH).
func isRef(s string) bool { return secret.IsRef(s) }

// resolve returns the value a string stands for: a reference is read from the environment or
// a file (internal/secret); any other string is returned as it is. where names the config
// field for errors.
func (s *secrets) resolve(where, v string) (string, error) {
	if !secret.IsRef(v) {
		return v, nil
	}
	val, label, err := secret.Resolve(s.dir, where, v)
	if err != nil {
		return "", err
	}
	if s.values == nil {
		s.values = map[string]string{}
	}
	s.values[val] = label
	return val, nil
}

// scrubber replaces resolved secret values (and their JSON, URL, query and cookie encodings) with a
// placeholder that names the reference. The zero value scrubs nothing.
type scrubber struct {
	r     *strings.Replacer
	forms []string // every scrubbed form of every secret
}

func newScrubber(values map[string]string) scrubber {
	if len(values) == 0 {
		return scrubber{}
	}
	// Longest first, so a secret containing another is replaced whole.
	vals := make([]string, 0, len(values))
	for v := range values {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	var pairs, forms []string
	seen := map[string]bool{}
	for _, v := range vals {
		mark := "[" + values[v] + "]"
		jb, _ := json.Marshal(v)
		forms := []string{v, string(jb[1 : len(jb)-1]), url.PathEscape(v), url.QueryEscape(v), cookieValue(v)}
		for _, f := range forms {
			if f == "" || seen[f] {
				continue
			}
			seen[f] = true
			pairs = append(pairs, f, mark)
			forms = append(forms, f)
		}
	}
	return scrubber{r: strings.NewReplacer(pairs...), forms: forms}
}

// cutPartial drops the end of a cut-off text when it is the beginning of a secret, which
// the replacer cannot recognise.
func (sc scrubber) cutPartial(b []byte) []byte {
	cut := 0
	for _, f := range sc.forms {
		for k := min(len(f)-1, len(b)); k > cut; k-- {
			if bytes.HasSuffix(b, []byte(f[:k])) {
				cut = k
				break
			}
		}
	}
	return b[:len(b)-cut]
}

// String returns s with every secret replaced.
func (sc scrubber) String(s string) string {
	if sc.r == nil {
		return s
	}
	return sc.r.Replace(s)
}

// Value returns a copy of a JSON-like value with secrets replaced in every string and key.
func (sc scrubber) Value(v any) any {
	if sc.r == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		return sc.r.Replace(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sc.Value(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[sc.r.Replace(k)] = sc.Value(e)
		}
		return out
	}
	return v
}
