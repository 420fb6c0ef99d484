package app

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// The build oracle: the real @lowdefy/build 4.0.0-rc.11 run in Node by
// tools/lowdefy-build-oracle/build.mjs, installed by scripts/setup-lowdefy-build-oracle.sh.

func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// lowdefyApps lists the real apps in ../shared/lowdefy-apps beside the repository (or $LOWDEFY_APPS).
func lowdefyApps(t testing.TB) map[string]string {
	t.Helper()
	root := testenv.LowdefyApps(t)
	apps := map[string]string{}
	matches, _ := filepath.Glob(filepath.Join(root, "tutorial", "0*"))
	for _, m := range matches {
		apps["tutorial/"+filepath.Base(m)] = m
	}
	apps["crud"] = filepath.Join(root, "crud")
	for name, dir := range apps {
		if _, err := os.Stat(filepath.Join(dir, "lowdefy.yaml")); err != nil {
			t.Fatalf("app %s missing at %s (set LOWDEFY_APPS to the folder holding tutorial/ and crud/): %v", name, dir, err)
		}
	}
	if len(apps) != 9 {
		t.Fatalf("found %d apps under %s, want 9 (8 tutorial steps and crud)", len(apps), root)
	}
	return apps
}

// runOracle builds configDir with the real Lowdefy build and returns the build folder.
func runOracle(t testing.TB, configDir string, env ...string) string {
	t.Helper()
	tool := filepath.Join(repoRoot(t), "tools", "lowdefy-build-oracle")
	testenv.Files(t, "the Lowdefy build oracle", "scripts/setup-lowdefy-build-oracle.sh",
		filepath.Join(tool, "node_modules", "@lowdefy", "build", "package.json"))
	node := testenv.NodeOnPath(t, "scripts/setup-lowdefy-build-oracle.sh (it runs under node 20 or later on PATH)")
	out := t.TempDir()
	cmd := exec.Command(node, filepath.Join(tool, "build.mjs"), configDir, out)
	cmd.Env = append(append(os.Environ(), "NODE_NO_WARNINGS=1"), env...)
	stdout, err := cmd.Output()
	var res struct {
		OK       bool     `json:"ok"`
		Warnings []string `json:"warnings"`
		Error    string   `json:"error"`
	}
	if jerr := json.Unmarshal(stdout, &res); jerr != nil {
		t.Fatalf("oracle build of %s: %v (output %q)", configDir, err, stdout)
	}
	if !res.OK {
		t.Fatalf("oracle build of %s failed: %s", configDir, res.Error)
	}
	return filepath.Join(out, "build")
}

func TestOracleRealApps(t *testing.T) {
	apps := lowdefyApps(t)
	totalPages, equalPages := 0, 0
	for _, name := range slices.Sorted(maps.Keys(apps)) {
		dir := apps[name]
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			buildDir := runOracle(t, dir)
			want, err := LoadBuild(buildDir)
			if err != nil {
				t.Fatalf("LoadBuild on the oracle's artifacts: %v", err)
			}
			// app check reads a build folder as well as a source folder, with the same summary.
			fromBuild, ps := Check(buildDir)
			fromSource, ps2 := Check(dir)
			if len(ps)+len(ps2) > 0 || !IsBuildDir(buildDir) || IsBuildDir(dir) || pagesPart(fromBuild) != pagesPart(fromSource) {
				t.Errorf("Check on build and source differ (problems %v %v):\n%s\n---\n%s", ps, ps2, fromBuild, fromSource)
			}
			got, err := Load(dir, Options{})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			diffs := compareApps(got, want)
			for _, p := range want.Pages {
				totalPages++
				if gp := got.Page(p.ID); gp != nil && len(comparePage(gp, p)) == 0 {
					equalPages++
				}
			}
			for _, d := range diffs {
				t.Error(d)
			}
		})
	}
	t.Logf("pages equal to the Lowdefy build: %d/%d", equalPages, totalPages)
}

// compareApps compares everything both loaders produce.
func compareApps(got, want *App) []string {
	var diffs []string
	diffs = append(diffs, diffPaths("app", any(got.AppConfig), any(want.AppConfig))...)
	diffs = append(diffs, diffPaths("config", any(got.Config), any(want.Config))...)
	diffs = append(diffs, diffPaths("auth", any(got.Auth), any(want.Auth))...)
	diffs = append(diffs, diffPaths("global", any(got.Global), any(want.Global))...)
	diffs = append(diffs, diffPaths("menus", any(got.Menus), any(want.Menus))...)
	var gc, wc []any
	for _, c := range got.Connections {
		gc = append(gc, c.Config)
	}
	for _, c := range want.Connections {
		wc = append(wc, c.Config)
	}
	diffs = append(diffs, diffPaths("connections", any(gc), any(wc))...)
	var gids, wids []any
	for _, p := range got.Pages {
		gids = append(gids, p.ID)
	}
	for _, p := range want.Pages {
		wids = append(wids, p.ID)
	}
	diffs = append(diffs, diffPaths("pageIds", any(gids), any(wids))...)
	for _, wp := range want.Pages {
		gp := got.Page(wp.ID)
		if gp == nil {
			diffs = append(diffs, "page "+wp.ID+": missing in go")
			continue
		}
		diffs = append(diffs, comparePage(gp, wp)...)
	}
	return diffs
}

func comparePage(got, want *Page) []string {
	diffs := diffPaths("pages."+want.ID, any(got.Config), any(want.Config))
	var gr, wr []any
	for _, r := range got.Requests {
		gr = append(gr, r.Config)
	}
	for _, r := range want.Requests {
		wr = append(wr, r.Config)
	}
	diffs = append(diffs, diffPaths("pages."+want.ID+".requestFiles", any(gr), any(wr))...)
	if got.Auth.Public != want.Auth.Public || strings.Join(got.Auth.Roles, ",") != strings.Join(want.Auth.Roles, ",") {
		diffs = append(diffs, "pages."+want.ID+".Auth differs")
	}
	return diffs
}

// knownOrderDifferences are differences from the Lowdefy build that are accepted, with the
// reason.
var knownOrderDifferences = map[string]string{
	"global.resolvedObject: key order go [count path], oracle [path count]":                                                   "internal/expr returns resolver results as Go maps (sorted keys)",
	"global.transformed: key order go [label numbers], oracle [numbers label]":                                                "internal/expr returns transformer results as Go maps (sorted keys)",
	"pages.generated.areas.content.blocks[0]: key order go [id properties type blockId], oracle [id type properties blockId]": "internal/expr returns resolver results as Go maps (sorted keys)",
	"pages.generated.areas.content.blocks[1]: key order go [id properties type blockId], oracle [id type properties blockId]": "internal/expr returns resolver results as Go maps (sorted keys)",
}

// TestOracleFixtures builds the feature fixtures in testdata/oracle with the real Lowdefy
// build and requires the Go loader's App to be equal.
func TestOracleFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "oracle", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures in testdata/oracle: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, err := LoadBuild(runOracle(t, dir, "FEATURES_TEST_VAR=hello"))
			if err != nil {
				t.Fatalf("LoadBuild: %v", err)
			}
			got, err := Load(dir, Options{Env: map[string]string{"FEATURES_TEST_VAR": "hello"}})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if len(want.Pages) < 2 {
				t.Fatalf("oracle produced %d pages; the fixture has more", len(want.Pages))
			}
			for _, d := range compareApps(got, want) {
				if reason, ok := knownOrderDifferences[d]; ok {
					t.Logf("known difference (%s): %s", reason, d)
					continue
				}
				t.Error(d)
			}
		})
	}
}

func TestLoadBuildOracleArtifacts(t *testing.T) {
	apps := lowdefyApps(t)
	app, err := LoadBuild(runOracle(t, apps["crud"]))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	nreq := 0
	for _, p := range app.Pages {
		ids = append(ids, p.ID)
		nreq += len(p.Requests)
	}
	if got := strings.Join(ids, ","); got != "brands,new-brand,edit-brand,products,404" {
		t.Errorf("page order = %s", got)
	}
	if nreq != 10 {
		t.Errorf("requests = %d, want 10", nreq)
	}
	if len(app.Connections) != 2 || app.Connections[0].ID != "brands" || app.Connections[1].Type != "MongoDBCollection" {
		t.Errorf("connections = %+v", app.Connections)
	}
	r := app.Page("products").Request("all_products")
	if r == nil || r.ConnectionID != "products" || r.Type != "MongoDBAggregation" || dig(r.Config, "auth", "public") != true {
		t.Errorf("all_products = %+v", r)
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case *jsvalue.Object:
			if x.Has("~k") {
				return true
			}
			for _, e := range x.Range {
				if walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	for _, p := range app.Pages {
		if walk(p.Config) {
			t.Errorf("page %s still has ~k keys", p.ID)
		}
	}
	sum := Summary(app)
	if !strings.Contains(sum, "products    all_products     products    MongoDBAggregation") {
		t.Errorf("summary of the built app misses a request line:\n%s", sum)
	}
}

func TestLoadBuildMissingArtifacts(t *testing.T) {
	_, err := LoadBuild(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "reading app.json") {
		t.Fatalf("err = %v, want a missing app.json error", err)
	}
}

// pagesPart is a Check summary without its first line (the app's name, which a build folder
// does not carry) and without the loader's warnings.
func pagesPart(summary string) string {
	_, rest, _ := strings.Cut(summary, "\n")
	rest, _, _ = strings.Cut(rest, "\nwarnings (")
	return rest
}
