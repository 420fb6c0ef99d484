// Package lowdefytest holds test helpers for the Lowdefy runtime: a loopback server that
// answers like dummyjson.com, copies of the real example apps (../shared/lowdefy-apps) pointed
// at local servers, the Lowdefy engine oracle (tools/lowdefy-engine-oracle: Lowdefy's own
// engine, API and connections at 4.0.0-rc.11 run in Node 22) and a comparer of journey lines.
//
// A journey is a JSON array of steps ({"navigate"}, {"setValue"}, {"trigger"}, {"callMethod"},
// {"setState"}); after every step the runner prints one JSON line with the page id, state,
// global, shown validation, request results and the event log of the step (see
// tools/lowdefy-engine-oracle/README.md). The journeys of the tutorial steps and of the crud
// app are in testdata/ (see Journey).
package lowdefytest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/mongodb"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// RepoRoot returns the repository's root folder.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the lowdefytest package")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// AppsDir returns the folder holding the real Lowdefy apps (tutorial/ and crud/): $LOWDEFY_APPS,
// or shared/lowdefy-apps beside the repository. When they are missing the test skips, or
// fails under MCPBRIDGE_TEST_REQUIRE_ALL=1 (see testenv).
func AppsDir(t testing.TB) string {
	t.Helper()
	return testenv.LowdefyApps(t)
}

// TutorialSteps are the eight steps of Lowdefy's tutorial app, in order.
var TutorialSteps = []string{
	"01-getting-started", "02-creating-a-page", "03-adding-blocks", "04-interactive-pages",
	"05-requests-api", "06-requests-sql", "07-display-data", "08-final",
}

// App is a copy of an example app in a test's temporary folder, pointed at local servers.
type App struct {
	// Dir is the app's folder (it holds lowdefy.yaml).
	Dir string
	// Secrets are the app's secrets by name (`_secret: NAME`); runners pass them as
	// LOWDEFY_SECRET_<NAME> environment variables.
	Secrets map[string]string
	// SQLite is the copy of tutorial_db.sqlite the Knex connection uses ("" for crud).
	SQLite string
}

// Env returns the secrets as LOWDEFY_SECRET_* environment entries, sorted.
func (a *App) Env() []string {
	var env []string
	for k, v := range a.Secrets {
		env = append(env, "LOWDEFY_SECRET_"+k+"="+v)
	}
	sort.Strings(env)
	return env
}

// apps remembers the fixtures by folder, so RunOracle passes their secrets.
var apps sync.Map // Dir → *App

// Tutorial copies tutorial step (e.g. "08-final") into a temporary folder, points its AxiosHttp
// connection (https://dummyjson.com) at dummyURL, and gives its Knex connection (the secret
// SQLITE_FILENAME) a fresh copy of tutorial_db.sqlite.
func Tutorial(t testing.TB, step, dummyURL string) *App {
	t.Helper()
	src := filepath.Join(AppsDir(t), "tutorial", step)
	if _, err := os.Stat(filepath.Join(src, "lowdefy.yaml")); err != nil {
		t.Fatalf("tutorial step %q: %v", step, err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, step)
	copyTree(t, src, dir, map[string]string{"https://dummyjson.com": strings.TrimSuffix(dummyURL, "/")})
	db := filepath.Join(root, "tutorial_db.sqlite")
	copyFile(t, filepath.Join(AppsDir(t), "tutorial", "tutorial_db.sqlite"), db)
	a := &App{Dir: dir, Secrets: map[string]string{"SQLITE_FILENAME": db}, SQLite: db}
	apps.Store(dir, a)
	return a
}

// Crud copies the crud app into a temporary folder with its MongoDB connections (the secret
// EXAMPLES_MDB) pointed at mongoURI.
func Crud(t testing.TB, mongoURI string) *App {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "crud")
	copyTree(t, filepath.Join(AppsDir(t), "crud"), dir, nil)
	a := &App{Dir: dir, Secrets: map[string]string{"EXAMPLES_MDB": mongoURI}}
	apps.Store(dir, a)
	return a
}

// SeededCrud is Crud with a database of its own, db on the server at mongoURI, in place of
// the app's example-crud, seeded with testdata/crud-seed.json (two brands, their products).
func SeededCrud(t testing.TB, mongoURI, db string) *App {
	t.Helper()
	a := Crud(t, mongoURI)
	yaml := filepath.Join(a.Dir, "lowdefy.yaml")
	b, err := os.ReadFile(yaml)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "databaseName: example-crud", "databaseName: "+db)
	if s == string(b) {
		t.Fatal("the crud app no longer names its database example-crud")
	}
	if err := os.WriteFile(yaml, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(RepoRoot(t), "internal", "lowdefy", "lowdefytest", "testdata", "crud-seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	seed, err := serial.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	insert := mongodb.Type().Requests["MongoDBInsertMany"]
	for coll, docs := range seed.(*jsvalue.Object).Range {
		_, err := insert.Run(context.Background(), &connections.Call{
			PageID: "seed", RequestID: "seed", ConnectionID: coll,
			Connection: jsvalue.ObjectOf("databaseUri", mongoURI, "databaseName", db, "collection", coll, "write", true),
			Request:    jsvalue.ObjectOf("docs", docs),
			Deps:       &connections.Deps{},
		})
		if err != nil {
			t.Fatalf("seed %s: %v", coll, err)
		}
	}
	return a
}

// copyTree copies the folder src to dst, replacing the keys of replace by their values in
// YAML files.
func copyTree(t testing.TB, src, dst string, replace map[string]string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" || ext == ".njk" {
			s := string(b)
			for k, v := range replace {
				s = strings.ReplaceAll(s, k, v)
			}
			b = []byte(s)
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Journey returns the path of the journey script testdata/NAME.json (NAME is a tutorial step
// such as "08-final", or "crud").
func Journey(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), "internal", "lowdefy", "lowdefytest", "testdata", name+".json")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("journey %s: %v", name, err)
	}
	return p
}
