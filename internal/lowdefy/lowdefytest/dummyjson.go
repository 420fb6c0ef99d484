package lowdefytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// DummyJSONDate is the fixed Date header of every response of the fake dummyjson.com, so that
// AxiosHttp responses (which carry the headers) are the same in every run.
const DummyJSONDate = "Mon, 01 Jan 2024 00:00:00 GMT"

// StartDummyJSON starts a loopback HTTP server that answers like https://dummyjson.com for the
// product endpoints (the ones Lowdefy's tutorial app calls, and their neighbours), and returns
// its base URL. The server is closed when the test ends.
//
// It follows dummyjson's behaviour (its Express app): lists are
// {"products": [...], "total", "skip", "limit"} with limit defaulting to 30 (0 = all) and
// "limit" in the answer the number of items returned; `select=a,b` keeps id plus those fields in
// that order; `sortBy` and `order` (asc|desc) sort; `/products/search?q=` matches title or
// description, lower-cased, with '-' read as ' '; unknown ids answer 404
// {"message": "Product with id 'X' not found"}; bad paging answers 400 with dummyjson's
// message; a path with a trailing slash redirects (301) to the path without it; `/` is the
// HTML home page. The catalogue is a deterministic synthetic one of 40 products in four
// categories, each with dummyjson's product fields in dummyjson's order.
func StartDummyJSON(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(DummyJSONHandler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// DummyJSONHandler is the handler of StartDummyJSON.
func DummyJSONHandler() http.Handler {
	return http.HandlerFunc(serveDummyJSON)
}

// obj is a JSON object that keeps its key order.
type obj []kv

type kv struct {
	K string
	V any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.K)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(e.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o obj) get(k string) (any, bool) {
	for _, e := range o {
		if e.K == k {
			return e.V, true
		}
	}
	return nil, false
}

var dummyCategories = []string{"beauty", "fragrances", "furniture", "groceries"}

var dummyBrands = map[string][]string{
	"beauty":     {"Lumen", "Velour", "Aster"},
	"fragrances": {"Noctis", "Ambra", "Solene"},
	"furniture":  {"Oakline", "Fjord", "Halden"},
	"groceries":  {"Greenfield", "Harvest", "Mill & Co"},
}

var dummyNouns = map[string][]string{
	"beauty":     {"Mascara", "Lipstick", "Eyeshadow Palette", "Powder Canister", "Nail Polish", "Face Cream", "Cleanser", "Serum", "Blush", "Eyeliner"},
	"fragrances": {"Eau de Parfum", "Cologne", "Body Mist", "Perfume Oil", "Eau de Toilette", "Scented Candle", "Room Spray", "Solid Perfume", "Aftershave", "Gift Set"},
	"furniture":  {"Annibale Colombo Bed", "Sofa", "Bedside Table", "Office Chair", "Wooden Bathroom Sink", "Bookshelf", "Dining Table", "Armchair", "Coffee Table", "Wardrobe"},
	"groceries":  {"Apple", "Beef Steak", "Cat Food", "Chicken Meat", "Cooking Oil", "Cucumber", "Dog Food", "Eggs", "Fish Steak", "Green Bell Pepper"},
}

// dummyProducts is the catalogue: 40 products, ids 1..40.
var dummyProducts = func() []obj {
	var out []obj
	id := 0
	for ci, cat := range dummyCategories {
		for i, noun := range dummyNouns[cat] {
			id++
			brand := dummyBrands[cat][i%3]
			slug := strings.ToLower(strings.NewReplacer(" ", "-", "&", "and").Replace(brand + " " + noun))
			price := float64((id*731+ci*317)%9000+99) / 100
			rating := float64((id*37)%400+100) / 100
			stock := (id * 13) % 100
			status := "In Stock"
			if stock < 10 {
				status = "Low Stock"
			}
			created := fmt.Sprintf("2024-05-%02dT09:41:02.053Z", 1+id%28)
			out = append(out, obj{
				{"id", id},
				{"title", brand + " " + noun},
				{"description", fmt.Sprintf("The %s %s is a popular %s product, known for its quality and value.", brand, noun, cat)},
				{"category", cat},
				{"price", price},
				{"discountPercentage", float64((id*53)%2000) / 100},
				{"rating", rating},
				{"stock", stock},
				{"tags", []string{cat, strings.ToLower(strings.Fields(noun)[0])}},
				{"brand", brand},
				{"sku", fmt.Sprintf("%s-%s-%03d", strings.ToUpper(cat[:3]), strings.ToUpper(brand[:3]), id)},
				{"weight", 1 + id%9},
				{"dimensions", obj{{"width", float64(1000+id*17%1500) / 100}, {"height", float64(1000+id*29%1500) / 100}, {"depth", float64(1000+id*41%1500) / 100}}},
				{"warrantyInformation", []string{"1 week warranty", "1 month warranty", "1 year warranty", "No warranty"}[id%4]},
				{"shippingInformation", []string{"Ships in 1 week", "Ships in 3-5 business days", "Ships overnight", "Ships in 2 weeks"}[id%4]},
				{"availabilityStatus", status},
				{"reviews", []obj{
					{{"rating", 1 + id%5}, {"comment", "Very satisfied!"}, {"date", created}, {"reviewerName", "Eleanor Collins"}, {"reviewerEmail", "eleanor.collins@x.dummyjson.com"}},
					{{"rating", 1 + (id+2)%5}, {"comment", "Would buy again!"}, {"date", created}, {"reviewerName", "Lucas Gordon"}, {"reviewerEmail", "lucas.gordon@x.dummyjson.com"}},
				}},
				{"returnPolicy", []string{"No return policy", "30 days return policy", "7 days return policy", "60 days return policy"}[id%4]},
				{"minimumOrderQuantity", 1 + (id*7)%48},
				{"meta", obj{{"createdAt", created}, {"updatedAt", created}, {"barcode", fmt.Sprintf("%013d", 5784719087687+int64(id)*104729)}, {"qrCode", "https://cdn.dummyjson.com/public/qr-code.png"}}},
				{"images", []string{fmt.Sprintf("https://cdn.dummyjson.com/product-images/%s/%s/1.webp", cat, slug)}},
				{"thumbnail", fmt.Sprintf("https://cdn.dummyjson.com/product-images/%s/%s/thumbnail.webp", cat, slug)},
			})
		}
	}
	return out
}()

const dummyHome = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>DummyJSON - Free Fake REST API for Placeholder JSON Data</title></head>
<body><h1>DummyJSON</h1><p>Get dummy/fake JSON data to use as placeholder in development or in prototype testing.</p></body>
</html>
`

type apiError struct {
	status int
	msg    string
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = 500, []byte(`{"message":"Something went wrong."}`)
	}
	h := w.Header()
	h.Set("Date", DummyJSONDate)
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// listOptions are dummyjson's query options (its clean-request middleware).
type listOptions struct {
	limit, skip   int
	sel           []string
	q             string
	sortBy, order string
}

func isNumber(s string) bool {
	if strings.TrimSpace(s) == "" {
		return true // Number("") is 0 in JavaScript
	}
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

// parseIntJS is JavaScript's parseInt(s, 10) for the inputs dummyjson accepts.
func parseIntJS(s string) int {
	s = strings.TrimSpace(s)
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}

func parseListOptions(r *http.Request) (listOptions, *apiError) {
	q := r.URL.Query()
	o := listOptions{limit: 30}
	if q.Has("limit") {
		if !isNumber(q.Get("limit")) {
			return o, &apiError{400, "Invalid 'limit' - must be a number"}
		}
		o.limit = parseIntJS(q.Get("limit"))
	}
	if q.Has("skip") {
		if !isNumber(q.Get("skip")) {
			return o, &apiError{400, "Invalid 'skip' - must be a number"}
		}
		o.skip = parseIntJS(q.Get("skip"))
	}
	o.q = strings.Join(strings.Split(strings.ToLower(strings.TrimSpace(q.Get("q"))), "-"), " ")
	if s := q.Get("select"); s != "" {
		o.sel = append([]string{"id"}, strings.Split(s, ",")...)
	}
	o.sortBy, o.order = q.Get("sortBy"), q.Get("order")
	if o.order != "" && o.sortBy != "" {
		o.order = strings.ToLower(o.order)
		if o.order != "asc" && o.order != "desc" {
			return o, &apiError{400, "Order can be: 'asc' or 'desc'"}
		}
	}
	if o.sortBy != "" && o.order == "" {
		o.order = "asc"
	}
	return o, nil
}

func subset(p obj, keys []string) obj {
	var out obj
	for _, k := range keys {
		if slices.ContainsFunc(out, func(e kv) bool { return e.K == k }) {
			continue
		}
		if v, ok := p.get(k); ok {
			out = append(out, kv{k, v})
		}
	}
	return out
}

// less compares two field values the way JavaScript's `>` does for numbers and strings.
func greater(a, b any) bool {
	switch x := a.(type) {
	case int:
		if y, ok := b.(int); ok {
			return x > y
		}
		if y, ok := b.(float64); ok {
			return float64(x) > y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x > y
		}
		if y, ok := b.(int); ok {
			return x > float64(y)
		}
	case string:
		if y, ok := b.(string); ok {
			return x > y
		}
	}
	return false
}

func list(products []obj, o listOptions) obj {
	total := len(products)
	ps := slices.Clone(products)
	if o.sortBy != "" {
		slices.SortStableFunc(ps, func(a, b obj) int {
			va, _ := a.get(o.sortBy)
			vb, _ := b.get(o.sortBy)
			if !greater(va, vb) && !greater(vb, va) {
				return 0
			}
			if o.order == "asc" {
				if greater(va, vb) {
					return 1
				}
				return -1
			}
			if greater(vb, va) {
				return 1
			}
			return -1
		})
	}
	if o.skip > 0 {
		if o.skip >= len(ps) {
			ps = ps[:0]
		} else {
			ps = ps[o.skip:]
		}
	}
	if o.limit != 0 && o.limit <= len(ps) {
		if o.limit < 0 {
			// slice(0, negative) drops from the end, as in JavaScript.
			ps = ps[:max(0, len(ps)+o.limit)]
		} else {
			ps = ps[:o.limit]
		}
	}
	if o.sel != nil {
		sel := make([]obj, len(ps))
		for i, p := range ps {
			sel[i] = subset(p, o.sel)
		}
		ps = sel
	}
	if ps == nil {
		ps = []obj{}
	}
	return obj{{"products", ps}, {"total", total}, {"skip", o.skip}, {"limit", len(ps)}}
}

func findProduct(id string) (obj, *apiError) {
	for _, p := range dummyProducts {
		if v, _ := p.get("id"); strconv.Itoa(v.(int)) == id {
			return p, nil
		}
	}
	return nil, &apiError{404, fmt.Sprintf("Product with id '%s' not found", id)}
}

func capitalizeWords(s string) string {
	parts := strings.Split(s, "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, " ")
}

func serveDummyJSON(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if strings.HasSuffix(path, "/") && len(path) > 1 {
		target := strings.TrimSuffix(path, "/")
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		w.Header().Set("Date", DummyJSONDate)
		http.Redirect(w, r, target, http.StatusMovedPermanently)
		return
	}
	if path == "/" && r.Method == http.MethodGet {
		h := w.Header()
		h.Set("Date", DummyJSONDate)
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(dummyHome)))
		w.WriteHeader(200)
		io := []byte(dummyHome)
		w.Write(io)
		return
	}
	o, aerr := parseListOptions(r)
	if aerr != nil {
		writeJSON(w, aerr.status, obj{{"message", aerr.msg}})
		return
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if segs[0] != "products" && segs[0] != "product" {
		writeJSON(w, 404, obj{{"message", fmt.Sprintf("Cannot %s %s", r.Method, path)}})
		return
	}
	rest := segs[1:]
	fail := func(e *apiError) { writeJSON(w, e.status, obj{{"message", e.msg}}) }
	switch {
	case r.Method == http.MethodGet && len(rest) == 0:
		writeJSON(w, 200, list(dummyProducts, o))
	case r.Method == http.MethodGet && len(rest) == 1 && rest[0] == "search":
		var found []obj
		for _, p := range dummyProducts {
			t, _ := p.get("title")
			d, _ := p.get("description")
			if strings.Contains(strings.ToLower(t.(string)), o.q) || strings.Contains(strings.ToLower(d.(string)), o.q) {
				found = append(found, p)
			}
		}
		writeJSON(w, 200, list(found, o))
	case r.Method == http.MethodGet && len(rest) == 1 && rest[0] == "category-list":
		writeJSON(w, 200, dummyCategories)
	case r.Method == http.MethodGet && len(rest) == 1 && rest[0] == "categories":
		var cats []obj
		for _, c := range dummyCategories {
			cats = append(cats, obj{{"slug", c}, {"name", capitalizeWords(c)}, {"url", "https://dummyjson.com/products/category/" + c}})
		}
		writeJSON(w, 200, cats)
	case r.Method == http.MethodGet && len(rest) == 2 && rest[0] == "category":
		var found []obj
		for _, p := range dummyProducts {
			c, _ := p.get("category")
			if strings.EqualFold(c.(string), rest[1]) {
				found = append(found, p)
			}
		}
		writeJSON(w, 200, list(found, o))
	case r.Method == http.MethodGet && len(rest) == 1:
		p, e := findProduct(rest[0])
		if e != nil {
			fail(e)
			return
		}
		if o.sel != nil {
			p = subset(p, o.sel)
		}
		writeJSON(w, 200, p)
	case r.Method == http.MethodPost && len(rest) == 1 && rest[0] == "add":
		body := readBody(r)
		out := obj{{"id", len(dummyProducts) + 1}}
		for _, k := range []string{"title", "price", "discountPercentage", "stock", "rating", "images", "thumbnail", "description", "brand", "category"} {
			if v, ok := body[k]; ok {
				out = append(out, kv{k, v})
			}
		}
		writeJSON(w, 201, out)
	case (r.Method == http.MethodPut || r.Method == http.MethodPatch) && len(rest) == 1:
		p, e := findProduct(rest[0])
		if e != nil {
			fail(e)
			return
		}
		body := readBody(r)
		id, _ := strconv.Atoi(rest[0])
		out := obj{{"id", id}}
		for _, k := range []string{"title", "price", "discountPercentage", "stock", "rating", "images", "thumbnail", "description", "brand", "category"} {
			v, ok := body[k]
			if !ok || !truthy(v) {
				v, _ = p.get(k)
			}
			out = append(out, kv{k, v})
		}
		writeJSON(w, 200, out)
	case r.Method == http.MethodDelete && len(rest) == 1:
		p, e := findProduct(rest[0])
		if e != nil {
			fail(e)
			return
		}
		out := append(slices.Clone(p), kv{"isDeleted", true}, kv{"deletedOn", "2024-01-01T00:00:00.000Z"})
		writeJSON(w, 200, out)
	default:
		writeJSON(w, 404, obj{{"message", fmt.Sprintf("Cannot %s %s", r.Method, path)}})
	}
}

func readBody(r *http.Request) map[string]any {
	var m map[string]any
	_ = json.NewDecoder(r.Body).Decode(&m)
	return m
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}
