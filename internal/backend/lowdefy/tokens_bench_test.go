package lowdefy

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/mongodb/mongotest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// BenchmarkSessionCallTokens measures what one work-session call costs a model, in o200k
// tokens (tools/tokenizer, gpt-tokenizer 4.0.0), on the two real apps: the tutorial's final
// step (Knex on SQLite, AxiosHttp on a local dummyjson) and the crud example (MongoDB on
// FerretDB). Each app's differential journey (lowdefytest/testdata) is replayed as session
// calls (navigate, interact), framed by session_create, get_pages, get_state and
// session_close. For every call it counts the text content and the structuredContent (as a
// client that passes both to the model pays for both), and reports per app the mean tokens
// per call of each, and of the two together. Run with -benchtime=1x: the figures do not
// depend on the iteration count.
func BenchmarkSessionCallTokens(b *testing.B) {
	root := lowdefytest.RepoRoot(b)
	tdir := filepath.Join(root, "tools", "tokenizer")
	if _, err := os.Stat(filepath.Join(tdir, "node_modules", "gpt-tokenizer", "package.json")); err != nil {
		b.Skipf("the tokenizer is not installed: run npm ci --ignore-scripts --prefix tools/tokenizer (%v)", err)
	}
	for _, app := range []string{"08-final", "crud"} {
		b.Run(app, func(b *testing.B) {
			var tools, texts, structured []string
			for b.Loop() {
				tools, texts, structured = replayJourneyAsCalls(b, app)
			}
			t := o200kAll(b, texts)
			s := o200kAll(b, structured)
			var sumT, sumS int
			byTool := map[string][3]int{}
			for i := range t {
				sumT += t[i]
				sumS += s[i]
				x := byTool[tools[i]]
				byTool[tools[i]] = [3]int{x[0] + 1, x[1] + t[i], x[2] + s[i]}
			}
			n := float64(len(t))
			b.ReportMetric(n, "calls")
			b.ReportMetric(float64(sumT)/n, "text-tokens/call")
			b.ReportMetric(float64(sumS)/n, "structured-tokens/call")
			b.ReportMetric(float64(sumT+sumS)/n, "both-tokens/call")
			for _, tool := range []string{"navigate", "interact", "get_state"} {
				if x := byTool[tool]; x[0] > 0 {
					b.ReportMetric(float64(x[1]+x[2])/float64(x[0]), tool+"-both-tokens/call")
				}
			}
		})
	}
}

// replayJourneyAsCalls runs an app's journey as work-session calls on a backend and returns,
// per call, the tool, its text content and the JSON of its structuredContent ("" when
// none).
func replayJourneyAsCalls(b *testing.B, app string) (tools, texts, structured []string) {
	b.Helper()
	var dir string
	secrets := map[string]string{}
	switch app {
	case "crud":
		ca := tokensCrudApp(b)
		dir = ca.Dir
		secrets["EXAMPLES_MDB"] = ca.Secrets["EXAMPLES_MDB"]
	default:
		ta := lowdefytest.Tutorial(b, app, lowdefytest.StartDummyJSON(b))
		dir = ta.Dir
		secrets["SQLITE_FILENAME"] = ta.SQLite
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "s.db"), sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	refs := map[string]string{}
	plain := plainSecrets{}
	for k, v := range secrets {
		refs[k] = "env:" + k
		plain["env:"+k] = v
	}
	sp := &spec{server: &config.Server{Name: "app"}, conf: serverSection{App: dir, Toolset: ToolsetSession, Secrets: refs, AllowPrivate: true}}
	bk, err := sp.Open(context.Background(), backend.Deps{WorkSessions: st.WorkSessions, Blobs: st.Blobs, Secrets: plain})
	if err != nil {
		b.Fatal(err)
	}
	be := bk.(*Backend)
	defer be.Close()
	who := auth.Principal{User: "ada", Roles: []string{"support"}}
	call := func(tool string, args map[string]any) map[string]any {
		raw, _ := json.Marshal(args)
		res, err := be.CallTool(context.Background(), &backend.Call{Name: tool, Arguments: raw, Principal: who, Session: backend.NoSession{}})
		if err != nil {
			b.Fatalf("%s: %v", tool, err)
		}
		var sb strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				sb.WriteString(tc.Text)
			}
		}
		tools = append(tools, tool)
		texts = append(texts, sb.String())
		s := ""
		if res.StructuredContent != nil {
			j, _ := json.Marshal(res.StructuredContent)
			s = string(j)
		}
		structured = append(structured, s)
		var out map[string]any
		_ = json.Unmarshal([]byte(sb.String()), &out)
		return out
	}
	created := call("session_create", map[string]any{"name": "tokens"})
	sid, _ := created["sessionId"].(string)
	if sid == "" {
		b.Fatalf("session_create answered %q", texts[0])
	}
	call("get_pages", map[string]any{"sessionId": sid})
	raw, err := os.ReadFile(lowdefytest.Journey(b, app))
	if err != nil {
		b.Fatal(err)
	}
	steps, err := serial.Unmarshal(raw)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range steps.([]any) {
		so := s.(*jsvalue.Object)
		plain := func(v any) any {
			j, _ := serial.Marshal(v)
			var x any
			_ = json.Unmarshal(j, &x)
			return x
		}
		var act map[string]any
		switch {
		case so.Has("navigate"):
			args := map[string]any{"sessionId": sid, "pageId": so.Prop("navigate")}
			if in, ok := so.Get("input"); ok {
				args["input"] = plain(in)
			}
			call("navigate", args)
			continue
		case so.Has("setValue"):
			act = map[string]any{"type": "setValue", "blockId": so.Prop("setValue"), "value": plain(so.Prop("value"))}
		case so.Has("trigger"):
			act = map[string]any{"type": "triggerEvent", "blockId": so.Prop("trigger"), "event": so.Prop("event")}
			if a, ok := so.Get("args"); ok {
				act["args"] = plain(a)
			}
		case so.Has("callMethod"):
			act = map[string]any{"type": "callMethod", "blockId": so.Prop("callMethod"), "method": so.Prop("method"), "args": plain(so.Prop("args"))}
		case so.Has("setState"):
			act = map[string]any{"type": "setState", "values": plain(so.Prop("setState"))}
		default:
			continue
		}
		call("interact", map[string]any{"sessionId": sid, "actions": []any{act}})
	}
	call("get_state", map[string]any{"sessionId": sid})
	call("session_list", map[string]any{})
	call("session_close", map[string]any{"sessionId": sid})
	return tools, texts, structured
}

// tokensCrudApp copies the crud app with a database of its own on the shared FerretDB,
// seeded with lowdefytest's testdata/crud-seed.json.
func tokensCrudApp(b *testing.B) *lowdefytest.App {
	b.Helper()
	return lowdefytest.SeededCrud(b, mongotest.Shared(b).URI, mongotest.DatabaseName(b))
}

// o200kAll counts the o200k_base tokens of each text with tools/tokenizer ("" is 0).
func o200kAll(b *testing.B, texts []string) []int {
	b.Helper()
	dir := b.TempDir()
	var files []string
	for i, t := range texts {
		f := filepath.Join(dir, fmt.Sprintf("%04d.txt", i))
		if err := os.WriteFile(f, []byte(t), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	script := filepath.Join(lowdefytest.RepoRoot(b), "tools", "tokenizer", "count.mjs")
	out, err := exec.Command(lowdefytest.Node(b), append([]string{script}, files...)...).Output()
	if err != nil {
		b.Fatalf("counting tokens: %v", err)
	}
	counts := map[string]int{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var r struct {
			File   string `json:"file"`
			Tokens int    `json:"tokens"`
		}
		if err := dec.Decode(&r); err != nil {
			break
		}
		counts[r.File] = r.Tokens
	}
	res := make([]int, len(texts))
	for i, f := range files {
		if texts[i] == "" {
			continue
		}
		c, ok := counts[f]
		if !ok {
			b.Fatalf("the tokenizer did not count %s", f)
		}
		res[i] = c
	}
	return res
}
