package engine_test

import (
	"context"
	"strings"
	"testing"
)

// A huge page or block id an agent gives is not repeated whole in the error that refuses
// it: the message names the start of it and its length.
func TestHugeIDsAreNotEchoed(t *testing.T) {
	e := datesEngine(t)
	ctx := context.Background()
	huge := strings.Repeat("é", 1<<19) // 1 MiB
	for name, err := range map[string]error{
		"Navigate":            e.Navigate(ctx, huge, nil, nil),
		"NavigateURL":         e.NavigateURL(ctx, huge+"?id=1", nil, nil),
		"NavigateURL both":    e.NavigateURL(ctx, "p?id="+huge, nil, obj(t, `{"a": 1}`)),
		"SetValue":            e.SetValue(ctx, huge, "x"),
		"SetValue PARENT/ID#": e.SetValue(ctx, "p/"+huge+"#999999999999", "x"),
	} {
		if err == nil {
			t.Errorf("%s of a 1 MiB id: no error", name)
			continue
		}
		msg := err.Error()
		if len(msg) > 1024 || !strings.Contains(msg, "bytes)") || !strings.Contains(msg, "éé") {
			t.Errorf("%s of a 1 MiB id: a %d-byte error %.300q", name, len(msg), msg)
		}
	}
}
