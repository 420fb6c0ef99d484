package secret

import (
	"strings"
	"testing"
)

// BenchmarkScrubber scrubs 1 MiB of JSON-like text (the default max_output) holding no
// secret, and the same with one secret in it, for a backend with three secrets.
func BenchmarkScrubber(b *testing.B) {
	sc := NewScrubber("sk-live-0123456789abcdef", "ck/secret value+1", "file-secret-9876543210")
	clean := strings.Repeat(`{"id":"12345","name":"Ada Lovelace","email":"ada@example.com","tags":["a","b"]},`, 1<<20/80)
	dirty := clean[:len(clean)/2] + "sk-live-0123456789abcdef" + clean[len(clean)/2:]
	for _, c := range []struct{ name, in string }{{"clean", clean}, {"one secret", dirty}} {
		b.Run("String/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				sc.String(c.in)
			}
		})
		data := []byte(c.in)
		b.Run("Bytes/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				sc.Bytes(data)
			}
		})
	}
	b.Run("Cut", func(b *testing.B) {
		data := []byte(dirty[:len(dirty)/2+10])
		b.ReportAllocs()
		for b.Loop() {
			sc.Cut(data, CutEnd)
		}
	})
}
