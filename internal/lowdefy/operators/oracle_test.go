package operators

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// The oracle corpus: testdata/corpus.jsonl holds expressions, golden.jsonl
// what Lowdefy's real parsers (tools/lowdefy-oracle/oracle.mjs) returned for
// them. TestOracleCorpus compares the Go parsers line by line;
// TestOracleGoldenCurrent re-runs the oracle and checks the golden file.

const fixedNow = 1700000000000

func TestMain(m *testing.M) {
	// The oracle runs with TZ=UTC; local-time date methods must agree.
	time.Local = time.UTC
	os.Exit(m.Run())
}

type corpusCase struct {
	ID           string          `json:"id"`
	Server       bool            `json:"server"`
	Build        bool            `json:"build"`
	Expr         json.RawMessage `json:"expr"`
	Location     *string         `json:"location"`
	ArrayIndices []int           `json:"arrayIndices"`
	Event        json.RawMessage `json:"event"`
	Check        string          `json:"check"`
	NoEvent      bool            `json:"noEvent"`
}

// goldenResult is one line of golden.jsonl. Value is the JSON text of the
// serialized value exactly as JSON.stringify wrote it, so that results are
// compared with their key order.
type goldenResult struct {
	Value     jsonText `json:"value"`
	Undefined bool     `json:"undefined"`
	Function  bool     `json:"function"`
	HasErrors bool     `json:"hasErrors"`
}

// fixture is testdata/context.json, decoded like the oracle does
// (serializer.deserialize of the whole file), keys in file order.
type fixture struct {
	PageID, BasePath, HomePageID                                    string
	State, Input, Global, User, Requests, Actions, Payload, Secrets *jsvalue.Object
	Env                                                             *jsvalue.Object
	Location                                                        Location
	Window                                                          Window
	Menus, EventLog                                                 []any
	Event                                                           any
}

// jsonText is a JSON value kept as its text.
type jsonText string

// UnmarshalJSON keeps the raw text.
func (j *jsonText) UnmarshalJSON(b []byte) error {
	*j = jsonText(b)
	return nil
}

// canonical rewrites the text as jsvalue writes it, keeping the key order:
// escapes become the characters they stand for (a lone surrogate, which Go
// strings cannot hold, becomes U+FFFD on both sides).
func (j jsonText) canonical() jsonText {
	if j == "" {
		return j
	}
	v, err := jsvalue.Decode([]byte(j))
	if err != nil {
		return j
	}
	s, _ := jsvalue.Stringify(v, "")
	return jsonText(s)
}

func loadFixture(t testing.TB) *fixture {
	t.Helper()
	data, err := os.ReadFile("testdata/context.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := serial.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*jsvalue.Object)
	obj := func(k string) *jsvalue.Object { m, _ := o.Prop(k).(*jsvalue.Object); return m }
	str := func(m *jsvalue.Object, k string) string { s, _ := m.Prop(k).(string); return s }
	num := func(m *jsvalue.Object, k string) float64 { f, _ := m.Prop(k).(float64); return f }
	loc, win := obj("location"), obj("window")
	menus, _ := o.Prop("menus").([]any)
	eventLog, _ := o.Prop("eventLog").([]any)
	return &fixture{
		PageID: str(o, "pageId"), BasePath: str(o, "basePath"), HomePageID: str(o, "homePageId"),
		State: obj("state"), Input: obj("input"), Global: obj("global"), User: obj("user"), Requests: obj("requests"),
		Actions: obj("actions"), Payload: obj("payload"), Secrets: obj("secrets"), Env: obj("env"),
		Location: Location{
			Hash: str(loc, "hash"), Host: str(loc, "host"), Hostname: str(loc, "hostname"), Href: str(loc, "href"),
			Origin: str(loc, "origin"), Pathname: str(loc, "pathname"), Port: str(loc, "port"),
			Protocol: str(loc, "protocol"), Search: str(loc, "search"),
		},
		Window: Window{InnerWidth: num(win, "innerWidth"), InnerHeight: num(win, "innerHeight")},
		Menus:  menus, EventLog: eventLog, Event: o.Prop("event"),
	}
}

// newFixtureContext builds the oracle's fixed context: frozen time and the
// oracle's Math.random sequence.
func newFixtureContext(f *fixture) *Context {
	rnd := 0.0
	return &Context{
		PageID: f.PageID, BasePath: f.BasePath, HomePageID: f.HomePageID,
		State: f.State, Input: f.Input, Global: f.Global, User: f.User,
		Location: &f.Location, Window: &Window{InnerWidth: f.Window.InnerWidth, InnerHeight: f.Window.InnerHeight},
		Menus: f.Menus, Requests: f.Requests, EventLog: f.EventLog, Payload: f.Payload, Secrets: f.Secrets, Env: f.Env,
		Now: func() time.Time { return jsvalue.DateFromMillis(fixedNow) },
		Random: func() float64 {
			rnd = math.Mod(rnd+0.6180339887498949, 1)
			return rnd
		},
	}
}

func readJSONLines(t testing.TB, path string, each func(line []byte)) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			each(append([]byte(nil), sc.Bytes()...))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func loadAllowList(t testing.TB) map[string]string {
	t.Helper()
	data, err := os.ReadFile("testdata/allowlist.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, " ")
		if strings.TrimSpace(reason) == "" {
			t.Fatalf("allowlist entry %q has no reason", id)
		}
		out[id] = strings.TrimSpace(reason)
	}
	return out
}

// evalCase runs one corpus case on the Go parsers and returns the result in
// the oracle's format.
func evalCase(t testing.TB, f *fixture, tc corpusCase) goldenResult {
	input, err := serial.Unmarshal(tc.Expr)
	if err != nil {
		t.Fatalf("%s: %v", tc.ID, err)
	}
	ctx := newFixtureContext(f)
	var p *Parser
	switch {
	case tc.Build:
		p = NewBuildParser(ctx)
	case tc.Server:
		p = NewServerParser(ctx)
	default:
		p = NewClientParser(ctx)
	}
	event := f.Event
	if tc.Event != nil {
		ev, err := serial.Unmarshal(tc.Event)
		if err != nil {
			t.Fatalf("%s: event: %v", tc.ID, err)
		}
		event = ev
	}
	if tc.NoEvent {
		event = nil
	}
	loc := "block1"
	if tc.Location != nil {
		loc = *tc.Location
	}
	out, errs := p.ParseWith(context.Background(), input, Options{Location: loc, ArrayIndices: tc.ArrayIndices, Event: event, Actions: f.Actions})
	if tc.Check == "type" {
		sum := jsvalue.ObjectOf("type", typeOf(out))
		switch x := out.(type) {
		case string:
			sum.Set("length", float64(jsvalue.StringLength(x)))
		case []any:
			sum.Set("length", float64(len(x)))
		}
		out = sum
	}
	res := goldenResult{HasErrors: len(errs) > 0}
	if jsvalue.IsUndefined(out) {
		res.Undefined = true
		return res
	}
	if _, ok := out.(jsvalue.Func); ok {
		res.Function = true
		return res
	}
	// Serialize like the oracle: serializer.serialize, then JSON.stringify.
	text, ok := jsvalue.Stringify(serial.Encode(out, false), "")
	if !ok {
		t.Fatalf("%s: result has no JSON form", tc.ID)
	}
	res.Value = jsonText(text)
	return res
}

func TestOracleCorpus(t *testing.T) {
	f := loadFixture(t)
	allow := loadAllowList(t)
	var cases []corpusCase
	readJSONLines(t, "testdata/corpus.jsonl", func(line []byte) {
		var tc corpusCase
		if err := json.Unmarshal(line, &tc); err != nil {
			t.Fatalf("corpus line %d: %v", len(cases)+1, err)
		}
		cases = append(cases, tc)
	})
	var golden []goldenResult
	readJSONLines(t, "testdata/golden.jsonl", func(line []byte) {
		var g goldenResult
		if err := json.Unmarshal(line, &g); err != nil {
			t.Fatalf("golden line %d: %v", len(golden)+1, err)
		}
		golden = append(golden, g)
	})
	if len(cases) != len(golden) {
		t.Fatalf("corpus has %d lines but golden has %d: regenerate golden with scripts/setup-lowdefy-oracle.sh and TestOracleGoldenCurrent", len(cases), len(golden))
	}
	if len(cases) < 1500 {
		t.Errorf("corpus has %d expressions, want at least 1500", len(cases))
	}
	agree, allowed := 0, 0
	seen := map[string]bool{}
	for i, tc := range cases {
		if seen[tc.ID] {
			t.Errorf("duplicate corpus id %s", tc.ID)
		}
		seen[tc.ID] = true
		got := evalCase(t, f, tc)
		want := golden[i]
		want.Value, got.Value = want.Value.canonical(), got.Value.canonical()
		if diff := cmp.Diff(want, got); diff != "" {
			if _, ok := allow[tc.ID]; ok {
				allowed++
				continue
			}
			t.Errorf("%s (line %d) %s: Go differs from Lowdefy (-lowdefy +go):\n%s", tc.ID, i+1, tc.Expr, diff)
			continue
		}
		if _, ok := allow[tc.ID]; ok {
			t.Errorf("%s is allow-listed but now agrees: remove it from testdata/allowlist.txt", tc.ID)
		}
		agree++
	}
	for id := range allow {
		if !seen[id] {
			t.Errorf("allowlist entry %s is not in the corpus", id)
		}
	}
	msg := fmt.Sprintf("oracle agreement: %d agree / %d total (%d allow-listed differences)", agree, len(cases), allowed)
	t.Log(msg)
	fmt.Println(msg)
}

// TestOracleGoldenCurrent runs Lowdefy's real parsers over the corpus and
// checks that testdata/golden.jsonl is what they produce. Set
// UPDATE_GOLDEN=1 to rewrite it.
func TestOracleGoldenCurrent(t *testing.T) {
	dir, err := filepath.Abs("../../../tools/lowdefy-oracle")
	if err != nil {
		t.Fatal(err)
	}
	testenv.Files(t, "the Lowdefy oracle", "scripts/setup-lowdefy-oracle.sh", filepath.Join(dir, "node_modules", "@lowdefy", "operators"))
	node := testenv.NodeOnPath(t, "scripts/setup-lowdefy-oracle.sh (it runs under node on PATH)")
	corpus, err := os.ReadFile("testdata/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ctxPath, _ := filepath.Abs("testdata/context.json")
	cmd := exec.Command(node, filepath.Join(dir, "oracle.mjs"), ctxPath)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC")
	cmd.Stdin = bytes.NewReader(corpus)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle failed: %v\n%s", err, stderr.String())
	}
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile("testdata/golden.jsonl", out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	golden, err := os.ReadFile("testdata/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(golden, out) {
		gl, ol := strings.Split(string(golden), "\n"), strings.Split(string(out), "\n")
		for i := 0; i < len(gl) && i < len(ol); i++ {
			if gl[i] != ol[i] {
				t.Fatalf("golden.jsonl is stale at line %d: committed %s, oracle now %s (rerun with UPDATE_GOLDEN=1)", i+1, gl[i], ol[i])
			}
		}
		t.Fatalf("golden.jsonl has %d lines, oracle produced %d (rerun with UPDATE_GOLDEN=1)", len(gl), len(ol))
	}
}
