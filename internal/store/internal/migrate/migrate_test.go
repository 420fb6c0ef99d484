package migrate

import (
	"strings"
	"testing"
)

func TestPending(t *testing.T) {
	list := []Migration{{Version: 1, Name: "a"}, {Version: 2, Name: "b"}, {Version: 3, Name: "c"}}
	tests := []struct {
		applied int
		want    int
		errHas  string
	}{
		{0, 3, ""}, {1, 2, ""}, {3, 0, ""},
		{4, 0, "newer than this mcpbridge"},
		{-1, 0, "corrupt"},
	}
	for _, tc := range tests {
		got, err := Pending(list, tc.applied)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("Pending(applied=%d) error = %v, want %q", tc.applied, err, tc.errHas)
			}
			continue
		}
		if err != nil || len(got) != tc.want || (len(got) > 0 && got[0].Version != tc.applied+1) {
			t.Errorf("Pending(applied=%d) = %v, %v; want %d starting at %d", tc.applied, got, err, tc.want, tc.applied+1)
		}
	}
	if _, err := Pending([]Migration{{Version: 1}, {Version: 3}}, 0); err == nil {
		t.Error("a gap in versions was accepted")
	}
}
