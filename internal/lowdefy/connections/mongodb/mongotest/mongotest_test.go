package mongotest

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestServer builds (or finds in the cache) the FerretDB binary, starts a server, checks
// that it accepts connections on a loopback port, stops it and checks that it is gone.
// scripts/test.sh runs it in its setup phase, so the build happens once before the suite.
func TestServer(t *testing.T) {
	start := time.Now()
	requireBinary(t) // skips (fails under MCPBRIDGE_TEST_REQUIRE_ALL=1) when it cannot be built
	bin, err := Binary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("binary %s ready in %s", bin, time.Since(start).Round(time.Millisecond))

	s, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	host, ok := strings.CutPrefix(strings.TrimSuffix(s.URI, "/"), "mongodb://")
	if !ok || !strings.HasPrefix(host, "127.0.0.1:") {
		t.Fatalf("URI %q, want mongodb://127.0.0.1:PORT/", s.URI)
	}
	c, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", host, err)
	}
	c.Close()
	if _, err := os.Stat(s.dir); err != nil {
		t.Errorf("data directory: %v", err)
	}

	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if s.cmd.ProcessState == nil || !s.cmd.ProcessState.Exited() {
		t.Errorf("the process has not exited: %v", s.cmd.ProcessState)
	}
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("data directory still there after Stop: %v", err)
	}
	if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Stop", host)
	}

	// A second lookup is the cached binary.
	again, err := Binary(context.Background())
	if err != nil || again != bin {
		t.Errorf("Binary again = %q, %v; want %q", again, err, bin)
	}
}

func TestDatabaseName(t *testing.T) {
	a := DatabaseName(t)
	if len(a) > 63 || strings.ContainsAny(a, `/\. "$`) {
		t.Errorf("DatabaseName = %q, not a valid MongoDB database name", a)
	}
	t.Run("sub/test with spaces", func(t *testing.T) {
		if b := DatabaseName(t); b == a || strings.ContainsAny(b, `/\. "$`) {
			t.Errorf("DatabaseName = %q (parent %q)", b, a)
		}
	})
}
