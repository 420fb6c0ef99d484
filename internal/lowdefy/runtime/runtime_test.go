package runtime_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/runtime"
)

// NewEngine opens the app's pages; with NoServer, requests fail with a clear message (the
// server side is exercised by the differential tests in lowdefytest).
func TestNewEngine(t *testing.T) {
	a, err := app.Load(filepath.Join(lowdefytest.AppsDir(t), "tutorial", "05-requests-api"), app.Options{Env: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(1700000000000)
	e := runtime.NewEngine(a, runtime.Options{User: jsvalue.ObjectOf("sub", "u1"), Now: func() time.Time { return now }, NoServer: true})
	ctx := context.Background()
	if err := e.Navigate(ctx, "new-ticket", nil, nil); err != nil {
		t.Fatal(err)
	}
	res := e.Page().RequestResults()
	r, _ := res.Prop("get_products").(*jsvalue.Object)
	if r == nil || r.Prop("error") != "Request failed: the engine has no server to run requests." {
		t.Errorf("get_products = %v, want the no-server failure", res)
	}
}
