package httpapi_test

import (
	"net"
	"strings"
	"testing"
)

// TestEmbeddedLoopbackRefused is the IPv6 part of issue 12 point 9: ::7f00:1 is the
// IPv4-compatible spelling of 127.0.0.1, and must be refused as loopback when loopback is not
// allowed, before any connection is attempted.
func TestEmbeddedLoopbackRefused(t *testing.T) {
	up := newUpstream(t)
	_, port, _ := net.SplitHostPort(up.Listener.Addr().String())
	for _, host := range []string{"[::7f00:1]", "[2002:7f00:1::1]", "[::ffff:0:7f00:1]", "[64:ff9b:1::7f00:1]"} {
		b := mustOpen(t, redirectServer("http://"+host+":"+port, false))
		res := callTool(t, b, "get_user", map[string]any{"id": "1"})
		got := resultText(res)
		t.Logf("%s: %s", host, got)
		if !res.IsError || !strings.Contains(got, "loopback address") || !strings.Contains(got, "allow_private") {
			t.Errorf("%s: want a refusal as loopback, got isError %v %q", host, res.IsError, got)
		}
	}
	if n := up.count(); n != 0 {
		t.Errorf("the upstream received %d requests", n)
	}
}
