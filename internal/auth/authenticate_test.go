package auth_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/auth"
)

func request(authz string) *http.Request {
	r := httptest.NewRequest("GET", "/", nil)
	if authz != "" {
		r.Header.Set("Authorization", authz)
	}
	return r
}

func TestStaticKeys(t *testing.T) {
	admin := auth.Principal{User: "admin", Admin: true}
	k := auth.NewStaticKeys(admin, "key-one-0123456789", "", "key-two-0123456789")
	if k.Len() != 2 {
		t.Fatalf("Len = %d, want 2 (empty keys ignored)", k.Len())
	}
	for _, c := range []struct {
		authz string
		ok    bool
	}{
		{"Bearer key-one-0123456789", true},
		{"bearer key-two-0123456789", true},
		{"Bearer  key-two-0123456789 ", true},
		{"Bearer key-one", false},
		{"Bearer key-one-0123456789x", false},
		{"Basic key-one-0123456789", false},
		{"key-one-0123456789", false},
		{"Bearer ", false},
		{"", false},
	} {
		p, ok, err := k.Authenticate(request(c.authz))
		if err != nil || ok != c.ok || (ok && p.User != "admin") || (!ok && p.User != "") {
			t.Errorf("%q: %+v %v %v, want ok=%v", c.authz, p, ok, err, c.ok)
		}
	}
	if _, ok, _ := auth.NewStaticKeys(admin).Authenticate(request("Bearer x")); ok {
		t.Error("no keys accepted a token")
	}
}

type refuseAll struct{}

func (refuseAll) Authenticate(*http.Request) (auth.Principal, bool, error) {
	return auth.Anonymous, false, auth.ErrInvalidCredentials
}

func TestMiddlewareAndRequire(t *testing.T) {
	admin := auth.Principal{User: "admin", Admin: true}
	var seen auth.Principal
	final := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = auth.FromContext(r.Context()) })
	deny := func(w http.ResponseWriter, r *http.Request, err error) {
		if !errors.Is(err, auth.ErrInvalidCredentials) {
			t.Errorf("deny got %v", err)
		}
		w.WriteHeader(http.StatusUnauthorized)
	}
	h := auth.Middleware(auth.Authenticators{auth.NewStaticKeys(admin, "secret-key-0123456789")}, deny)(final)

	seen = auth.Principal{User: "stale"}
	h.ServeHTTP(httptest.NewRecorder(), request("Bearer secret-key-0123456789"))
	if !seen.Admin {
		t.Errorf("key: principal %+v", seen)
	}
	h.ServeHTTP(httptest.NewRecorder(), request("Bearer other"))
	if seen.User != "" || seen.Admin {
		t.Errorf("unknown token: principal %+v, want anonymous", seen)
	}

	w := httptest.NewRecorder()
	auth.Middleware(refuseAll{}, deny)(final).ServeHTTP(w, request("Bearer x"))
	if w.Code != http.StatusUnauthorized {
		t.Errorf("refused credentials: %d", w.Code)
	}

	forbidden := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) })
	guarded := auth.Middleware(auth.NewStaticKeys(admin, "secret-key-0123456789"), deny)(auth.Require(auth.IsAdmin, forbidden)(final))
	w = httptest.NewRecorder()
	guarded.ServeHTTP(w, request(""))
	if w.Code != http.StatusForbidden {
		t.Errorf("anonymous through Require: %d", w.Code)
	}
	w = httptest.NewRecorder()
	guarded.ServeHTTP(w, request("Bearer secret-key-0123456789"))
	if w.Code != http.StatusOK {
		t.Errorf("admin through Require: %d", w.Code)
	}
}
