package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// SecretEnvPrefix is the prefix of the environment variable that holds a secret:NAME
// reference: secret:USERS_API_KEY is read from MCPBRIDGE_SECRET_USERS_API_KEY.
const SecretEnvPrefix = "MCPBRIDGE_SECRET_"

var secretName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// secrets resolves secret references and remembers every resolved value, so that they can be
// scrubbed from anything returned to a client or written to a log.
type secrets struct {
	dir    string
	values map[string]string // resolved value -> reference label ("secret USERS_API_KEY")
}

// isRef reports whether s is a secret reference (secret:NAME, env:NAME or file:PATH).
func isRef(s string) bool {
	return strings.HasPrefix(s, "secret:") || strings.HasPrefix(s, "env:") || strings.HasPrefix(s, "file:")
}

// resolve returns the value a string stands for: a reference is read from the environment or
// a file; any other string is returned as it is. where names the config field for errors.
// Errors name the reference and what to set, never a value.
func (s *secrets) resolve(where, v string) (string, error) {
	var val, label string
	switch {
	case strings.HasPrefix(v, "secret:"):
		name := strings.TrimPrefix(v, "secret:")
		if !secretName.MatchString(name) {
			return "", fmt.Errorf("%s: secret name %q is not valid: use letters, digits and _ (secret:USERS_API_KEY)", where, name)
		}
		env := SecretEnvPrefix + name
		got, ok := os.LookupEnv(env)
		if !ok || got == "" {
			return "", fmt.Errorf("%s: secret %s is not set; set the environment variable %s", where, name, env)
		}
		val, label = got, "secret "+name
	case strings.HasPrefix(v, "env:"):
		name := strings.TrimPrefix(v, "env:")
		if !secretName.MatchString(name) {
			return "", fmt.Errorf("%s: environment variable name %q is not valid", where, name)
		}
		got, ok := os.LookupEnv(name)
		if !ok || got == "" {
			return "", fmt.Errorf("%s: environment variable %s is not set; set it to the value (referenced as env:%s)", where, name, name)
		}
		val, label = got, "env "+name
	case strings.HasPrefix(v, "file:"):
		p := strings.TrimPrefix(v, "file:")
		if p == "" {
			return "", fmt.Errorf("%s: file: reference needs a path (file:/run/secrets/api_key)", where)
		}
		if !filepath.IsAbs(p) && s.dir != "" {
			p = filepath.Join(s.dir, p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			// The error of ReadFile names the path and the cause, never the content.
			return "", fmt.Errorf("%s: reading secret file: %w", where, err)
		}
		val = strings.TrimRight(string(data), "\r\n")
		if val == "" {
			return "", fmt.Errorf("%s: secret file %s is empty", where, p)
		}
		label = "file " + filepath.Base(p)
	default:
		return v, nil
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
