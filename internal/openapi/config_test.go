package openapi_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	_ "github.com/mcpbridge/mcpbridge/internal/backend/all"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/openapi"
)

// TestImportedConfigsLoad checks that what the importer writes is accepted by mcpbridge's own
// strict config decoder, for every real spec in testdata.
func TestImportedConfigsLoad(t *testing.T) {
	paths, _ := filepath.Glob("testdata/specs/*")
	for _, p := range paths {
		base := filepath.Base(p)
		if strings.HasPrefix(base, "swagger2") {
			continue
		}
		t.Run(base, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(p, ".gz") {
				zr, err := gzip.NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				data, err = io.ReadAll(zr)
				if err != nil {
					t.Fatal(err)
				}
			}
			res, err := openapi.Import(data, openapi.Options{ServerName: "api", BaseURL: "https://api.example.com"})
			if err != nil {
				t.Fatal(err)
			}
			doc, err := res.YAML()
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Parse(base+".yaml", t.TempDir(), doc, backend.Kinds())
			if err != nil {
				msg := err.Error()
				if len(msg) > 3000 {
					msg = msg[:3000]
				}
				t.Fatalf("generated config does not load:\n%s", msg)
			}
			if got := len(cfg.Servers["api"].Tools); got != len(res.Server.Tools) || got == 0 {
				t.Errorf("tools: config has %d, import made %d", got, len(res.Server.Tools))
			}
		})
	}
}
