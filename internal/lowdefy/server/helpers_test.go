package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
)

var bg = context.Background()

// recorder is a connection type defined by the tests (the plugin boundary): its
// request types return what they received, so the tests can see what the server
// evaluated and passed on.
type recorder struct {
	mu    sync.Mutex
	calls []*connections.Call
	// inFlight and maxInFlight count concurrent Runs (for :parallel).
	inFlight, maxInFlight int
}

func (rec *recorder) run(ctx context.Context, c *connections.Call) (any, error) {
	rec.mu.Lock()
	rec.calls = append(rec.calls, c)
	rec.inFlight++
	if rec.inFlight > rec.maxInFlight {
		rec.maxInFlight = rec.inFlight
	}
	rec.mu.Unlock()
	defer func() {
		rec.mu.Lock()
		rec.inFlight--
		rec.mu.Unlock()
	}()
	req, _ := c.Request.(*jsvalue.Object)
	if ms, ok := req.Prop("sleepMs").(float64); ok {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	if msg, ok := req.Prop("fail").(string); ok {
		// A driver error that quotes the connection string, as database drivers do.
		return nil, errors.New(msg + " (connecting with " + jsvalue.ToString(c.Connection.Prop("password")) + ")")
	}
	if req.Has("panic") {
		panic("boom")
	}
	if v, ok := req.Get("respond"); ok {
		return v, nil
	}
	return c.Request, nil
}

func (rec *recorder) last(t *testing.T) *connections.Call {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.calls) == 0 {
		t.Fatal("the connection was not called")
	}
	return rec.calls[len(rec.calls)-1]
}

// set returns a connection Set, under the names of Lowdefy's connection types (the
// loader accepts only those), whose request types all record into rec:
// MongoDBCollection with MongoDBAggregation (no checks), MongoDBFind (read check),
// MongoDBInsertOne (write check) and MongoDBFindOne (a property check), Knex with
// KnexRaw and AxiosHttp with AxiosHttp. GoogleSheet and the other MongoDB request
// types are left out, so an app can use a type the server does not have.
func (rec *recorder) set() connections.Set {
	rt := func(read, write bool) *connections.RequestType {
		return &connections.RequestType{CheckRead: read, CheckWrite: write, Run: rec.run}
	}
	checked := rt(false, false)
	checked.Check = func(props any) error {
		if !props.(*jsvalue.Object).Has("query") {
			return errors.New("Request property \"query\" is required.")
		}
		return nil
	}
	return connections.Set{
		"MongoDBCollection": {Name: "MongoDBCollection", Requests: map[string]*connections.RequestType{
			"MongoDBAggregation": rt(false, false), "MongoDBFind": rt(true, false), "MongoDBInsertOne": rt(false, true), "MongoDBFindOne": checked,
		}},
		"Knex":      {Name: "Knex", Requests: map[string]*connections.RequestType{"KnexRaw": rt(false, false)}},
		"AxiosHttp": {Name: "AxiosHttp", Requests: map[string]*connections.RequestType{"AxiosHttp": rt(false, false)}},
	}
}

// loadApp writes files into a temporary app directory and loads it.
func loadApp(t *testing.T, files map[string]string) *app.App {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := app.Load(dir, app.Options{})
	if err != nil {
		t.Fatalf("loading test app: %v", err)
	}
	return a
}

// copyDir copies the tutorial step src into a temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func user(roles ...any) *jsvalue.Object {
	return jsvalue.ObjectOf("id", "u1", "email", "ada@example.com", "roles", roles)
}

func wantError(t *testing.T, err error, kind, msg string) *Error {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("got %v (%T), want %s %q", err, err, kind, msg)
	}
	if se.Kind != kind || se.Message != msg {
		t.Fatalf("got %s %q, want %s %q", se.Kind, se.Message, kind, msg)
	}
	return se
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	s, ok := jsvalue.Stringify(v, "")
	if !ok {
		t.Fatalf("value %v does not stringify", v)
	}
	return s
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
