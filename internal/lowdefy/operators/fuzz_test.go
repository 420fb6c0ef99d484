package operators

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// FuzzParse feeds random JSON to both parsers: parsing must never panic
// (recovered panics surface as *panicError, which fails the fuzz test) and
// every error must be a value.
func FuzzParse(f *testing.F) {
	corpus, err := os.ReadFile("testdata/corpus.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for i, line := range strings.Split(string(corpus), "\n") {
		if i%7 != 0 || line == "" {
			continue
		}
		var tc corpusCase
		if json.Unmarshal([]byte(line), &tc) == nil {
			f.Add([]byte(tc.Expr))
		}
	}
	fx := loadFixture(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		input, err := serial.Unmarshal(data)
		if err != nil {
			return
		}
		for _, p := range []*Parser{NewClientParser(newFixtureContext(fx)), NewServerParser(newFixtureContext(fx))} {
			_, errs := p.ParseWith(context.Background(), input, Options{Location: "fuzz.$", ArrayIndices: []int{0}, Event: fx.Event, Actions: fx.Actions})
			for _, e := range errs {
				if e == nil {
					t.Fatalf("nil error for %s", data)
				}
				var pe *panicError
				if errors.As(e, &pe) {
					t.Fatalf("panic while parsing %s: %v", data, e)
				}
			}
		}
	})
}
