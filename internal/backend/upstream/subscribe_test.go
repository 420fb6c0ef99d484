package upstream_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// subscriber is what the kind offers a gateway that forwards resource subscriptions (the
// backend seam has no such interface yet).
type subscriber interface {
	SubscribeResource(ctx context.Context, uri string) error
	UnsubscribeResource(ctx context.Context, uri string) error
	ResourceUpdates() <-chan string
}

// A subscription to an upstream resource reports its updates, in both upstream eras, and
// stops reporting them once cancelled.
func TestResourceSubscriptions(t *testing.T) {
	for _, v := range []struct{ name, yaml string }{
		{"stdio-2026", stdioUpstream(t, nil, "")},
		{"stdio-2025", stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, "")},
		{"http-2026", "    url: " + startHTTPServer(t) + "\n"},
	} {
		t.Run(v.name, func(t *testing.T) {
			cfg, err := parse("servers:\n  up:\n    kind: mcp\n    description: d\n    isolation: shared\n" + v.yaml)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			b, err := backend.Open(ctx, cfg.Servers["up"], backend.Deps{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.(interface{ Close() error }).Close()
			sub := b.(subscriber)
			if err := sub.SubscribeResource(ctx, "test://static"); err != nil {
				t.Fatal(err)
			}
			touch := func(uri string) {
				t.Helper()
				r, err := b.CallTool(ctx, &backend.Call{Name: "touch", Arguments: json.RawMessage(`{"uri":"` + uri + `"}`), Session: backend.NoSession{}})
				if err != nil || r.IsError {
					t.Fatalf("touch: %v %v", r, err)
				}
			}
			touch("test://static")
			select {
			case uri := <-sub.ResourceUpdates():
				if uri != "test://static" {
					t.Errorf("update of %s", uri)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no resource update")
			}
			if err := sub.UnsubscribeResource(ctx, "test://static"); err != nil {
				t.Fatal(err)
			}
			touch("test://static")
			select {
			case uri := <-sub.ResourceUpdates():
				t.Errorf("an update of %s after unsubscribing", uri)
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
}
