package testenv_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// helperEnv selects what TestHelper needs when this test binary runs it as a child.
const helperEnv = "TESTENV_HELPER"

// TestHelper is the child's test: it asks for one part and fails if the call returns for a
// missing part (a skip or a failure must stop the test).
func TestHelper(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "":
		t.Skip("runs as a child of TestMissingParts")
	case "chromium-missing":
		testenv.Files(t, "headless Chromium", "scripts/setup-chromium.sh", "/nonexistent/chromium")
	case "file-present":
		testenv.Files(t, "this test file", "nothing", "testenv_test.go")
		t.Log("present: went on")
		return
	case "postgres":
		testenv.PostgresURL(t)
	case "mysql":
		testenv.MySQLURL(t)
	}
	t.Error("the test went on after a missing part")
}

// child runs TestHelper in a child process with the environment given (and without the
// variables naming the database servers) and returns its output and whether it passed.
func child(t *testing.T, env ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelper$", "-test.v", "-test.count=1")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != testenv.RequireAllEnv && k != testenv.PostgresEnv && k != testenv.MySQLEnv && k != helperEnv {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running the child: %v", err)
	}
	return string(out), err == nil
}

func TestMissingParts(t *testing.T) {
	for _, tc := range []struct{ part, line string }{
		{"chromium-missing", "missing headless Chromium (/nonexistent/chromium not found); get it with: scripts/setup-chromium.sh"},
		{"postgres", `missing PostgreSQL (MCPBRIDGE_TEST_POSTGRES is unset); get it with: eval "$(scripts/setup-postgres.sh)"; export MCPBRIDGE_TEST_POSTGRES`},
		{"mysql", `missing MariaDB (MCPBRIDGE_TEST_MYSQL is unset); get it with: eval "$(scripts/setup-mysql.sh)"; export MCPBRIDGE_TEST_MYSQL`},
	} {
		t.Run(tc.part+"/skips", func(t *testing.T) {
			out, ok := child(t, helperEnv+"="+tc.part)
			if !ok || !strings.Contains(out, "--- SKIP: TestHelper") || !strings.Contains(out, tc.line) {
				t.Errorf("want a skip saying %q; passed=%v, output:\n%s", tc.line, ok, out)
			}
			if strings.Contains(out, "went on") {
				t.Errorf("the test went on:\n%s", out)
			}
		})
		t.Run(tc.part+"/fails-under-require-all", func(t *testing.T) {
			out, ok := child(t, helperEnv+"="+tc.part, testenv.RequireAllEnv+"=1")
			if ok || !strings.Contains(out, "--- FAIL: TestHelper") || !strings.Contains(out, tc.line) {
				t.Errorf("want a failure saying %q; passed=%v, output:\n%s", tc.line, ok, out)
			}
			if strings.Contains(out, "went on") {
				t.Errorf("the test went on:\n%s", out)
			}
		})
	}
	t.Run("present", func(t *testing.T) {
		out, ok := child(t, helperEnv+"=file-present", testenv.RequireAllEnv+"=1")
		if !ok || !strings.Contains(out, "present: went on") || !strings.Contains(out, "--- PASS: TestHelper") {
			t.Errorf("a present part must let the test run; passed=%v, output:\n%s", ok, out)
		}
	})
}
