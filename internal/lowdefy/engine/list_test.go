package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

const listApp = `lowdefy: 4.0.0-rc.11
pages:
  - id: items
    type: Box
    blocks:
      - id: items
        type: ControlledList
        blocks:
          - id: items.$.name
            type: TextInput
          - id: items.$.qty
            type: NumberInput
            properties:
              title:
                _string.concat: ['Qty ', {_index: 0}]
`

func TestControlledListMethods(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(listApp), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := app.Load(dir, app.Options{Env: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := engine.New(a, engine.Options{Now: fixedClock()})
	must(t, e.Navigate(ctx, "items", nil, nil))
	wantState(t, e, `{"items":[]}`)
	must(t, e.CallMethod(ctx, "items", "pushItem", nil))
	must(t, e.CallMethod(ctx, "items", "pushItem", nil))
	wantState(t, e, `{"items":[{"name":null,"qty":null},{"name":null,"qty":null}]}`)
	must(t, e.SetValue(ctx, "items.0.name", "a"))
	must(t, e.SetValue(ctx, "items.1.name", "b"))
	must(t, e.SetValue(ctx, "items.1.qty", "12")) // a string is not a number: null
	must(t, e.SetValue(ctx, "items.0.qty", 3.0))
	wantState(t, e, `{"items":[{"name":"a","qty":3},{"name":"b","qty":null}]}`)
	must(t, e.CallMethod(ctx, "items", "moveItemDown", []any{0.0}))
	wantState(t, e, `{"items":[{"name":"b","qty":null},{"name":"a","qty":3}]}`)
	must(t, e.CallMethod(ctx, "items", "unshiftItem", nil))
	wantState(t, e, `{"items":[{"name":null,"qty":null},{"name":"b","qty":null},{"name":"a","qty":3}]}`)
	for _, b := range e.Page().Blocks() {
		if b.ID == "items.2.qty" {
			if got := js(t, b.Properties); got != `{"title":"Qty 2"}` {
				t.Errorf("items.2.qty properties = %s", got)
			}
		}
	}
	must(t, e.CallMethod(ctx, "items", "removeItem", []any{1.0}))
	wantState(t, e, `{"items":[{"name":null,"qty":null},{"name":"a","qty":3}]}`)
	must(t, e.SetValue(ctx, "items.1.name", "z"))
	wantState(t, e, `{"items":[{"name":null,"qty":null},{"name":"z","qty":3}]}`)
	if err := e.CallMethod(ctx, "items", "explode", nil); err == nil {
		t.Error("unknown method succeeded")
	}
}
