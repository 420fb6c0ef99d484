package axioshttp

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
)

// TestOracle runs testdata/scenario.json against a loopback server and compares every
// step's {status, statusText, data} (or error) with what Lowdefy's own AxiosHttp
// connection returned in Node against a server answering the same way
// (testdata/oracle.mjs wrote testdata/want.txt).
func TestOracle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(oracleHandler))
	defer srv.Close()
	b, err := os.ReadFile(filepath.Join("testdata", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsvalue.Decode([]byte(strings.ReplaceAll(string(b), "{{base}}", srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	f, err := os.Open(filepath.Join("testdata", "want.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, _ := strings.Cut(sc.Text(), "\t")
		want[name] = rest
	}
	steps := v.([]any)
	if len(want) != len(steps) {
		t.Fatalf("want.txt has %d steps, scenario.json %d: regenerate want.txt with testdata/oracle.mjs", len(want), len(steps))
	}
	for _, s := range steps {
		o := s.(*jsvalue.Object)
		name := o.Prop("name").(string)
		conn := revive(o.Prop("connection")).(*jsvalue.Object)
		req := revive(o.Prop("request"))
		got := oracleResult(conn, req)
		got = strings.ReplaceAll(got, srv.URL, "{{base}}")
		if got != want[name] {
			t.Errorf("step %s:\n got %s\nwant %s", name, got, want[name])
		}
	}
}

// oracleResult runs one step as the oracle prints it.
func oracleResult(conn *jsvalue.Object, req any) string {
	typ := Type()
	if err := typ.Check(conn); err != nil {
		return "ERROR\t" + err.Error()
	}
	rt := typ.Requests["AxiosHttp"]
	if err := rt.Check(req); err != nil {
		return "ERROR\t" + err.Error()
	}
	res, err := rt.Run(context.Background(), &connections.Call{Connection: conn, Request: req})
	if err != nil {
		return "ERROR\t" + err.Error()
	}
	r := res.(*jsvalue.Object)
	s, _ := jsvalue.Stringify(jsvalue.ObjectOf("status", r.Prop("status"), "statusText", r.Prop("statusText"), "data", r.Prop("data")), "")
	return s
}

// revive turns {"~d": ms} into dates, as Lowdefy's serializer does.
func revive(v any) any {
	switch x := v.(type) {
	case *jsvalue.Object:
		if ms, ok := x.Get("~d"); ok && x.Len() == 1 {
			return jsvalue.DateFromMillis(ms.(float64))
		}
		for k, val := range x.Range {
			x.Set(k, revive(val))
		}
	case []any:
		for i, val := range x {
			x[i] = revive(val)
		}
	}
	return v
}

// oracleHandler answers as the server in testdata/oracle.mjs does.
func oracleHandler(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	url := r.URL.RequestURI()
	switch {
	case strings.HasPrefix(url, "/echo"):
		var names []string
		for k := range r.Header {
			lk := strings.ToLower(k)
			switch {
			case lk == "accept", lk == "content-type", lk == "authorization", lk == "user-agent", lk == "content-length", strings.HasPrefix(lk, "x-"):
				names = append(names, k)
			}
		}
		sort.Slice(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
		h := jsvalue.NewObject(len(names))
		for _, k := range names {
			h.Set(strings.ToLower(k), strings.Join(r.Header[k], ", "))
		}
		out, _ := jsvalue.Stringify(jsvalue.ObjectOf("method", r.Method, "url", url, "headers", h, "body", string(body)), "")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, out)
	case strings.HasPrefix(url, "/status/"):
		code, _ := strconv.Atoi(strings.SplitN(url[len("/status/"):], "?", 2)[0])
		if strings.Contains(url, "text=") {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(code)
			io.WriteString(w, "failed")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if code != 204 {
			io.WriteString(w, `{"code":`+strconv.Itoa(code)+`,"ok":`+strconv.FormatBool(code < 300)+`}`)
		}
	case url == "/redir":
		w.Header().Set("Location", "/echo/redirected")
		w.WriteHeader(302)
	case url == "/text":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello")
	case url == "/bytes":
		w.Write([]byte{0x68, 0xe9, 0xff, 0x00})
	case url == "/slow":
		select {
		case <-r.Context().Done():
		case <-time.After(time.Second):
			io.WriteString(w, "late")
		}
	default:
		w.WriteHeader(404)
	}
}
