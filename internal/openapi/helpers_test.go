package openapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readSpec reads a spec from testdata/specs, unzipping .gz files.
func readSpec(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "specs", name))
	if err != nil {
		t.Fatalf("reading spec %s: %v", name, err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("unzipping %s: %v", name, err)
		}
		data, err = io.ReadAll(zr)
		if err != nil {
			t.Fatalf("unzipping %s: %v", name, err)
		}
	}
	return data
}

func regexpMust(expr string) *regexp.Regexp { return regexp.MustCompile(expr) }
