package httpapi

import (
	"net/url"
	"testing"
)

func TestSameOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"http://api.example/x", "http://api.example/y?z", true},
		{"http://api.example/", "http://API.example./", true},
		{"http://api.example/", "http://api.example:80/", true},
		{"https://api.example/", "https://api.example:443/", true},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8081/", false},
		{"http://api.example/", "http://evil.api.example/", false},
		{"http://api.example/", "http://example/", false},
		{"http://api.example/", "https://api.example/", true}, // upgrade, default ports
		{"http://api.example:8080/", "https://api.example:8443/", false},
		{"https://api.example/", "http://api.example/", false}, // downgrade
		{"http://[::1]:80/", "http://[::1]/", true},
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := sameOrigin(a, b); got != tt.want {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
