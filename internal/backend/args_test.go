package backend

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		raw     string
		want    map[string]any
		wantErr bool
	}{
		{"", map[string]any{}, false},
		{"null", map[string]any{}, false},
		{" null ", map[string]any{}, false},
		{`{"n": 12345678901234567890, "s": "x"}`, map[string]any{"n": json.Number("12345678901234567890"), "s": "x"}, false},
		{`{"a": 1} {"b": 2}`, nil, true},
		{`[1]`, nil, true},
		{`"text"`, nil, true},
		{`{"a":`, nil, true},
	}
	for _, tt := range tests {
		got, err := DecodeArgs(json.RawMessage(tt.raw))
		if (err != nil) != tt.wantErr {
			t.Errorf("DecodeArgs(%q) error %v, want error %v", tt.raw, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("DecodeArgs(%q) = %#v, want %#v", tt.raw, got, tt.want)
		}
	}
}
