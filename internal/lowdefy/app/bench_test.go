package app

import "testing"

func BenchmarkLoadFeatures(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load("testdata/oracle/features", Options{Env: map[string]string{}}); err != nil {
			b.Fatal(err)
		}
	}
}
