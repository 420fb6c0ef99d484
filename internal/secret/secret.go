// Package secret resolves secret references used in configuration: secret:NAME (read from
// the environment variable MCPBRIDGE_SECRET_NAME), env:NAME and file:PATH. Errors name the
// reference and what to set, never a value.
package secret

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// EnvPrefix is the prefix of the environment variable that holds a secret:NAME reference:
// secret:USERS_API_KEY is read from MCPBRIDGE_SECRET_USERS_API_KEY.
const EnvPrefix = "MCPBRIDGE_SECRET_"

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
			return "", "", fmt.Errorf("%s: secret %s is not set; set the environment variable %s", where, n, env)
		}
		return got, "secret " + n, nil
	case strings.HasPrefix(ref, "env:"):
		n := strings.TrimPrefix(ref, "env:")
		if !name.Get().MatchString(n) {
			return "", "", fmt.Errorf("%s: environment variable name %q is not valid", where, n)
		}
		got, ok := os.LookupEnv(n)
		if !ok || got == "" {
			return "", "", fmt.Errorf("%s: environment variable %s is not set; set it to the value (referenced as env:%s)", where, n, n)
		}
		return got, "env " + n, nil
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
			return "", "", fmt.Errorf("%s: reading secret file: %w", where, err)
		}
		v := strings.TrimRight(string(data), "\r\n")
		if v == "" {
			return "", "", fmt.Errorf("%s: secret file %s is empty", where, p)
		}
		return v, "file " + filepath.Base(p), nil
	}
	return "", "", fmt.Errorf("%s: write a reference (secret:NAME, env:NAME or file:PATH), not the value itself", where)
}
