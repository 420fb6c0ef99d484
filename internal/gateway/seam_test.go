package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// seamBackend is a backend kind written for these tests ("test-seam"): it offers every
// optional ability, so the tests can see the gateway use each one.
type seamBackend struct {
	mu      sync.Mutex
	extra   bool // list the tool "extra" too
	changes chan struct{}
	ended   chan string
	closed  chan struct{}
	started chan struct{}
	release chan struct{}
}

// slowOpen holds the Open of test-seam servers named slow* until it is closed; each such
// Open sends on slowOpening first, when it can, to say it is under way.
var (
	slowOpen    = make(chan struct{})
	releaseSlow = sync.OnceFunc(func() { close(slowOpen) })
	slowOpening = make(chan struct{}, 1)
)

// flakyFails makes the Open of test-seam servers named flaky* fail.
var flakyFails atomic.Bool

// seams are the opened test-seam backends by server name, in the order they were opened.
var seams = struct {
	sync.Mutex
	m map[string][]*seamBackend
}{m: map[string][]*seamBackend{}}

func lastSeam(name string) *seamBackend {
	seams.Lock()
	defer seams.Unlock()
	bs := seams.m[name]
	if len(bs) == 0 {
		return nil
	}
	return bs[len(bs)-1]
}

func init() {
	backend.Register(backend.Kind{Name: "test-seam", Decode: func(s *config.Server) (backend.Spec, config.Problems) {
		name := s.Name
		return backend.SpecFunc(func(context.Context, backend.Deps) (backend.Backend, error) {
			if strings.HasPrefix(name, "broken") || strings.HasPrefix(name, "flaky") && flakyFails.Load() {
				return nil, errors.New("upstream at 127.0.0.1:1 refused the connection")
			}
			if strings.HasPrefix(name, "slow") {
				select {
				case slowOpening <- struct{}{}:
				default:
				}
				<-slowOpen // an upstream that takes its time to answer
			}
			b := &seamBackend{
				changes: make(chan struct{}, 1), ended: make(chan string, 8), closed: make(chan struct{}),
				started: make(chan struct{}, 1), release: make(chan struct{}),
			}
			seams.Lock()
			seams.m[name] = append(seams.m[name], b)
			seams.Unlock()
			return b, nil
		}), nil
	}})
}

func (b *seamBackend) Catalog(context.Context) (*backend.Catalog, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	obj := map[string]any{"type": "object"}
	c := &backend.Catalog{
		Tools: []*mcp.Tool{
			{Name: "slow", Description: "waits for the test", InputSchema: obj},
			{Name: "ask", Description: "asks the user", InputSchema: obj},
		},
		Resources: []*mcp.Resource{{URI: "seam://r", Name: "r"}},
		Templates: []*mcp.ResourceTemplate{{URITemplate: "seam://items/{id}", Name: "item"}},
		Prompts:   []*mcp.Prompt{{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}}},
	}
	if b.extra {
		c.Tools = append(c.Tools, &mcp.Tool{Name: "extra", Description: "appeared later", InputSchema: obj})
	}
	return c, nil
}

func (b *seamBackend) CallTool(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	switch c.Name {
	case "slow":
		b.started <- struct{}{}
		select {
		case <-b.release:
			return backend.TextResult("done"), nil
		case <-ctx.Done():
			return backend.ErrorResult("cancelled"), nil
		}
	case "ask":
		_ = c.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "asking"})
		res, err := c.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return backend.ErrorResult("elicit: %v", err), nil
		}
		return backend.TextResult(fmt.Sprintf("session %s: %s %v", c.Session.ID(), res.Action, res.Content["name"])), nil
	}
	return backend.ErrorResult("unknown tool %q", c.Name), nil
}

func (b *seamBackend) ReadResource(_ context.Context, _ auth.Principal, uri string) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "read " + uri}}}, nil
}

func (b *seamBackend) GetPrompt(_ context.Context, r *backend.PromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + r.Arguments["who"]}}}}, nil
}

func (b *seamBackend) Complete(_ context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{p.Argument.Value + "lpha", p.Argument.Value + "rgon"}}}, nil
}

func (b *seamBackend) Changes() <-chan struct{} { return b.changes }

func (b *seamBackend) SessionEnded(id string) { b.ended <- id }

func (b *seamBackend) Close() error { close(b.closed); return nil }

const seamConfig = `
servers:
  seam:
    kind: test-seam
    description: every ability
    resources:
      readme: {uri: "docs://readme", text: "configured text"}
    prompts:
      hello: {messages: [{role: user, text: "configured prompt"}]}
  broken:
    kind: test-seam
    description: cannot open
  demo:
    kind: command
    description: still served
    tools:
      echo: {description: Echo, inputSchema: {type: object, properties: {m: {type: string}}}, argv: [echo, {direct: m}]}
`

// The gateway serves a backend's resources, templates and prompts beside the configured
// ones, sends reads, gets and completions to the backend, forwards the backend's requests
// to the client through the call's session, follows catalog changes with list_changed,
// and tells the backend when a client session ends. A server that cannot open is served
// as unavailable while the others work.
func TestBackendSeam(t *testing.T) {
	srv := gatewaytest.Start(t, seamConfig, gateway.Options{}).URL // one broken server does not stop it

	// The broken server answers 503 with the reason; the others are served.
	resp, err := http.Post(srv+"/mcp/broken", "application/json", strings.NewReader(initBody("2025-11-25")))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "refused the connection") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("broken server: %d %s", resp.StatusCode, body)
	}
	demo := connect(t, srv+"/mcp/demo", "2025-11-25")
	if r := call(t, demo, "echo", map[string]any{"m": "hi"}); r.IsError {
		t.Errorf("demo echo: %v", text(t, r))
	}

	ctx := context.Background()
	listChanged := make(chan struct{}, 4)
	c := mcp.NewClient(&mcp.Implementation{Name: "seam-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { listChanged <- struct{}{} },
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv + "/mcp/seam"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	sid := cs.ID()

	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if !slices.Equal(uris, []string{"docs://readme", "seam://r"}) {
		t.Errorf("resources = %v, want the backend's and the configured one", uris)
	}
	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != "seam://items/{id}" {
		t.Errorf("templates = %+v, %v", tmpls, err)
	}
	for uri, want := range map[string]string{"seam://r": "read seam://r", "seam://items/7": "read seam://items/7", "docs://readme": "configured text"} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != want {
			t.Errorf("read %s = %+v, %v; want %q", uri, rr, err, want)
		}
	}
	for name, want := range map[string]string{"greet": "hello Ada", "hello": "configured prompt"} {
		args := map[string]string{}
		if name == "greet" {
			args["who"] = "Ada"
		}
		pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != want {
			t.Errorf("prompt %s = %+v, %v", name, pr, err)
		}
	}
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "a"}})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"alpha", "argon"}) {
		t.Errorf("complete = %+v, %v", comp, err)
	}

	// The backend's request reaches the client through the call's session.
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
	if err != nil || r.IsError || text(t, r) != "session "+sid+": accept Ada" {
		t.Errorf("ask = %v, %v", r, err)
	}

	// A catalog change is announced and served.
	b := lastSeam("seam")
	b.mu.Lock()
	b.extra = true
	b.mu.Unlock()
	b.changes <- struct{}{}
	select {
	case <-listChanged:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed after the backend's catalog changed")
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 3 {
		t.Errorf("tools after the change = %+v, %v", tools, err)
	}

	// The backend learns that the session ended.
	cs.Close()
	select {
	case got := <-b.ended:
		if got != sid {
			t.Errorf("SessionEnded(%q), want %q", got, sid)
		}
	case <-time.After(5 * time.Second):
		t.Error("the backend was not told that the session ended")
	}
}

// When a stored definition is replaced, the old backend is closed only after the call it
// is running has finished, and that call's result reaches the client.
func TestReplacedBackendDrains(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, url := startGateway(t, st)
	def := func(desc string) string { return `{"kind":"test-seam","description":"` + desc + `"}` }
	if code, m := admin(t, "PUT", url+"/admin/api/servers/drain", adminKey, def("first")); code != 201 {
		t.Fatalf("put: %d %v", code, m)
	}
	old := lastSeam("drain")
	cs := connect(t, url+"/mcp/drain", "2025-11-25")
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow"})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	<-old.started
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(old.release) }) }
	defer release() // a failing test must not leave the call (and the server) hanging
	if code, m := admin(t, "PUT", url+"/admin/api/servers/drain", adminKey, def("second")); code != 200 {
		t.Fatalf("replace: %d %v", code, m)
	}
	if lastSeam("drain") == old {
		t.Fatal("the replacement did not open a new backend")
	}
	select {
	case <-old.closed:
		t.Fatal("the old backend was closed while its call was running")
	case <-time.After(300 * time.Millisecond):
	}
	release()
	if r := <-done; r == nil || r.IsError || text(t, r) != "done" {
		t.Errorf("the running call's result = %v", r)
	}
	select {
	case <-old.closed:
	case <-time.After(5 * time.Second):
		t.Error("the old backend was not closed after its call finished")
	}
}

// The admin API refuses a definition that could not be opened (a secret that is not set),
// with the problem located as check reports it, instead of storing it and failing later.
func TestAdminRefusesUnopenable(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, url := startGateway(t, st)
	def := `{"kind":"http","description":"d","base_url":"https://api.example.com",
 "headers":{"Authorization":"secret:MCPBRIDGE_TEST_UNSET_KEY"},
 "tools":{"get":{"description":"d","method":"GET","path":"/x"}}}`
	code, m := admin(t, "PUT", url+"/admin/api/servers/api", adminKey, def)
	if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(m["problems"]), "path:headers.Authorization") ||
		!strings.Contains(fmt.Sprint(m), "secret MCPBRIDGE_TEST_UNSET_KEY is not set") {
		t.Errorf("PUT of an unopenable definition: %d %v", code, m)
	}
	if code, _ := admin(t, "GET", url+"/admin/api/servers/api", adminKey, ""); code != http.StatusNotFound {
		t.Errorf("the refused definition was stored: GET %d", code)
	}
}

// tools_include and tools_exclude decide which tools a server offers, for every kind.
func TestToolFilters(t *testing.T) {
	srv := gatewaytest.Start(t, `
servers:
  filtered:
    kind: command
    description: d
    tools_include: ["get_*", ping]
    tools_exclude: ["*_secret"]
    tools:
      get_user: {description: d, argv: [echo, user]}
      get_secret: {description: d, argv: [echo, secret]}
      ping: {description: d, argv: [echo, pong]}
      delete_user: {description: d, argv: [echo, gone]}
`, gateway.Options{})
	cs := connect(t, srv.URL+"/mcp/filtered", "2025-11-25")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"get_user", "ping"}) {
		t.Errorf("tools = %v, want [get_user ping]", names)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_user"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("calling a filtered-out tool: %v", err)
	}
}

// Reload reopens only the servers whose definition changed, tells connected clients, and
// retires removed servers.
func TestReload(t *testing.T) {
	v1 := `
servers:
  keep: {kind: test-seam, description: unchanged}
  change: {kind: test-seam, description: first}
  drop: {kind: test-seam, description: removed later}
`
	srv := gatewaytest.Start(t, v1, gateway.Options{})
	keep, change, drop := lastSeam("keep"), lastSeam("change"), lastSeam("drop")
	_, changed := listChangedSession(t, srv.URL+"/mcp/change")
	next, err := config.Parse("test.yaml", t.TempDir(), []byte(`
listen: 127.0.0.1:9999
servers:
  keep: {kind: test-seam, description: unchanged}
  change: {kind: test-seam, description: second, tools_exclude: [ask]}
  added: {kind: test-seam, description: new}
`), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	restart := srv.Reload(context.Background(), next)
	if !slices.Equal(restart, []string{"listen"}) {
		t.Errorf("settings needing a restart = %v, want [listen]", restart)
	}
	if lastSeam("keep") != keep {
		t.Error("an unchanged server was reopened")
	}
	if lastSeam("change") == change || lastSeam("added") == nil {
		t.Error("the changed server was not reopened, or the new one not opened")
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Error("no list_changed for the changed server")
	}
	for _, b := range []*seamBackend{change, drop} {
		select {
		case <-b.closed:
		case <-time.After(5 * time.Second):
			t.Error("a replaced or removed backend was not closed")
		}
	}
	if srv.Entry("drop") != nil {
		t.Error("the removed server is still served")
	}
}

// ReloadServer reopens a server whose definition did not change (what it points at did),
// telling connected clients; when the new backend cannot be opened the running one is kept.
func TestReloadServer(t *testing.T) {
	srv := gatewaytest.Start(t, "servers:\n  flaky: {kind: test-seam, description: d}\n", gateway.Options{})
	first := lastSeam("flaky")
	cs, changed := listChangedSession(t, srv.URL+"/mcp/flaky")
	def := srv.Entry("flaky").Config()
	if err := srv.ReloadServer(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	second := lastSeam("flaky")
	if second == first {
		t.Fatal("the server was not reopened")
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Error("no list_changed after the reload")
	}
	select {
	case <-first.closed:
	case <-time.After(5 * time.Second):
		t.Error("the replaced backend was not closed")
	}

	flakyFails.Store(true)
	defer flakyFails.Store(false)
	if err := srv.ReloadServer(context.Background(), def); err == nil || !strings.Contains(err.Error(), "refused the connection") {
		t.Fatalf("reloading a server that cannot open: %v", err)
	}
	if lastSeam("flaky") != second || srv.Entry("flaky").Unavailable() != "" {
		t.Error("the running backend was not kept")
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("the kept server does not answer: %v", err)
	}
	if err := srv.ReloadServer(context.Background(), &config.Server{Name: "nope"}); err == nil {
		t.Error("reloading a server that is not served succeeded")
	}
}

// A backend that is slow to open holds up neither the admin API nor other servers.
func TestSlowOpenBlocksNothing(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, url := startGateway(t, st)
	defer releaseSlow()
	select {
	case <-slowOpening: // left by an earlier slow open
	default:
	}
	slowDone := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		admin(t, "PUT", url+"/admin/api/servers/slow", adminKey, `{"kind":"test-seam","description":"slow to open"}`)
		slowDone <- time.Since(start)
	}()
	select {
	case <-slowOpening: // the slow open is under way, and stays so until releaseSlow
	case <-time.After(time.Minute):
		t.Fatal("the slow server's open did not start within a minute")
	}
	// The slow open never ends before releaseSlow, so a PUT that waited for it would not
	// be answered at all: that it is answered is the check.
	if code, m := admin(t, "PUT", url+"/admin/api/servers/quick", adminKey, `{"kind":"test-seam","description":"quick"}`); code != 201 {
		t.Fatalf("put quick: %d %v", code, m)
	}
	cs := connect(t, url+"/mcp/quick", "2025-11-25")
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("the quick server is not served while the slow one opens: %v", err)
	}
	if code, _ := admin(t, "GET", url+"/admin/api/servers", adminKey, ""); code != 200 {
		t.Errorf("the admin API is held up: GET %d", code)
	}
	select {
	case d := <-slowDone: // answered while the open is still held
		t.Logf("the admin API answered the slow PUT after %s", d)
	case <-time.After(time.Minute):
		t.Fatal("the admin API did not answer the PUT of a slow server while it opens")
	}
}

// completion/complete completes a configured prompt's arguments from their values.
func TestCompleteConfiguredPrompt(t *testing.T) {
	srv := gatewaytest.Start(t, `
servers:
  p:
    kind: command
    description: d
    prompts:
      weather:
        arguments: [{name: city, values: [Berlin, Bern, Boston, Paris]}, {name: unit}]
        messages: [{role: user, text: "Weather in {{city}}"}]
`, gateway.Options{})
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		cs := connect(t, srv.URL+"/mcp/p", era)
		comp := func(arg, typed string) []string {
			res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "weather"}, Argument: mcp.CompleteParamsArgument{Name: arg, Value: typed}})
			if err != nil {
				t.Fatalf("%s: complete: %v", era, err)
			}
			return res.Completion.Values
		}
		if got := comp("city", "be"); !slices.Equal(got, []string{"Berlin", "Bern"}) {
			t.Errorf("%s: city be → %v", era, got)
		}
		if got := comp("unit", "c"); len(got) != 0 {
			t.Errorf("%s: an argument without values completed to %v", era, got)
		}
	}
}

// A client subscribed to a configured file resource hears when the file changes.
func TestSubscribeFileResource(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := gatewaytest.StartIn(t, dir, `
servers:
  docs:
    kind: command
    description: d
    resources:
      notes: {uri: "docs://notes", file: notes.txt}
      fixed: {uri: "docs://fixed", text: "never changes"}
`, gateway.Options{})
	cs, updated := resourceUpdatedSession(t, srv.URL+"/mcp/docs")
	if !cs.InitializeResult().Capabilities.Resources.Subscribe {
		t.Error("the resources capability does not offer subscribe")
	}
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "docs://notes"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "docs://nope"}); err == nil {
		t.Error("subscribing to an unknown resource succeeded")
	}
	// Subscribe has recorded the file's stamp (size and time) before it answered; the new
	// content's size differs, so the change shows however soon it is written.
	if err := os.WriteFile(file, []byte("version two"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-updated:
		if uri != "docs://notes" {
			t.Errorf("updated %q", uri)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/resources/updated after the file changed")
	}
}

// Configured prompts may carry an embedded resource of the server and an image file.
func TestPromptResourceAndImage(t *testing.T) {
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	if err := os.WriteFile(filepath.Join(dir, "chart.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := gatewaytest.StartIn(t, dir, `
servers:
  p:
    kind: command
    description: d
    resources:
      guide: {uri: "docs://guide", text: "the style guide", mimeType: text/markdown}
    prompts:
      review:
        messages:
          - {role: user, resource: "docs://guide"}
          - {role: user, image: chart.png}
          - {role: user, text: "Review the chart against the guide."}
`, gateway.Options{})
	cs := connect(t, srv.URL+"/mcp/p", "2025-11-25")
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "review"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 3 {
		t.Fatalf("messages = %d", len(res.Messages))
	}
	if er, ok := res.Messages[0].Content.(*mcp.EmbeddedResource); !ok || er.Resource.Text != "the style guide" || er.Resource.URI != "docs://guide" {
		t.Errorf("resource message = %#v", res.Messages[0].Content)
	}
	if im, ok := res.Messages[1].Content.(*mcp.ImageContent); !ok || im.MIMEType != "image/png" || string(im.Data) != string(png) {
		t.Errorf("image message = %#v", res.Messages[1].Content)
	}
	_, err = config.Parse("c.yaml", dir, []byte(`
servers:
  p:
    kind: command
    description: d
    prompts:
      bad:
        messages: [{role: user, resource: "docs://missing"}, {role: user, text: a, image: b.png}]
`), backend.Kinds())
	for _, want := range []string{`servers.p.prompts.bad.messages[0].resource: "docs://missing" is not the uri of one of this server's resources`, `servers.p.prompts.bad.messages[1]: give exactly one of text, resource`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("problems %v, want %s", err, want)
		}
	}
}

// Configured resources may be templates: files named by the URI's variables, or tool
// output with the URI's query as arguments.
func TestConfiguredTemplates(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "guides"), 0o755)
	os.WriteFile(filepath.Join(dir, "guides", "style.md"), []byte("# Style"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.md"), []byte("outside guides"), 0o644)
	srv := gatewaytest.StartIn(t, dir, `
servers:
  docs:
    kind: command
    description: d
    tools:
      echo: {description: d, inputSchema: {type: object, properties: {message: {type: string}}}, argv: [echo, {direct: message}]}
    resources:
      guide: {uri_template: "docs://guides/{name}", file: "guides/{name}.md", mimeType: text/markdown}
      said: {uri_template: "server://docs/echo{?message}"}
`, gateway.Options{})
	cs := connect(t, srv.URL+"/mcp/docs", "2025-11-25")
	ctx := context.Background()
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 2 {
		t.Fatalf("templates = %+v, %v", tl, err)
	}
	for uri, want := range map[string]string{"docs://guides/style": "# Style", "server://docs/echo?message=hi": "hi\n"} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || rr.Contents[0].Text != want || rr.Contents[0].URI != uri {
			t.Errorf("read %s = %+v, %v; want %q", uri, rr, err, want)
		}
	}
	for _, uri := range []string{"docs://guides/..%2Fsecret", "docs://guides/nope"} {
		if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s succeeded: %+v", uri, rr.Contents[0])
		}
	}
}

var (
	_ backend.ResourceReader = (*seamBackend)(nil)
	_ backend.PromptGetter   = (*seamBackend)(nil)
	_ backend.Completer      = (*seamBackend)(nil)
)

// A client subscribed to a configured resource hears when a new definition of its server
// (a reload, an admin API write of a stored server) changes the resource's content, and
// not when it keeps it.
func TestSubscribeDefinitionChange(t *testing.T) {
	def := func(notes string) string {
		return `
servers:
  docs:
    kind: command
    description: d
    resources:
      notes: {uri: "docs://notes", text: "` + notes + `"}
      fixed: {uri: "docs://fixed", text: "never changes"}
`
	}
	srv := gatewaytest.Start(t, def("v1"), gateway.Options{})
	cs, updated := resourceUpdatedSession(t, srv.URL+"/mcp/docs")
	for _, uri := range []string{"docs://notes", "docs://fixed"} {
		if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	next, err := config.Parse("test.yaml", t.TempDir(), []byte(def("v2")), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	srv.Gateway.Reload(context.Background(), next)
	select {
	case uri := <-updated:
		if uri != "docs://notes" {
			t.Errorf("updated %q, want docs://notes", uri)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/resources/updated after the definition changed the resource")
	}
	select {
	case uri := <-updated:
		t.Errorf("also updated %q, which did not change", uri)
	case <-time.After(300 * time.Millisecond):
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "docs://notes"})
	if err != nil || rr.Contents[0].Text != "v2" {
		t.Errorf("read after the change = %+v, %v", rr, err)
	}
}

// listChangedSession opens a 2025-11-25 session on endpoint, closed when the test ends, and
// returns it with the channel that receives its tools/list_changed notifications.
func listChangedSession(t *testing.T, endpoint string) (*mcp.ClientSession, chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 4)
	c := mcp.NewClient(&mcp.Implementation{Name: "reload-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	return connectLegacy(t, c, endpoint), changed
}

// resourceUpdatedSession opens a 2025-11-25 session on endpoint, closed when the test ends,
// and returns it with the channel that receives the URIs of its resources/updated
// notifications.
func resourceUpdatedSession(t *testing.T, endpoint string) (*mcp.ClientSession, chan string) {
	t.Helper()
	updated := make(chan string, 4)
	c := mcp.NewClient(&mcp.Implementation{Name: "sub-test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	})
	return connectLegacy(t, c, endpoint), updated
}

// connectLegacy connects c to endpoint in the 2025-11-25 protocol, and closes the session
// when the test ends.
func connectLegacy(t *testing.T, c *mcp.Client, endpoint string) *mcp.ClientSession {
	t.Helper()
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
