package lowdefytest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

func TestDummyJSON(t *testing.T) {
	base := StartDummyJSON(t)
	type page struct {
		Products []map[string]any `json:"products"`
		Total    int              `json:"total"`
		Skip     int              `json:"skip"`
		Limit    int              `json:"limit"`
	}
	decode := func(body string) page {
		var p page
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		return p
	}
	cases := []struct {
		path                      string
		n, total, skip, limit, id int
	}{
		{"/products", 30, 40, 0, 30, 1},
		{"/products?limit=10&skip=35", 5, 40, 35, 5, 36},
		{"/products?limit=0", 40, 40, 0, 40, 1},
		{"/products?limit=5&sortBy=price&order=desc", 5, 40, 0, 5, 0},
		{"/products/search?q=sofa", 1, 1, 0, 1, 22},
		{"/products/search?q=MASCARA", 1, 1, 0, 1, 1},
		{"/products/category/furniture?limit=3", 3, 10, 0, 3, 21},
		{"/product?skip=100", 0, 40, 100, 0, 0},
	}
	for _, c := range cases {
		code, h, body := get(t, base+c.path)
		if code != 200 || h.Get("Content-Type") != "application/json; charset=utf-8" || h.Get("Date") != DummyJSONDate {
			t.Errorf("%s: %d %v", c.path, code, h)
			continue
		}
		p := decode(body)
		if len(p.Products) != c.n || p.Total != c.total || p.Skip != c.skip || p.Limit != c.limit {
			t.Errorf("%s: %d products, total %d skip %d limit %d", c.path, len(p.Products), p.Total, p.Skip, p.Limit)
		}
		if c.id != 0 && (len(p.Products) == 0 || p.Products[0]["id"] != float64(c.id)) {
			t.Errorf("%s: first id %v, want %d", c.path, p.Products[0]["id"], c.id)
		}
	}
	// Sorting by price, descending.
	_, _, body := get(t, base+"/products?limit=0&sortBy=price&order=desc")
	p := decode(body)
	for i := 1; i < len(p.Products); i++ {
		if p.Products[i-1]["price"].(float64) < p.Products[i]["price"].(float64) {
			t.Fatalf("not sorted by price desc at %d", i)
		}
	}
	// Field order of a product, and select.
	_, _, body = get(t, base+"/products/1")
	if !strings.HasPrefix(body, `{"id":1,"title":"Lumen Mascara","description":`) || !strings.Contains(body, `"images":[`) || !strings.HasSuffix(body, `/thumbnail.webp"}`) {
		t.Errorf("product 1: %s", body)
	}
	_, _, body = get(t, base+"/products?limit=2&select=title,price")
	if !strings.HasPrefix(body, `{"products":[{"id":1,"title":"Lumen Mascara","price":`) || !strings.HasSuffix(body, `],"total":40,"skip":0,"limit":2}`) {
		t.Errorf("select: %s", body)
	}
	// Errors as dummyjson answers them.
	errs := map[string]struct {
		code int
		body string
	}{
		"/products/0":                     {404, `{"message":"Product with id '0' not found"}`},
		"/products?limit=ten":             {400, `{"message":"Invalid 'limit' - must be a number"}`},
		"/products?skip=x":                {400, `{"message":"Invalid 'skip' - must be a number"}`},
		"/products?sortBy=price&order=up": {400, `{"message":"Order can be: 'asc' or 'desc'"}`},
		"/nothing":                        {404, `{"message":"Cannot GET /nothing"}`},
	}
	for path, want := range errs {
		code, _, body := get(t, base+path)
		if code != want.code || body != want.body {
			t.Errorf("%s: %d %s, want %d %s", path, code, body, want.code, want.body)
		}
	}
	code, h, _ := get(t, base+"/products/?limit=1")
	if code != 301 || h.Get("Location") != "/products?limit=1" {
		t.Errorf("trailing slash: %d %s", code, h.Get("Location"))
	}
	code, h, body = get(t, base+"/")
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(body, "DummyJSON") {
		t.Errorf("home: %d %v", code, h)
	}
	_, _, body = get(t, base+"/products/categories")
	if !strings.HasPrefix(body, `[{"slug":"beauty","name":"Beauty","url":"https://dummyjson.com/products/category/beauty"}`) {
		t.Errorf("categories: %s", body)
	}
	_, _, body = get(t, base+"/products/category-list")
	if body != `["beauty","fragrances","furniture","groceries"]` {
		t.Errorf("category-list: %s", body)
	}
	res, err := http.Post(base+"/products/add", "application/json", strings.NewReader(`{"price":3,"title":"Pen"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 201 || string(b) != `{"id":41,"title":"Pen","price":3}` {
		t.Errorf("add: %d %s", res.StatusCode, b)
	}
}

func TestCompare(t *testing.T) {
	l := func(ss ...string) []json.RawMessage {
		var out []json.RawMessage
		for _, s := range ss {
			out = append(out, json.RawMessage(s))
		}
		return out
	}
	if d := Compare(l(`{"a":1,"b":[1,{"c":2}]}`), l(`{"a":1.0,"b":[1,{"c":2}]}`)); d != nil {
		t.Errorf("equal lines differ: %v", d)
	}
	cases := []struct {
		want, got []json.RawMessage
		diff      string
	}{
		{l(`{"a":1}`, `{"s":{"x":1}}`), l(`{"a":1}`, `{"s":{"x":2}}`), "step 2: s.x: want 1, got 2"},
		{l(`{"s":{"x":1,"y":2}}`), l(`{"s":{"y":2,"x":1}}`), `step 1: s{keys}: want ["x","y"], got ["y","x"]`},
		{l(`{"r":[1,2]}`), l(`{"r":[1]}`), "step 1: r.length: want 2, got 1"},
		{l(`{"r":{"a b":null}}`), l(`{"r":{"a b":"x"}}`), `step 1: r."a b": want null, got "x"`},
		{l(`{"s":{}}`), l(`{"s":{"z":true}}`), "step 1: s.z: want (missing), got true"},
		{l(`{}`, `{}`), l(`{}`), "number of steps: want 2, got 1"},
	}
	for _, c := range cases {
		if got := Compare(c.want, c.got).String(); got != c.diff {
			t.Errorf("got %q, want %q", got, c.diff)
		}
	}
	ignore := CompareOptions{Ignore: func(p string) bool { return strings.HasSuffix(p, ".insertedId") }}
	if d := Compare(l(`{"r":{"insertedId":"a","n":1}}`), l(`{"r":{"insertedId":"b","n":1}}`), ignore); d != nil {
		t.Errorf("ignored path compared: %v", d)
	}
}
