package jsvalue

import (
	"strconv"
	"strings"
	"testing"
)

func BenchmarkObject(b *testing.B) {
	for _, n := range []int{4, 12, 64} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = "key" + strconv.Itoa(i)
		}
		b.Run("Set/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o := NewObject(n)
				for _, k := range keys {
					o.Set(k, 1.0)
				}
			}
		})
		o := NewObject(n)
		for _, k := range keys {
			o.Set(k, 1.0)
		}
		b.Run("Get/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, k := range keys {
					if _, ok := o.Get(k); !ok {
						b.Fatal("missing")
					}
				}
			}
		})
		b.Run("Range/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := 0
				for range o.Range {
					c++
				}
			}
		})
	}
}

var benchJSON = []byte(`{"id":"page:form","type":"PageHeaderMenu","properties":{"title":"New ticket","layout":{"contentGutter":16}},` +
	`"events":{"onInit":{"try":[{"id":"reset","type":"SetState","params":{"ticket":{"title":"","priority":3,"tags":["a","b"]}}}],"catch":[]}},` +
	`"areas":{"content":{"blocks":[{"id":"block:form:title:0","blockId":"title","type":"TextInput","properties":{"label":{"title":"Title \u00e9"}},"required":true},` +
	`{"id":"block:form:priority:0","blockId":"priority","type":"NumberInput","properties":{"min":1,"max":5,"step":0.5}}]}}}`)

func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchJSON)))
	for b.Loop() {
		if _, err := Decode(benchJSON); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStringify(b *testing.B) {
	v, _ := Decode(benchJSON)
	for _, indent := range []string{"", "  "} {
		b.Run("indent="+strconv.Quote(indent), func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 1024)
			for b.Loop() {
				buf, _ = AppendJSON(buf[:0], v, indent)
			}
		})
	}
}

func BenchmarkCompareStrings(b *testing.B) {
	pairs := [][2]string{
		{"alpha", "alphb"}, {strings.Repeat("x", 64) + "a", strings.Repeat("x", 64) + "b"}, {"日本語テキスト", "日本語テキスド"}, {"\U0001F600", "\uffff"},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pairs {
			CompareStrings(p[0], p[1])
		}
	}
}

func BenchmarkNumberToString(b *testing.B) {
	nums := []float64{0, 42, -17, 3.14159, 1e21, 1.5e-7, 123456.789}
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range nums {
			_ = NumberToString(f)
		}
	}
}

func BenchmarkToNumber(b *testing.B) {
	vals := []any{"42", " 3.5 ", "0x1f", "abc", true, nil, []any{7.0}}
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range vals {
			_ = ToNumber(v)
		}
	}
}
