// Package axioshttp is Lowdefy's AxiosHttp connection type: an HTTP request described by
// axios options, run with real HTTP.
//
// It follows @lowdefy/connection-axios-http 4.0.0-rc.11 and the axios 1.5.1 it uses. The
// request's properties are deep-merged into the connection's (lodash merge, as Lowdefy's
// mergeObjects does: objects key by key, arrays index by index, undefined never replaces
// a value), and the result is read as an axios request config:
//
//   - url, baseURL: baseURL is put before url unless url is absolute (axios
//     combineURLs); a fragment is dropped; only http and https are served.
//   - method: get (default), delete, head, options, post, put or patch.
//   - headers: sent as given (numbers as strings, null and false left out); the sub-objects
//     common and <method> apply first. Accept defaults to "application/json, text/plain,
//     */*" and User-Agent to "axios/1.5.1".
//   - params: added to the query string with axios's serializer (`a[]=1&a[]=2`,
//     `o[k]=v`, dates as ISO strings, `:$,[]` left unescaped, spaces as `+`).
//   - data: objects, arrays and dates go as JSON (Content-Type application/json unless
//     set), or as a form (`a=1&b%5B%5D=2`) when the Content-Type is
//     application/x-www-form-urlencoded; strings go as they are; null, "", 0 and false
//     send no body; other numbers and booleans are refused as axios refuses them. post,
//     put and patch default to Content-Type application/x-www-form-urlencoded.
//   - timeout (ms, 0 = none), auth ({username, password}: Basic, replacing any
//     Authorization header), maxRedirects (default 21 as in axios; 0 follows none),
//     maxContentLength (bytes; -1 or unset = axios's unlimited, capped here by
//     [DefaultMaxContentLength]), responseType (json, the default, parses the body as JSON
//     when it is JSON; text and document keep the text) and responseEncoding (utf8,
//     latin1, ascii, base64, base64url, hex, utf16le).
//
// The response is {status, statusText, headers, data}: headers with lower-case names,
// repeated headers joined with ", " (set-cookie as an array) as Node gives them. axios has
// no method or path on its response, so Lowdefy's `method` and `path` keys are undefined
// and left out.
//
// A response outside 2xx is an error worded as Lowdefy's:
//
//	Request failed with status code 404; Http response "404: Not Found"; Data: {"message":"…"}.
//
// Transport failures use Node's words where there are some ("connect ECONNREFUSED
// 127.0.0.1:1", "getaddrinfo ENOTFOUND host", "timeout of 50ms exceeded", "Maximum number
// of redirects exceeded", "maxContentLength size of 3 exceeded"). No error includes a
// header value or the request URL, which may carry secrets.
//
// TestOracle checks all this step by step against Lowdefy's own connection run in Node
// (testdata/oracle.mjs, testdata/want.txt).
//
// # Differences from Lowdefy
//
// Requests go through [connections.Deps.HTTPClient], which applies the gateway's SSRF
// rules, so proxy is refused and httpAgentOptions/httpsAgentOptions are ignored (with a
// warning). Response headers come in sorted order (Go's HTTP client does not keep the
// server's order). A url that is relative with no baseURL is an error (Node would call
// http://localhost). Accept-Encoding is Go's (gzip), and a gzip body is decompressed as
// axios does.
package axioshttp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
)

// DefaultMaxContentLength caps a response body when the config sets no maxContentLength
// (axios has no cap): 64 MiB.
const DefaultMaxContentLength = 64 << 20

// defaultMaxRedirects is axios's (follow-redirects') default.
const defaultMaxRedirects = 21

// Type returns the AxiosHttp connection type, with its one request type, AxiosHttp.
func Type() *connections.Type {
	return &connections.Type{
		Name:  "AxiosHttp",
		Check: func(props *jsvalue.Object) error { return checkProps(props) },
		Requests: map[string]*connections.RequestType{
			"AxiosHttp": {Check: checkProps, Run: run},
		},
	}
}

// run is the AxiosHttp request.
func run(ctx context.Context, c *connections.Call) (any, error) {
	var deps connections.Deps
	if c.Deps != nil {
		deps = *c.Deps
	}
	log := deps.Logger
	if log == nil {
		log = slog.Default()
	}
	config := mergeConfig(c.Connection, c.Request)
	req, opts, err := newRequest(ctx, config, log)
	if err != nil {
		return nil, err
	}
	if opts.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.timeout)
		defer cancel()
		req = req.WithContext(ctx)
	}
	client := http.DefaultClient
	if deps.HTTPClient != nil {
		if hc := deps.HTTPClient(); hc != nil {
			client = hc
		}
	}
	client = withRedirectLimit(client, opts.maxRedirects)

	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		err = transportError(ctx, err, opts)
		log.Debug("AxiosHttp request failed", "connection", c.ConnectionID, "request", c.RequestID,
			"method", req.Method, "host", req.URL.Host, "error", err)
		return nil, err
	}
	defer resp.Body.Close()
	body, err := readBody(resp.Body, opts.maxContentLength)
	if err != nil {
		return nil, transportError(ctx, err, opts)
	}
	data, err := decodeBody(body, opts)
	if err != nil {
		return nil, err
	}
	log.Debug("AxiosHttp request", "connection", c.ConnectionID, "request", c.RequestID,
		"method", req.Method, "host", req.URL.Host, "status", resp.StatusCode, "duration", time.Since(start))

	statusText := strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode))
	statusText = strings.TrimPrefix(statusText, " ")
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		js, ok := jsvalue.Stringify(data, "")
		if !ok {
			js = "undefined"
		}
		return nil, fmt.Errorf("Request failed with status code %d; Http response \"%d: %s\"; Data: %s.",
			resp.StatusCode, resp.StatusCode, statusText, js)
	}
	return jsvalue.ObjectOf(
		"status", float64(resp.StatusCode),
		"statusText", statusText,
		"headers", responseHeaders(resp),
		"data", data,
	), nil
}

// options are the parts of the config used after the request is built.
type options struct {
	timeout          time.Duration
	timeoutMillis    float64
	maxRedirects     int
	maxContentLength int64 // -1: axios's unlimited
	responseType     string
	responseEncoding string
}

// absoluteURL is axios's isAbsoluteURL.
var absoluteURL = lazy.Regexp{Expr: `(?i)^([a-z][a-z\d+\-.]*:)?//`}

// newRequest builds the HTTP request for an axios config.
func newRequest(ctx context.Context, config *jsvalue.Object, log *slog.Logger) (*http.Request, options, error) {
	opts := options{maxRedirects: defaultMaxRedirects, maxContentLength: -1}
	if p, ok := config.Get("proxy"); ok && p != false && !jsvalue.IsNullish(p) {
		return nil, opts, errors.New(`AxiosHttp property "proxy" is not supported: requests go out through the gateway's HTTP client; remove "proxy"`)
	}
	for _, k := range []string{"httpAgentOptions", "httpsAgentOptions"} {
		if v, ok := config.Get(k); ok && !jsvalue.IsNullish(v) {
			log.Warn("AxiosHttp: ignoring " + k + " (requests use the gateway's HTTP client)")
		}
	}
	if v, ok := number(config.Prop("timeout")); ok && v > 0 {
		opts.timeoutMillis = v
		opts.timeout = time.Duration(v * float64(time.Millisecond))
	}
	if v, ok := number(config.Prop("maxRedirects")); ok {
		opts.maxRedirects = int(v)
	}
	if v, ok := number(config.Prop("maxContentLength")); ok {
		opts.maxContentLength = int64(v)
	}
	opts.responseType, _ = config.Prop("responseType").(string)
	opts.responseEncoding, _ = config.Prop("responseEncoding").(string)

	method := "get"
	if m, ok := config.Prop("method").(string); ok && m != "" {
		method = strings.ToLower(m)
	}

	// URL: buildFullPath(baseURL, url), resolved against http://localhost by Node.
	rawURL, _ := config.Prop("url").(string)
	if base, ok := config.Prop("baseURL").(string); ok && base != "" && !absoluteURL.Get().MatchString(rawURL) {
		if rawURL != "" {
			base = strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/")
			rawURL = base + "/" + strings.TrimLeft(rawURL, "/")
		} else {
			rawURL = base
		}
	}
	if i := strings.IndexByte(rawURL, '#'); i >= 0 {
		rawURL = rawURL[:i]
	}
	if params, ok := asObject(config.Prop("params")); ok {
		if q := serializeParams(params); q != "" {
			if strings.IndexByte(rawURL, '?') < 0 {
				rawURL += "?" + q
			} else {
				rawURL += "&" + q
			}
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, opts, errors.New("AxiosHttp: the url (baseURL + url) is not a valid URL; check baseURL and url")
	}
	switch u.Scheme {
	case "http", "https":
	case "":
		return nil, opts, errors.New("AxiosHttp: the url is relative and there is no baseURL; set baseURL on the connection or use an absolute url")
	default:
		return nil, opts, fmt.Errorf("Unsupported protocol %s:", u.Scheme)
	}
	if u.Host == "" {
		return nil, opts, errors.New("AxiosHttp: the url has no host; check baseURL and url")
	}

	// Body: axios's transformRequest and http adapter.
	var body []byte
	hasBody := false
	contentType := ""
	userType := headerValue(config.Prop("headers"), method, "content-type")
	if data, ok := config.Get("data"); ok && jsvalue.Truthy(data) {
		switch d := data.(type) {
		case string:
			body, hasBody = []byte(d), true
		case *jsvalue.Object, []any, time.Time:
			if o, isObj := d.(*jsvalue.Object); isObj && strings.Contains(userType, "application/x-www-form-urlencoded") {
				body, hasBody = []byte(serialize(o, encodeForm)), true
				break
			}
			s, _ := jsvalue.Stringify(d, "")
			body, hasBody, contentType = []byte(s), true, "application/json"
		default:
			return nil, opts, errors.New("Data after transformation must be a string, an ArrayBuffer, a Buffer, or a Stream")
		}
	}
	if contentType == "" && (method == "post" || method == "put" || method == "patch") {
		contentType = "application/x-www-form-urlencoded"
	}
	var rd io.Reader
	if hasBody {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, strings.ToUpper(method), u.String(), rd)
	if err != nil {
		return nil, opts, errors.New("AxiosHttp: cannot build the request; check method and url")
	}
	if hasBody {
		req.ContentLength = int64(len(body))
	}

	// Headers: defaults, then headers.common and headers[method], then the rest.
	req.Header.Set("Accept", "application/json, text/plain, */*")
	if h, ok := asObject(config.Prop("headers")); ok {
		if common, ok := asObject(h.Prop("common")); ok {
			setHeaders(req.Header, common, true)
		}
		if m, ok := asObject(h.Prop(method)); ok {
			setHeaders(req.Header, m, true)
		}
		setHeaders(req.Header, h, false)
	}
	if contentType != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", contentType)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "axios/1.5.1")
	}
	if auth, ok := asObject(config.Prop("auth")); ok {
		user, _ := auth.Prop("username").(string)
		pass, _ := auth.Prop("password").(string)
		req.Header.Del("Authorization")
		req.SetBasicAuth(user, pass)
	}
	for name, vals := range req.Header {
		for _, v := range vals {
			if !validHeaderValue(v) {
				return nil, opts, fmt.Errorf("AxiosHttp: header %q has an invalid value (control characters); fix the header", name)
			}
		}
		if !validHeaderName(name) {
			return nil, opts, fmt.Errorf("AxiosHttp: %q is not a valid header name", name)
		}
	}
	return req, opts, nil
}

// headerValue finds a header (any case) in axios headers as sent for method: the plain
// key, else headers[method], else headers.common; "" when absent.
func headerValue(headers any, method, name string) string {
	h, ok := asObject(headers)
	if !ok {
		return ""
	}
	find := func(o *jsvalue.Object) (string, bool) {
		for k, v := range o.Range {
			if strings.EqualFold(k, name) && !jsvalue.IsNullish(v) && v != false {
				return jsvalue.ToString(v), true
			}
		}
		return "", false
	}
	if v, ok := find(h); ok {
		return v
	}
	for _, sub := range []string{method, "common"} {
		if o, ok := asObject(h.Prop(sub)); ok {
			if v, ok := find(o); ok {
				return v
			}
		}
	}
	return ""
}

// methodKeys are the keys of axios headers that hold per-method headers, not headers.
// The table is built on first use.
var methodKeys = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"delete": true, "get": true, "head": true, "post": true, "put": true, "patch": true, "common": true}
}}

// setHeaders sets the headers of h on hdr, skipping null, undefined and false (axios
// leaves them out). nested is true for the common and per-method sub-objects.
func setHeaders(hdr http.Header, h *jsvalue.Object, nested bool) {
	for name, v := range h.Range {
		if !nested && methodKeys.Get()[name] {
			continue
		}
		if jsvalue.IsNullish(v) || v == false {
			hdr.Del(name)
			continue
		}
		if arr, ok := v.([]any); ok {
			hdr.Del(name)
			for _, item := range arr {
				hdr.Add(name, jsvalue.ToString(item))
			}
			continue
		}
		hdr.Set(name, jsvalue.ToString(v))
	}
}

// validHeaderName reports whether name is an HTTP token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v has no control characters but tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// errTooManyRedirects is follow-redirects' error, in its words.
var errTooManyRedirects = errors.New("Maximum number of redirects exceeded")

// withRedirectLimit returns a copy of client that follows at most max redirects (none
// when max is 0, handing back the redirect response), after the client's own redirect
// check (the SSRF guard's).
func withRedirectLimit(client *http.Client, max int) *http.Client {
	c := *client
	orig := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if max <= 0 {
			return http.ErrUseLastResponse
		}
		if len(via) > max {
			return errTooManyRedirects
		}
		if orig != nil {
			return orig(req, via)
		}
		return nil
	}
	return &c
}

// errTooLarge reports a body over maxContentLength.
type errTooLarge struct{ limit int64 }

func (e errTooLarge) Error() string {
	return fmt.Sprintf("maxContentLength size of %d exceeded", e.limit)
}

// readBody reads the body, failing when it is longer than limit (or than
// DefaultMaxContentLength when limit is negative).
func readBody(r io.Reader, limit int64) ([]byte, error) {
	capped := limit
	if capped < 0 {
		capped = DefaultMaxContentLength
	}
	b, err := io.ReadAll(io.LimitReader(r, capped+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > capped {
		return nil, errTooLarge{capped}
	}
	return b, nil
}

// decodeBody turns the body into axios's response data: text in responseEncoding, parsed
// as JSON when responseType is json or unset and the text is JSON.
func decodeBody(b []byte, opts options) (any, error) {
	var s string
	switch enc := strings.ToLower(opts.responseEncoding); enc {
	case "", "utf8", "utf-8":
		s = toValidUTF8(b)
		s = strings.TrimPrefix(s, "\uFEFF")
	case "latin1", "binary", "ascii":
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		s = string(r)
	case "base64":
		s = base64.StdEncoding.EncodeToString(b)
	case "base64url":
		s = base64.RawURLEncoding.EncodeToString(b)
	case "hex":
		s = hex.EncodeToString(b)
	case "utf16le", "utf-16le", "ucs2", "ucs-2":
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		s = string(utf16.Decode(u))
	default:
		return nil, fmt.Errorf("Unknown encoding: %s", opts.responseEncoding)
	}
	if s != "" && (opts.responseType == "" || opts.responseType == "json") {
		if v, err := jsvalue.Decode([]byte(s)); err == nil {
			return v, nil
		}
	}
	return s, nil
}

// toValidUTF8 decodes b as Node's utf8 decoder does, with U+FFFD for each bad byte.
func toValidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

// firstOnly are the response headers Node keeps the first of when repeated.
// The table is built on first use.
var firstOnly = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"age": true, "authorization": true, "content-length": true, "content-type": true, "etag": true,
		"expires": true, "from": true, "host": true, "if-modified-since": true, "if-unmodified-since": true,
		"last-modified": true, "location": true, "max-forwards": true, "proxy-authorization": true,
		"referer": true, "retry-after": true, "server": true, "user-agent": true,
	}
}}

// responseHeaders gives the response headers as Node's http module does: lower-case
// names, set-cookie as an array, other repeats joined with ", " (cookie with "; "), some
// keeping only the first value.
func responseHeaders(resp *http.Response) *jsvalue.Object {
	names := make([]string, 0, len(resp.Header)+1)
	vals := map[string][]string{}
	for k, v := range resp.Header {
		lk := strings.ToLower(k)
		if _, ok := vals[lk]; !ok {
			names = append(names, lk)
		}
		vals[lk] = append(vals[lk], v...)
	}
	if len(resp.TransferEncoding) > 0 {
		if _, ok := vals["transfer-encoding"]; !ok {
			names = append(names, "transfer-encoding")
		}
		vals["transfer-encoding"] = append(vals["transfer-encoding"], strings.Join(resp.TransferEncoding, ", "))
	}
	sort.Strings(names)
	out := jsvalue.NewObject(len(names))
	for _, n := range names {
		v := vals[n]
		switch {
		case n == "set-cookie":
			arr := make([]any, len(v))
			for i, s := range v {
				arr[i] = s
			}
			out.Set(n, arr)
		case firstOnly.Get()[n]:
			out.Set(n, v[0])
		case n == "cookie":
			out.Set(n, strings.Join(v, "; "))
		default:
			out.Set(n, strings.Join(v, ", "))
		}
	}
	return out
}

// transportError words a failure to get a response as axios (Node) does, without the
// URL (which may carry secrets in its query).
func transportError(ctx context.Context, err error, opts options) error {
	var tooLarge errTooLarge
	switch {
	case errors.As(err, &tooLarge):
		return tooLarge
	case errors.Is(err, errTooManyRedirects):
		return errTooManyRedirects
	case opts.timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("timeout of %sms exceeded", jsvalue.NumberToString(opts.timeoutMillis))
	}
	var opErr *net.OpError
	if errors.Is(err, syscall.ECONNREFUSED) && errors.As(err, &opErr) && opErr.Addr != nil {
		return fmt.Errorf("connect ECONNREFUSED %s", opErr.Addr.String())
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return fmt.Errorf("getaddrinfo ENOTFOUND %s", dnsErr.Name)
	}
	var uErr *url.Error
	if errors.As(err, &uErr) {
		return uErr.Err
	}
	return err
}

// number reads a JSON number (float64, or a Go int from tests).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}
