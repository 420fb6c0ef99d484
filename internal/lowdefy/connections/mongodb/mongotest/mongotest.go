// Package mongotest gives tests a real MongoDB server: FerretDB v1.24 embedded with its
// SQLite handler, built from the test-only module tools/ferretdb (its own go.mod, so
// FerretDB never enters mcpbridge's module graph) and run as a child process on a
// loopback port.
//
// The binary is built once per machine and source version: it is cached under the user
// cache directory (or $MCPBRIDGE_CACHE) keyed by a hash of the module's go.mod, go.sum and
// main.go, and builds racing in parallel test binaries are safe. $MCPBRIDGE_FERRETDB names
// a prebuilt binary to use instead.
//
// A test package shares one server:
//
//	func TestMain(m *testing.M) { mongotest.Main(m) }
//
//	func TestX(t *testing.T) {
//		uri := mongotest.Shared(t).URI
//		db := mongotest.DatabaseName(t) // a database of its own
//		…
//	}
//
// Main stops the shared server and removes its files when the tests end; without it the
// server still stops when the test binary exits (it watches its standard input).
package mongotest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// Server is a running FerretDB.
type Server struct {
	// URI is the connection string, mongodb://127.0.0.1:PORT/.
	URI string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	dir    string
	stderr *tailBuffer
	done   chan error
	once   sync.Once
	err    error
}

// Start builds the binary if needed and starts a server with its data in a new temporary
// directory.
func Start(ctx context.Context) (*Server, error) {
	bin, err := Binary(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "mcpbridge-ferretdb-")
	if err != nil {
		return nil, fmt.Errorf("mongotest: create a data directory: %w", err)
	}
	s := &Server{dir: dir, stderr: &tailBuffer{max: 8 << 10}, done: make(chan error, 1)}
	s.cmd = exec.Command(bin, "-sqlite", dir)
	s.cmd.Stderr = s.stderr
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	if err := s.cmd.Start(); err != nil {
		return nil, errors.Join(fmt.Errorf("mongotest: start %s: %w", bin, err), os.RemoveAll(dir))
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if uri, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				ready <- uri
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		close(ready)
	}()
	go func() { s.done <- s.cmd.Wait() }()
	// A generous bound: it only catches a server that hangs, never a slow machine.
	timer := time.NewTimer(5 * time.Minute)
	defer timer.Stop()
	select {
	case uri, ok := <-ready:
		if ok {
			s.URI = uri
			return s, nil
		}
		err = errors.New("it exited before accepting connections")
	case <-timer.C:
		err = errors.New("it did not accept connections within 5 minutes")
	case <-ctx.Done():
		err = ctx.Err()
	}
	stopErr := s.Stop()
	return nil, fmt.Errorf("mongotest: FerretDB: %w (stderr: %s)", errors.Join(err, stopErr), s.stderr.String())
}

// Stop stops the server and removes its data. It may be called more than once.
func (s *Server) Stop() error {
	s.once.Do(func() {
		_ = s.stdin.Close() // end of input stops the server
		timer := time.NewTimer(10 * time.Second)
		defer timer.Stop()
		var err error
		select {
		case err = <-s.done:
		case <-timer.C:
			_ = s.cmd.Process.Kill()
			err = fmt.Errorf("mongotest: FerretDB did not stop within 10s: %w", <-s.done)
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.Exited() && exit.ExitCode() == 0 {
			err = nil
		}
		if err != nil && s.URI != "" {
			err = fmt.Errorf("mongotest: FerretDB exited: %w (stderr: %s)", err, s.stderr.String())
		}
		s.err = errors.Join(err, os.RemoveAll(s.dir))
	})
	return s.err
}

// New starts a server for one test and stops it when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	requireBinary(t)
	s, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

var shared struct {
	mu  sync.Mutex
	srv *Server
	err error
}

// Shared returns the server shared by the tests of this test binary, starting it on first
// use. Use DatabaseName to give each test its own database.
func Shared(t testing.TB) *Server {
	t.Helper()
	requireBinary(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.srv == nil && shared.err == nil {
		shared.srv, shared.err = Start(context.Background())
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv
}

// Main runs the tests and then stops the shared server, if one was started.
func Main(m *testing.M) {
	code := m.Run()
	shared.mu.Lock()
	if shared.srv != nil {
		if err := shared.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	shared.mu.Unlock()
	os.Exit(code)
}

// requireBinary stops the test (see testenv.Missing) when the FerretDB binary cannot be
// built: offline with the modules of tools/ferretdb not in the module cache, or a cold
// build on a busy machine that would not end before the test binary's -timeout (the build
// is then cut a minute before it, so the test skips instead of the binary panicking).
func requireBinary(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline.Add(-time.Minute))
			defer cancel()
		}
	}
	if _, err := Binary(ctx); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("building it did not end before the test deadline; build it once with a longer -timeout: "+
				"go test -timeout 30m -run '^TestServer$' ./internal/lowdefy/connections/mongodb/mongotest/ (%w)", err)
		}
		first, rest, _ := strings.Cut(err.Error(), "\n")
		if testenv.RequireAll() && rest != "" {
			t.Log(rest) // the build's output
		}
		testenv.Missing(t, "FerretDB ("+first+")",
			"cd tools/ferretdb && go build ./... (needs the Go module proxy once; scripts/test.sh does it), or set MCPBRIDGE_FERRETDB to a built binary")
	}
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// DatabaseName returns a database name of the test's own, derived from its name.
func DatabaseName(t testing.TB) string {
	name := nonName.ReplaceAllString(t.Name(), "_")
	sum := sha256.Sum256([]byte(t.Name()))
	if len(name) > 40 {
		name = name[:40]
	}
	return "t_" + name + "_" + hex.EncodeToString(sum[:4])
}

var build struct {
	once sync.Once
	bin  string
	err  error
}

// Binary returns the path of the FerretDB binary, building it on first use (see the
// package documentation for the cache).
func Binary(ctx context.Context) (string, error) {
	build.once.Do(func() { build.bin, build.err = buildBinary(ctx) })
	return build.bin, build.err
}

// ModuleDir is the directory of the tools/ferretdb module.
func ModuleDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("mongotest: cannot find the source directory")
	}
	// file is …/internal/lowdefy/connections/mongodb/mongotest/mongotest.go.
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "..")
	dir := filepath.Join(root, "tools", "ferretdb")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("mongotest: the FerretDB module is missing: %w", err)
	}
	return dir, nil
}

func buildBinary(ctx context.Context) (string, error) {
	if bin := os.Getenv("MCPBRIDGE_FERRETDB"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("mongotest: $MCPBRIDGE_FERRETDB: %w", err)
		}
		return bin, nil
	}
	dir, err := ModuleDir()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", fmt.Errorf("mongotest: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	fmt.Fprintf(h, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	key := hex.EncodeToString(h.Sum(nil))[:16]

	cache := os.Getenv("MCPBRIDGE_CACHE")
	if cache == "" {
		if cache, err = os.UserCacheDir(); err != nil {
			cache = os.TempDir()
		}
		cache = filepath.Join(cache, "mcpbridge")
	}
	binDir := filepath.Join(cache, "ferretdb-"+key)
	bin := filepath.Join(binDir, "ferretdb")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", fmt.Errorf("mongotest: create the binary cache: %w", err)
	}
	// Build next to the final path and rename, so parallel test binaries never see a
	// half-written file.
	tmp, err := os.CreateTemp(binDir, "build-*")
	if err != nil {
		return "", fmt.Errorf("mongotest: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	// No time limit of its own: a cold build on a busy machine takes as long as it takes
	// (more than 15 minutes was seen beside six other builds); the caller's context (the
	// test's deadline) bounds it.
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", tmp.Name(), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "CGO_ENABLED=0")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("mongotest: build FerretDB in %s (needs the Go module proxy or a filled module cache): %w\n%s", dir, err, out)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", fmt.Errorf("mongotest: %w", err)
	}
	fmt.Fprintf(os.Stderr, "mongotest: built FerretDB in %s\n", time.Since(start).Round(time.Second))
	return bin, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
