package operators

import (
	"context"
	"os"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// pageFields are the block fields Lowdefy's engine evaluates on every update.
var pageFields = []string{"visible", "properties", "required", "validate", "style", "layout", "loading", "skeleton", "events"}

type benchBlock struct {
	id     string
	fields *jsvalue.Object
}

func loadBenchPage(tb testing.TB) []benchBlock {
	tb.Helper()
	data, err := os.ReadFile("testdata/bench/new-ticket.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		tb.Fatal(err)
	}
	page, err := fromYAMLNode(&node, 0)
	if err != nil {
		tb.Fatal(err)
	}
	var blocks []benchBlock
	var walk func(b *jsvalue.Object)
	walk = func(b *jsvalue.Object) {
		fields := &jsvalue.Object{}
		for _, f := range pageFields {
			if v, ok := b.Get(f); ok {
				fields.Set(f, v)
			}
		}
		id, _ := b.Prop("id").(string)
		blocks = append(blocks, benchBlock{id: id, fields: fields})
		if kids, ok := b.Prop("blocks").([]any); ok {
			for _, k := range kids {
				if km, ok := k.(*jsvalue.Object); ok {
					walk(km)
				}
			}
		}
	}
	walk(page.(*jsvalue.Object))
	return blocks
}

func benchContext() *Context {
	products := make([]any, 20)
	for i := range products {
		products[i] = jsvalue.ObjectOf("id", float64(i), "title", "Product "+string(rune('A'+i)), "price", float64(10+i))
	}
	return &Context{
		PageID: "new-ticket",
		State: jsvalue.ObjectOf(
			"ticket_title", "Broken screen", "ticket_type", "Complaint", "product", "Product C",
			"ticket_description", "The screen cracked after a week.", "purchase_in_last_month", "Yes",
		),
		Requests: jsvalue.ObjectOf(
			"get_products", []any{jsvalue.ObjectOf("loading", false, "response", jsvalue.ObjectOf(
				"status", float64(200), "data", jsvalue.ObjectOf("products", products),
			))},
		),
		Location: &Location{Pathname: "/new-ticket"},
		Window:   &Window{InnerWidth: 1280, InnerHeight: 800},
	}
}

// evaluatePage evaluates every block field of the page once, as one engine
// update does, and returns the number of operator errors.
func evaluatePage(p *Parser, blocks []benchBlock) int {
	n := 0
	for _, b := range blocks {
		for _, v := range b.fields.Range {
			_, errs := p.Parse(context.Background(), v, b.id, nil, nil)
			n += len(errs)
		}
	}
	return n
}

func TestBenchPageEvaluates(t *testing.T) {
	blocks := loadBenchPage(t)
	if len(blocks) != 10 {
		t.Fatalf("got %d blocks, want 10", len(blocks))
	}
	p := NewClientParser(benchContext())
	if n := evaluatePage(p, blocks); n != 0 {
		t.Fatalf("%d operator errors evaluating the page", n)
	}
	for _, b := range blocks {
		if b.id != "product" {
			continue
		}
		out, errs := p.Parse(context.Background(), b.fields.Prop("properties"), b.id, nil, nil)
		if len(errs) != 0 {
			t.Fatal(errs)
		}
		opts := out.(*jsvalue.Object).Prop("options").([]any)
		if len(opts) != 20 || opts[2] != "Product C" {
			t.Fatalf("product options = %v", opts)
		}
	}
}

// BenchmarkPageEvaluation evaluates all block fields of the tutorial's
// new-ticket page (one engine update).
func BenchmarkPageEvaluation(b *testing.B) {
	blocks := loadBenchPage(b)
	p := NewClientParser(benchContext())
	b.ReportAllocs()
	for b.Loop() {
		evaluatePage(p, blocks)
	}
}
