package upstream_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// subscriber is the ability the gateway uses to forward resource subscriptions.
type subscriber = backend.Subscriber

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
			case <-time.After(60 * time.Second): // generous: under -race on a busy machine
				t.Fatal("no resource update within 60s")
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

// Through the gateway: clients subscribe to an upstream resource with resources/subscribe;
// each hears of its updates until it unsubscribes, and the upstream hears of the first
// subscription and the last unsubscription only.
func TestResourceSubscriptionsThroughGateway(t *testing.T) {
	// An HTTP upstream: one process serves the gateway's upstream sessions of both eras (a
	// stdio upstream would be one child per era, and a touch in one is not seen by the other).
	yaml := "servers:\n  up:\n    kind: mcp\n    description: d\n    isolation: shared\n    url: " + startHTTPServer(t) + "\n"
	g, _, err := gatewaytest.Open(t.TempDir(), yaml, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close) // after the clients' sessions close (cleanups run last first)
	ctx := context.Background()
	type sub struct {
		cs      *mcp.ClientSession
		updates chan string
	}
	connect := func() sub {
		s := sub{updates: make(chan string, 10)}
		mc := mcp.NewClient(&mcp.Implementation{Name: "downstream", Version: "1"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
				s.updates <- req.Params.URI
			},
		})
		cs, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/up"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://static"}); err != nil {
			t.Fatalf("subscribe: %v", err)
		}
		s.cs = cs
		return s
	}
	a, b := connect(), connect()
	touch := func() {
		t.Helper()
		wantText(t, a.cs, "touch", map[string]any{"uri": "test://static"}, "touched test://static")
	}
	expect := func(s sub, who string, want bool) {
		t.Helper()
		wait := 300 * time.Millisecond
		if want {
			wait = 10 * time.Second
		}
		select {
		case uri := <-s.updates:
			if !want {
				t.Errorf("%s heard of an update of %s after unsubscribing", who, uri)
			} else if uri != "test://static" {
				t.Errorf("%s heard of %s", who, uri)
			}
		case <-time.After(wait):
			if want {
				t.Errorf("%s heard of no update", who)
			}
		}
	}
	touch()
	expect(a, "client a", true)
	expect(b, "client b", true)
	if err := a.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://static"}); err != nil {
		t.Fatal(err)
	}
	touch()
	expect(b, "client b", true)
	expect(a, "client a", false)
	if err := b.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://static"}); err != nil {
		t.Fatal(err)
	}
	touch()
	expect(b, "client b", false)
}
