package operators

import (
	"bufio"
	"bytes"
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

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
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

type goldenResult struct {
	Value     any  `json:"value"`
	Undefined bool `json:"undefined"`
	Function  bool `json:"function"`
	HasErrors bool `json:"hasErrors"`
}

type fixture struct {
	PageID     string         `json:"pageId"`
	BasePath   string         `json:"basePath"`
	HomePageID string         `json:"homePageId"`
	State      map[string]any `json:"state"`
	Input      map[string]any `json:"input"`
	Global     map[string]any `json:"global"`
	User       map[string]any `json:"user"`
	Location   Location       `json:"location"`
	Window     struct {
		InnerWidth  float64 `json:"innerWidth"`
		InnerHeight float64 `json:"innerHeight"`
	} `json:"window"`
	Menus    []any          `json:"menus"`
	Requests map[string]any `json:"requests"`
	EventLog []any          `json:"eventLog"`
	Event    any            `json:"event"`
	Actions  map[string]any `json:"actions"`
	Payload  map[string]any `json:"payload"`
	Secrets  map[string]any `json:"secrets"`
	Env      map[string]any `json:"env"`
}

func loadFixture(t testing.TB) *fixture {
	t.Helper()
	data, err := os.ReadFile("testdata/context.json")
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	f.State = serial.Decode(f.State).(map[string]any)
	f.Payload = serial.Decode(f.Payload).(map[string]any)
	return &f
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
		Now: func() time.Time { return serial.DateFromMillis(fixedNow) },
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
	out, errs := p.ParseWith(input, Options{Location: loc, ArrayIndices: tc.ArrayIndices, Event: event, Actions: f.Actions})
	if tc.Check == "type" {
		sum := map[string]any{"type": typeOf(out)}
		switch x := out.(type) {
		case string:
			sum["length"] = float64(utf16Len(x))
		case []any:
			sum["length"] = float64(len(x))
		}
		out = sum
	}
	res := goldenResult{HasErrors: len(errs) > 0}
	if serial.IsUndefined(out) {
		res.Undefined = true
		return res
	}
	if _, ok := out.(serial.Func); ok {
		res.Function = true
		return res
	}
	// Normalise through JSON exactly like the golden file.
	data, err := json.Marshal(serial.Encode(out, false))
	if err != nil {
		t.Fatalf("%s: %v", tc.ID, err)
	}
	if err := json.Unmarshal(data, &res.Value); err != nil {
		t.Fatal(err)
	}
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
		if diff := cmp.Diff(golden[i], got); diff != "" {
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
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@lowdefy", "operators")); err != nil {
		t.Fatalf("the Lowdefy oracle is not installed (%v): run scripts/setup-lowdefy-oracle.sh", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (needed by the oracle; see scripts/setup-lowdefy-oracle.sh): %v", err)
	}
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
