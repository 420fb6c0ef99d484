package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// LoadBuild reads the artifacts `lowdefy build` wrote (the `.lowdefy/server/build`
// folder: app.json, auth.json, config.json, global.json, menus.json, connections/*.json,
// pages/<id>/<id>.json and pages/<id>/requests/*.json) into an App. The build's `~k`
// keys (indexes into keyMap.json) are dropped; page and connection order comes from
// keyMap.json when present, otherwise ids are sorted. Serializer markers such as
// `{"~d": ms}` (dates) are kept as they are.
func LoadBuild(buildDir string) (*App, error) {
	r := &artifactReader{dir: buildDir}
	app := &App{Dir: buildDir, TimeZone: time.UTC}
	app.AppConfig = asMap(r.read("app.json", true))
	app.Auth = asMap(r.read("auth.json", true))
	app.Config = asMap(r.read("config.json", true))
	app.Global = asMap(r.read("global.json", true))
	app.Menus = asList(r.read("menus.json", true))
	if app.Menus == nil {
		app.Menus = []any{}
	}
	order := r.order()

	conns, err := r.list("connections", ".json", false)
	if err != nil {
		r.errs = append(r.errs, err)
	}
	sortByOrder(conns, order["connections"])
	for _, id := range conns {
		m := asMap(r.read(filepath.Join("connections", id+".json"), true))
		if m != nil {
			app.Connections = append(app.Connections, newConnection(m))
		}
	}

	pages, err := r.list("pages", "", true)
	if err != nil {
		r.errs = append(r.errs, err)
	}
	sortByOrder(pages, order["pages"])
	for _, id := range pages {
		pm := asMap(r.read(filepath.Join("pages", id, id+".json"), true))
		if pm == nil {
			continue
		}
		page := &Page{ID: str(get(pm, "pageId")), Type: str(get(pm, "type")), Config: pm, Auth: pageAuth(asMap(get(pm, "auth")))}
		for _, rq := range asList(get(pm, "requests")) {
			rid := str(get(asMap(rq), "requestId"))
			full := asMap(r.read(filepath.Join("pages", id, "requests", rid+".json"), true))
			if full != nil {
				page.Requests = append(page.Requests, newRequest(full))
			}
		}
		app.Pages = append(app.Pages, page)
	}
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("loading Lowdefy build %s: %w", buildDir, errors.Join(r.errs...))
	}
	return app, nil
}

type artifactReader struct {
	dir  string
	errs []error
}

// read decodes one JSON artifact and strips `~k` keys.
func (r *artifactReader) read(rel string, required bool) any {
	b, err := os.ReadFile(filepath.Join(r.dir, rel))
	if err != nil {
		if required || !errors.Is(err, fs.ErrNotExist) {
			r.errs = append(r.errs, fmt.Errorf("reading %s: %w", rel, err))
		}
		return nil
	}
	v, err := jsvalue.Decode(b)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("decoding %s: %w", rel, err))
		return nil
	}
	return stripBuildKeys(v)
}

// list returns the names (without ext) of the files, or subdirectories, of a folder.
func (r *artifactReader) list(rel, ext string, dirs bool) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(r.dir, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", rel, err)
	}
	var out []string
	for _, e := range entries {
		switch {
		case dirs && e.IsDir():
			out = append(out, e.Name())
		case !dirs && !e.IsDir() && strings.HasSuffix(e.Name(), ext):
			out = append(out, strings.TrimSuffix(e.Name(), ext))
		}
	}
	return out, nil
}

var keyMapEntry = lazy.Regexp{Expr: `^root\.(pages|connections)\[(\d+):(.*):[^:]*\]$`}

// order reads keyMap.json for the config order of pages and connections.
func (r *artifactReader) order() map[string]map[string]int {
	out := map[string]map[string]int{"pages": {}, "connections": {}}
	b, err := os.ReadFile(filepath.Join(r.dir, "keyMap.json"))
	if err != nil {
		return out
	}
	var km map[string]struct {
		Key string `json:"key"`
	}
	if json.Unmarshal(b, &km) != nil {
		return out
	}
	for _, e := range km {
		m := keyMapEntry.Get().FindStringSubmatch(e.Key)
		if m == nil {
			continue
		}
		i, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		out[m[1]][m[3]] = i
	}
	return out
}

func sortByOrder(ids []string, order map[string]int) {
	sort.SliceStable(ids, func(i, j int) bool {
		oi, iok := order[ids[i]]
		oj, jok := order[ids[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return ids[i] < ids[j]
	})
}

// stripBuildKeys removes the build's `~k` and `~r` bookkeeping keys.
func stripBuildKeys(v any) any {
	switch x := v.(type) {
	case *jsvalue.Object:
		x.Delete("~k")
		x.Delete("~r")
		for k, e := range x.Range {
			x.Set(k, stripBuildKeys(e))
		}
	case []any:
		for i, e := range x {
			x[i] = stripBuildKeys(e)
		}
	}
	return v
}
