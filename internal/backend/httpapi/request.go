package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/expr"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
)

var pathParam = lazy.Regexp{Expr: `\{([^{}]+)\}`}

// A callError is a failure to build a request that the model (or the config author) can act
// on; it becomes a tool error with this text.
type callError struct{ msg string }

func (e *callError) Error() string { return e.msg }

func failf(format string, args ...any) error { return &callError{msg: fmt.Sprintf(format, args...)} }

// built is a request ready to send.
type built struct {
	req *http.Request
	// display is "METHOD /escaped/path" without query, for messages (secrets scrubbed by the caller).
	display string
	// stripOnRedirect are headers that carry secrets and must not follow a redirect to
	// another host.
	stripOnRedirect map[string]bool
}

// value computes the value of a mapping. present is false when the value is absent or
// null and must be left out (a constant null is present: it is an explicit JSON null).
func (m *mapping) value(ctx context.Context, args map[string]any) (v any, present bool, err error) {
	switch {
	case m.direct != "":
		v, ok := args[m.direct]
		return v, ok && v != nil, nil
	case m.prog != nil:
		var val any
		for _, n := range m.valueArg {
			if x, ok := args[n]; ok {
				val = x
				break
			}
		}
		res, err := m.prog.Eval(ctx, map[string]any{"args": args, "value": val}, exprLimits)
		if err != nil {
			return nil, false, exprFailure(m.label, err)
		}
		res = jsvalue.ToGo(res) // the request builder works on plain maps
		return res, res != nil, nil
	default:
		return m.constant, true, nil
	}
}

// exprFailure describes an expression error with its mapping and position.
func exprFailure(where string, err error) error {
	var ee *expr.Error
	if !errors.As(err, &ee) {
		return failf("%s: expression failed: %v", where, err)
	}
	pos := ""
	if ee.Line > 0 {
		pos = fmt.Sprintf(" at line %d, column %d", ee.Line, ee.Column)
	}
	what := ee.Msg
	if ee.Name != "" {
		what = ee.Name + ": " + ee.Msg
	}
	switch ee.Kind {
	case expr.KindTimeout:
		return failf("%s: the expression did not finish in time%s (an endless loop?): %s; fix the expression in the tool definition", where, pos, what)
	case expr.KindMemory:
		return failf("%s: the expression used too much memory%s: %s; fix the expression in the tool definition", where, pos, what)
	case expr.KindCanceled:
		return failf("%s: the call was cancelled while the expression ran", where)
	}
	return failf("%s: the expression failed%s: %s (%s error); fix the expression in the tool definition or the arguments it reads", where, pos, what, ee.Kind)
}

// build makes the HTTP request of tool t for args.
func (t *tool) build(ctx context.Context, args map[string]any) (*built, error) {
	pathVals := map[string]string{}
	query := url.Values{}
	for k, vs := range t.base.Query() {
		query[k] = vs
	}
	header := t.headers.Clone()
	if header == nil {
		header = http.Header{}
	}
	strip, stripCopied := t.secretHdr, false
	var cookies []string
	bb := newBodyBuilder(t.body)
	mappedHeaders := map[string]bool{}

	for _, m := range t.mappings {
		v, present, err := m.value(ctx, args)
		if err != nil {
			return nil, err
		}
		if !present {
			if m.in == "path" {
				return nil, failf("%s: no value for path parameter {%s}; %s", m.label, m.field, argHint(m))
			}
			continue
		}
		switch m.in {
		case "path":
			s, ok, err := scalarText(v)
			if err != nil {
				return nil, failf("%s: %v", m.label, err)
			}
			if !ok || s == "" || s == "." || s == ".." {
				return nil, failf("%s: path parameter {%s} cannot be %q; give a non-empty value", m.label, m.field, s)
			}
			pathVals[m.field] = url.PathEscape(s)
		case "query":
			ss, err := multiText(v)
			if err != nil {
				return nil, failf("%s: %v", m.label, err)
			}
			for _, s := range ss {
				query.Add(m.field, s)
			}
		case "header":
			ss, err := multiText(v)
			if err != nil {
				return nil, failf("%s: %v", m.label, err)
			}
			key := http.CanonicalHeaderKey(m.field)
			if !mappedHeaders[key] {
				header.Del(key)
				mappedHeaders[key] = true
			}
			for _, s := range ss {
				if !safehttp.ValidHeaderValue(s) {
					return nil, failf("%s: header values cannot contain line breaks or control characters", m.label)
				}
				header.Add(key, s)
			}
			if m.secret {
				if !stripCopied {
					strip, stripCopied = cloneSet(strip), true
				}
				strip[key] = true
			}
		case "cookie":
			s, ok, err := scalarText(v)
			if err != nil {
				return nil, failf("%s: %v", m.label, err)
			}
			if !ok {
				continue
			}
			cookies = append(cookies, m.field+"="+cookieValue(s))
		case "body":
			if err := bb.add(m, v); err != nil {
				return nil, err
			}
		}
	}
	body, contentType, err := bb.finish(t.static)
	if err != nil {
		return nil, err
	}
	if contentType != "" && header.Get("Content-Type") == "" {
		header.Set("Content-Type", contentType)
	}

	escPath := pathParam.Get().ReplaceAllStringFunc(t.path, func(seg string) string {
		return pathVals[seg[1:len(seg)-1]]
	})
	rawPath := strings.TrimSuffix(t.base.EscapedPath(), "/") + escPath
	plain, err := url.PathUnescape(rawPath)
	if err != nil {
		return nil, failf("path %q is not a valid URL path: %v", t.path, err)
	}
	u := *t.base
	u.Path, u.RawPath = plain, rawPath
	u.RawQuery = query.Encode()
	u.Fragment, u.RawFragment = "", ""

	if len(cookies) > 0 {
		if c := header.Get("Cookie"); c != "" {
			cookies = append([]string{c}, cookies...)
		}
		header.Set("Cookie", strings.Join(cookies, "; "))
	}
	if header.Get("Accept") == "" {
		header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.8")
	}
	if header.Get("User-Agent") == "" {
		header.Set("User-Agent", userAgent)
	}
	req, err := http.NewRequestWithContext(ctx, t.method, u.String(), nil)
	if err != nil {
		return nil, failf("building the request: %v", err)
	}
	// Use the URL we built (NewRequest re-parses; keep our exact escaping).
	req.URL = &u
	req.Header = header
	if body != nil {
		req.Body = http.NoBody
		if len(body) > 0 {
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		req.ContentLength = int64(len(body))
	}
	return &built{req: req, display: t.method + " " + rawPath, stripOnRedirect: strip}, nil
}

func cloneSet(s map[string]bool) map[string]bool {
	out := make(map[string]bool, len(s)+1)
	for k, v := range s {
		out[k] = v
	}
	return out
}

func argHint(m *mapping) string {
	if m.direct != "" {
		return "give the argument " + m.direct
	}
	return "its expression returned null or undefined"
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
