package server

import (
	"slices"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func TestAuthorize(t *testing.T) {
	s := &Server{}
	pub := jsvalue.ObjectOf("public", true)
	prot := jsvalue.ObjectOf("public", false)
	admin := jsvalue.ObjectOf("public", false, "roles", []any{"admin", "owner"})
	noRoles := jsvalue.ObjectOf("public", false, "roles", []any{})
	cases := []struct {
		name string
		user *jsvalue.Object
		auth *jsvalue.Object
		want bool
	}{
		{"public, anonymous", nil, pub, true},
		{"protected, anonymous", nil, prot, false},
		{"protected, signed in without roles field", jsvalue.ObjectOf("id", "x"), prot, true},
		{"roles, anonymous", nil, admin, false},
		{"roles, other role", user("reader"), admin, false},
		{"roles, one matches", user("reader", "owner"), admin, true},
		{"roles, user without roles", jsvalue.ObjectOf("id", "x"), admin, false},
		{"roles: [] (truthy in JavaScript) lets nobody in", user("admin"), noRoles, false},
		{"roles as a string include by substring, as in JavaScript", jsvalue.ObjectOf("roles", "superadmin"), admin, true},
	}
	for _, c := range cases {
		got, err := s.Authorize(c.user, c.auth)
		if err != nil || got != c.want {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	for _, bad := range []*jsvalue.Object{nil, jsvalue.ObjectOf("public", "yes"), jsvalue.ObjectOf()} {
		_, err := s.Authorize(user(), bad)
		wantError(t, err, "ServerError", "Invalid auth configuration")
	}
}

func TestPagesAndEndpointsPerUser(t *testing.T) {
	a := loadApp(t, map[string]string{"lowdefy.yaml": `
lowdefy: 4.0.0
auth:
  pages:
    public: [home]
    roles:
      admin: [admin]
  api:
    protected: [mine]
    roles:
      admin: [purge]
pages:
  - id: home
    type: Box
  - id: members
    type: Box
  - id: admin
    type: Box
api:
  - id: health
    type: Api
    routine:
      - :return: ok
  - id: mine
    type: Api
    routine:
      - :return: { _user: id }
  - id: purge
    type: Api
    routine:
      - :return: purged
`})
	s := New(a, Options{})
	check := func(name string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("Pages(anonymous)", s.Pages(nil), []string{"home"})
	check("Pages(member)", s.Pages(user()), []string{"home", "members", "404"})
	check("Pages(admin)", s.Pages(user("admin")), []string{"home", "members", "admin", "404"})
	check("Endpoints(anonymous)", s.Endpoints(nil), []string{"health"})
	check("Endpoints(member)", s.Endpoints(user()), []string{"health", "mine"})
	check("Endpoints(admin)", s.Endpoints(user("admin")), []string{"health", "mine", "purge"})
	if s.PageAllowed(nil, "members") || !s.PageAllowed(user(), "members") || s.PageAllowed(user(), "nope") {
		t.Error("PageAllowed disagrees with the page auth")
	}

	// An endpoint the user may not call does not exist for them.
	_, err := s.CallEndpoint(bg, user(), EndpointCall{EndpointID: "purge"})
	wantError(t, err, "ConfigurationError", `API Endpoint "purge" does not exist.`)
	_, err = s.CallEndpoint(bg, nil, EndpointCall{EndpointID: "mine"})
	wantError(t, err, "ConfigurationError", `API Endpoint "mine" does not exist.`)
	_, err = s.CallEndpoint(bg, nil, EndpointCall{EndpointID: "nope"})
	wantError(t, err, "ConfigurationError", `API Endpoint "nope" does not exist.`)
	res, err := s.CallEndpoint(bg, user("admin"), EndpointCall{EndpointID: "mine"})
	if err != nil || res.Response != "u1" || res.Status != "success" {
		t.Fatalf("mine for a signed-in user: %+v %v", res, err)
	}
}
