// Package secret resolves secret references used in configuration: secret:NAME (read from
// the environment variable MCPBRIDGE_SECRET_NAME), env:NAME and file:PATH. Errors name the
// reference and what to set, never a value.
package secret

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// EnvPrefix is the prefix of the environment variable that holds a secret:NAME reference:
// secret:USERS_API_KEY is read from MCPBRIDGE_SECRET_USERS_API_KEY.
const EnvPrefix = "MCPBRIDGE_SECRET_"

// ErrNotSet is wrapped by the error of Resolve when a reference names what is not provided:
// an environment variable that is not set (or empty), a file that does not exist. A check
// run without the production secrets reports these as warnings.
var ErrNotSet = errors.New("not set")

// notSet is an error that says what to set and is ErrNotSet.
type notSet struct{ error }

func (e notSet) Unwrap() []error { return []error{e.error, ErrNotSet} }

var name = lazy.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}

// IsRef reports whether s is a secret reference (secret:NAME, env:NAME or file:PATH).
func IsRef(s string) bool {
	return strings.HasPrefix(s, "secret:") || strings.HasPrefix(s, "env:") || strings.HasPrefix(s, "file:")
}

// Resolve returns the value the reference ref stands for and a label naming the reference
// (e.g. "secret USERS_API_KEY") for use in place of the value. A relative file: path is read
// from dir. where names the config field in errors. A string that is not a reference is an
// error; use IsRef first where plain values are allowed.
func Resolve(dir, where, ref string) (value, label string, err error) {
	switch {
	case strings.HasPrefix(ref, "secret:"):
		n := strings.TrimPrefix(ref, "secret:")
		if !name.Get().MatchString(n) {
			return "", "", fmt.Errorf("%s: secret name %q is not valid: use letters, digits and _ (secret:USERS_API_KEY)", where, n)
		}
		env := EnvPrefix + n
		got, ok := os.LookupEnv(env)
		if !ok || got == "" {
			return "", "", notSet{fmt.Errorf("%s: secret %s is not set; set the environment variable %s", where, n, env)}
		}
		return got, Label(ref), nil
	case strings.HasPrefix(ref, "env:"):
		n := strings.TrimPrefix(ref, "env:")
		if !name.Get().MatchString(n) {
			return "", "", fmt.Errorf("%s: environment variable name %q is not valid", where, n)
		}
		got, ok := os.LookupEnv(n)
		if !ok || got == "" {
			return "", "", notSet{fmt.Errorf("%s: environment variable %s is not set; set it to the value (referenced as env:%s)", where, n, n)}
		}
		return got, Label(ref), nil
	case strings.HasPrefix(ref, "file:"):
		p := strings.TrimPrefix(ref, "file:")
		if p == "" {
			return "", "", fmt.Errorf("%s: file: reference needs a path (file:/run/secrets/api_key)", where)
		}
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			// The error of ReadFile names the path and the cause, never the content.
			err = fmt.Errorf("%s: reading secret file: %w", where, err)
			if errors.Is(err, os.ErrNotExist) {
				err = notSet{err}
			}
			return "", "", err
		}
		v := strings.TrimRight(string(data), "\r\n")
		if v == "" {
			return "", "", fmt.Errorf("%s: secret file %s is empty", where, p)
		}
		return v, "file " + filepath.Base(p), nil
	}
	return "", "", fmt.Errorf("%s: write a reference (secret:NAME, env:NAME or file:PATH), not the value itself", where)
}

// Label returns the label that names a reference in place of its value, as Resolve returns
// it ("secret USERS_API_KEY", "env HOME", "file api_key"); "" for a string that is not a
// reference.
func Label(ref string) string {
	switch {
	case strings.HasPrefix(ref, "secret:"):
		return "secret " + strings.TrimPrefix(ref, "secret:")
	case strings.HasPrefix(ref, "env:"):
		return "env " + strings.TrimPrefix(ref, "env:")
	case strings.HasPrefix(ref, "file:"):
		return "file " + filepath.Base(strings.TrimPrefix(ref, "file:"))
	}
	return ""
}
