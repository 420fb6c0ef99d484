package axioshttp

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
)

// obj decodes JSON text into an ordered object, failing the test on bad JSON.
func obj(t *testing.T, s string) *jsvalue.Object {
	t.Helper()
	v, err := jsvalue.Decode([]byte(s))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	o, ok := v.(*jsvalue.Object)
	if !ok {
		t.Fatalf("test JSON %s is not an object", s)
	}
	return o
}

// echoed is what the echo handler reports about a request.
type echoed struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// newServer starts a loopback server answering like the Node probe used to check axios.
func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/redir", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/json", http.StatusFound)
	})
	mux.HandleFunc("/redir2", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/redir", http.StatusFound)
	})
	mux.HandleFunc("/err", func(w http.ResponseWriter, r *http.Request) {
		// A custom reason phrase, as Node's writeHead(404, 'Nope Found') sends.
		hj, _ := w.(http.Hijacker)
		conn, buf, _ := hj.Hijack()
		defer conn.Close()
		body := `{"z":1,"a":[1,2]}`
		buf.WriteString("HTTP/1.1 404 Nope Found\r\nContent-Type: application/json\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Multi: 1\r\nX-Multi: 2\r\nContent-Length: 17\r\nConnection: close\r\n\r\n" + body)
		buf.Flush()
	})
	mux.HandleFunc("/bad", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		io.WriteString(w, "oops")
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello")
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "\uFEFF"+`{"z":1,"a":{"y":2,"b":3}}`)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h := map[string]string{}
		for k, v := range r.Header {
			h[k] = strings.Join(v, "|")
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(echoed{Method: r.Method, URL: r.URL.RequestURI(), Headers: h, Body: string(b)})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// call runs an AxiosHttp request with the connection and request properties given as
// JSON.
func call(t *testing.T, deps *connections.Deps, conn, req string) (any, error) {
	t.Helper()
	typ := Type()
	rt := typ.Requests["AxiosHttp"]
	c := obj(t, conn)
	if err := typ.Check(c); err != nil {
		t.Fatalf("connection check: %v", err)
	}
	r := obj(t, req)
	if err := rt.Check(r); err != nil {
		t.Fatalf("request check: %v", err)
	}
	return rt.Run(context.Background(), &connections.Call{ConnectionID: "api", RequestID: "r", Connection: c, Request: r, Deps: deps})
}

// echo runs a request against the echo handler and returns what the server saw.
func echo(t *testing.T, conn, req string) echoed {
	t.Helper()
	res, err := call(t, nil, conn, req)
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	data := res.(*jsvalue.Object).Prop("data")
	b, _ := json.Marshal(data)
	var e echoed
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("echo answer %s: %v", b, err)
	}
	return e
}

func TestResponseShape(t *testing.T) {
	srv := newServer(t)
	res, err := call(t, nil, `{"baseURL":"`+srv.URL+`/"}`, `{"url":"/json"}`)
	if err != nil {
		t.Fatal(err)
	}
	o := res.(*jsvalue.Object)
	if got, want := strings.Join(o.Keys(), ","), "status,statusText,headers,data"; got != want {
		t.Errorf("keys = %s, want %s (axios has no method or path)", got, want)
	}
	if o.Prop("status") != 200.0 || o.Prop("statusText") != "OK" {
		t.Errorf("status = %v %v", o.Prop("status"), o.Prop("statusText"))
	}
	// The BOM is stripped and the JSON keeps its key order.
	if got := o.Prop("data").(*jsvalue.Object).String(); got != `{"z":1,"a":{"y":2,"b":3}}` {
		t.Errorf("data = %s", got)
	}
	h := o.Prop("headers").(*jsvalue.Object)
	if h.Prop("content-type") != "application/json" || h.Prop("content-length") != "28" {
		t.Errorf("headers = %s", h)
	}
}

func TestNoURLUsesBaseURL(t *testing.T) {
	srv := newServer(t)
	e := echo(t, `{"baseURL":"`+srv.URL+`/echo/"}`, `{}`)
	if e.URL != "/echo/" || e.Method != "GET" {
		t.Errorf("got %+v", e)
	}
	if e.Headers["Accept"] != "application/json, text/plain, */*" || e.Headers["User-Agent"] != "axios/1.5.1" {
		t.Errorf("default headers: %v", e.Headers)
	}
	if _, ok := e.Headers["Content-Type"]; ok {
		t.Errorf("a request without data has a Content-Type: %v", e.Headers)
	}
}

func TestParams(t *testing.T) {
	srv := newServer(t)
	// Expected string from axios 1.5.1 in Node for the same config (axios.getUri).
	e := echo(t, `{"baseURL":"`+srv.URL+`"}`, `{"url":"/p?q=1#frag","params":{"a":1,"b":[1,"x y"],"c":{"d":1,"e":[2]},"n":null,"s":"a&b=c:$,[]@!'()*","t":true,"f":1.5,"j{}":{"k":[1]},"o":[{"x":1}],"u":"é"}}`)
	want := "/p?q=1&a=1&b[]=1&b[]=x+y&c[d]=1&c[e][0]=2&s=a%26b%3Dc:$,[]%40!'()*&t=true&f=1.5&j%7B%7D=%7B%22k%22:[1]%7D&o[0][x]=1&u=%C3%A9"
	if e.URL != want {
		t.Errorf("url\n got %s\nwant %s", e.URL, want)
	}
	// A date param is its ISO string.
	params := jsvalue.ObjectOf("dt", time.Unix(0, 0).UTC())
	if got := serializeParams(params); got != "dt=1970-01-01T00:00:00.000Z" {
		t.Errorf("date param = %s", got)
	}
}

func TestMergeArraysIndexWise(t *testing.T) {
	srv := newServer(t)
	e := echo(t, `{"baseURL":"`+srv.URL+`","params":{"a":[1,2,3]}}`, `{"url":"/m","params":{"a":[9]}}`)
	if e.URL != "/m?a[]=9&a[]=2&a[]=3" {
		t.Errorf("url = %s", e.URL)
	}
}

func TestMergeConfig(t *testing.T) {
	conn := obj(t, `{"baseURL":"x","headers":{"A":"1","B":"2"},"params":{"k":[1,2]},"timeout":5}`)
	req := jsvalue.ObjectOf("headers", jsvalue.ObjectOf("B", "3", "C", "4"), "timeout", jsvalue.Undefined,
		"params", jsvalue.ObjectOf("k", []any{jsvalue.Undefined, 7.0}), "baseURL", nil, "url", "/u")
	got := mergeConfig(conn, req)
	want := `{"baseURL":null,"headers":{"A":"1","B":"3","C":"4"},"params":{"k":[1,7]},"timeout":5,"url":"/u"}`
	if got.String() != want {
		t.Errorf("merge\n got %s\nwant %s", got, want)
	}
	if conn.String() != `{"baseURL":"x","headers":{"A":"1","B":"2"},"params":{"k":[1,2]},"timeout":5}` {
		t.Errorf("merge changed the connection: %s", conn)
	}
}

func TestData(t *testing.T) {
	srv := newServer(t)
	base := `{"baseURL":"` + srv.URL + `","headers":{"X-Conn":"c","Accept":"text/plain"}}`
	e := echo(t, base, `{"url":"/post","method":"post","data":{"b":1,"a":[1]},"headers":{"X-Req":2,"X-Off":false,"X-Null":null}}`)
	if e.Method != "POST" || e.Body != `{"b":1,"a":[1]}` || e.Headers["Content-Type"] != "application/json" ||
		e.Headers["Accept"] != "text/plain" || e.Headers["X-Conn"] != "c" || e.Headers["X-Req"] != "2" {
		t.Errorf("object data: %+v", e)
	}
	if _, ok := e.Headers["X-Off"]; ok {
		t.Errorf("false header sent: %v", e.Headers)
	}
	e = echo(t, base, `{"url":"/post","method":"post","data":"a=1&b=2"}`)
	if e.Body != "a=1&b=2" || e.Headers["Content-Type"] != "application/x-www-form-urlencoded" {
		t.Errorf("string data: %+v", e)
	}
	e = echo(t, base, `{"url":"/post","method":"put","data":[1,2]}`)
	if e.Method != "PUT" || e.Body != "[1,2]" || e.Headers["Content-Type"] != "application/json" {
		t.Errorf("array data: %+v", e)
	}
	e = echo(t, base, `{"url":"/post","method":"post","data":null}`)
	if e.Body != "" || e.Headers["Content-Type"] != "application/x-www-form-urlencoded" {
		t.Errorf("null data: %+v", e)
	}
	e = echo(t, base, `{"url":"/post","method":"post","data":{"a":1},"headers":{"content-type":"text/plain"}}`)
	if e.Body != `{"a":1}` || e.Headers["Content-Type"] != "text/plain" {
		t.Errorf("explicit content type: %+v", e)
	}
	e = echo(t, base, `{"url":"/post","method":"patch","headers":{"common":{"X-Common":"1"},"patch":{"X-Patch":"2"},"get":{"X-Get":"3"}}}`)
	if e.Headers["X-Common"] != "1" || e.Headers["X-Patch"] != "2" || e.Headers["X-Get"] != "" || e.Headers["Common"] != "" {
		t.Errorf("per-method headers: %+v", e.Headers)
	}
	for _, d := range []string{"5", "true"} {
		_, err := call(t, nil, base, `{"url":"/post","method":"post","data":`+d+`}`)
		if err == nil || err.Error() != "Data after transformation must be a string, an ArrayBuffer, a Buffer, or a Stream" {
			t.Errorf("data %s: err = %v", d, err)
		}
	}
}

func TestBasicAuthReplacesAuthorization(t *testing.T) {
	srv := newServer(t)
	e := echo(t, `{"baseURL":"`+srv.URL+`","headers":{"Authorization":"Bearer x"},"auth":{"username":"u","password":"p"}}`, `{"url":"/auth"}`)
	if e.Headers["Authorization"] != "Basic dTpw" {
		t.Errorf("Authorization = %q", e.Headers["Authorization"])
	}
}

func TestHTTPErrors(t *testing.T) {
	srv := newServer(t)
	conn := `{"baseURL":"` + srv.URL + `","headers":{"Authorization":"Bearer s3cr3t-value"}}`
	cases := []struct{ req, want string }{
		{`{"url":"/err"}`, `Request failed with status code 404; Http response "404: Nope Found"; Data: {"z":1,"a":[1,2]}.`},
		{`{"url":"/bad"}`, `Request failed with status code 500; Http response "500: Internal Server Error"; Data: "oops".`},
		{`{"url":"/redir","maxRedirects":0}`, `Request failed with status code 302; Http response "302: Found"; Data: "<a href=\"/json\">Found</a>.\n\n".`},
		{`{"url":"/redir2","maxRedirects":1}`, `Maximum number of redirects exceeded`},
		{`{"url":"/json","maxContentLength":3}`, `maxContentLength size of 3 exceeded`},
		{`{"url":"/slow","timeout":50}`, `timeout of 50ms exceeded`},
		{`{"url":"/x","proxy":{"host":"p"}}`, `AxiosHttp property "proxy" is not supported: requests go out through the gateway's HTTP client; remove "proxy"`},
		{`{"url":"/x","headers":{"X-Bad":"s3cr3t-value\n"}}`, `AxiosHttp: header "X-Bad" has an invalid value (control characters); fix the header`},
	}
	for _, tc := range cases {
		_, err := call(t, nil, conn, tc.req)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v\nwant %s", tc.req, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: the error shows a header value: %v", tc.req, err)
		}
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = call(t, nil, `{}`, `{"url":"http://`+addr+`/?key=s3cr3t"}`)
	if err == nil || err.Error() != "connect ECONNREFUSED "+addr {
		t.Errorf("err = %v", err)
	}
	_, err = call(t, nil, `{}`, `{"url":"/relative"}`)
	if err == nil || !strings.Contains(err.Error(), "set baseURL") {
		t.Errorf("relative url: err = %v", err)
	}
}

func TestResponseTypesAndHeaders(t *testing.T) {
	srv := newServer(t)
	conn := `{"baseURL":"` + srv.URL + `"}`
	data := func(req string) any {
		t.Helper()
		res, err := call(t, nil, conn, req)
		if err != nil {
			t.Fatalf("%s: %v", req, err)
		}
		return res.(*jsvalue.Object).Prop("data")
	}
	if d := data(`{"url":"/text"}`); d != "hello" {
		t.Errorf("text = %v", d)
	}
	if d := data(`{"url":"/json","responseType":"text"}`); d != `{"z":1,"a":{"y":2,"b":3}}` {
		t.Errorf("json as text = %v", d)
	}
	if d := data(`{"url":"/json","responseType":"document"}`); d != `{"z":1,"a":{"y":2,"b":3}}` {
		t.Errorf("json as document = %v", d)
	}
	if d := data(`{"url":"/text","responseType":"json"}`); d != "hello" {
		t.Errorf("text as json = %v (axios parses JSON silently)", d)
	}
	if d := data(`{"url":"/empty"}`); d != "" {
		t.Errorf("204 = %#v", d)
	}
	if d := data(`{"url":"/json","method":"head"}`); d != "" {
		t.Errorf("head = %#v", d)
	}
	if d := data(`{"url":"/text","responseEncoding":"base64"}`); d != "aGVsbG8=" {
		t.Errorf("base64 = %#v", d)
	}
	if d := data(`{"url":"/redir"}`); d.(*jsvalue.Object).String() != `{"z":1,"a":{"y":2,"b":3}}` {
		t.Errorf("redirect followed = %v", d)
	}
	// Repeated headers as Node gives them.
	resp := &http.Response{Header: http.Header{"Set-Cookie": {"a=1", "b=2"}, "X-Multi": {"1", "2"}, "Content-Type": {"a", "b"}}, TransferEncoding: []string{"chunked"}}
	if got := responseHeaders(resp).String(); got != `{"content-type":"a","set-cookie":["a=1","b=2"],"transfer-encoding":"chunked","x-multi":"1, 2"}` {
		t.Errorf("headers = %s", got)
	}
}

func TestUsesDepsHTTPClient(t *testing.T) {
	srv := newServer(t)
	var used atomic.Int32
	deps := &connections.Deps{HTTPClient: func() *http.Client {
		return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			used.Add(1)
			return http.DefaultTransport.RoundTrip(r)
		})}
	}}
	if _, err := call(t, deps, `{"baseURL":"`+srv.URL+`"}`, `{"url":"/redir"}`); err != nil {
		t.Fatal(err)
	}
	if used.Load() != 2 {
		t.Errorf("the Deps client made %d round trips, want 2 (redirect and target)", used.Load())
	}
	// The client's own redirect check (the SSRF guard's) still applies.
	deps.HTTPClient = func() *http.Client {
		return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
			return &net.AddrError{Err: "address is not allowed", Addr: "guarded"}
		}}
	}
	_, err := call(t, deps, `{"baseURL":"`+srv.URL+`"}`, `{"url":"/redir"}`)
	if err == nil || !strings.Contains(err.Error(), "address is not allowed") {
		t.Errorf("guarded redirect: err = %v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestCheck(t *testing.T) {
	cases := []struct{ props, want string }{
		{`{"url":"/x","method":"get","timeout":1,"auth":{"username":"u"}}`, ""},
		{`{"method":5}`, `AxiosHttp property "method" should be a string.; AxiosHttp property "method" is not a valid value.`},
		{`{"method":"POST","url":1,"auth":{"username":1},"timeout":"1"}`, `AxiosHttp property "url" should be a string.; AxiosHttp property "auth.username" should be a string.`},
		{`{"auth":{"username":1,"password":2}}`, `AxiosHttp property "auth.username" should be a string.; AxiosHttp property "auth.password" should be a string.`},
		{`{"headers":[]}`, `AxiosHttp property "headers" should be an object.`},
	}
	for _, tc := range cases {
		err := checkProps(obj(t, tc.props))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.props, got, tc.want)
		}
	}
	if err := checkProps(5.0); err == nil || err.Error() != "must be object" {
		t.Errorf("number props: %v", err)
	}
}
