package lowdefy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/server"
)

// user is the Lowdefy user (_user, and what auth.pages rules are checked against) of a
// principal: nil for an anonymous caller. See lowdefyUser.
func (b *Backend) user(p auth.Principal) *jsvalue.Object {
	fields, _ := b.app.Auth.Prop("userFields").(*jsvalue.Object)
	return lowdefyUser(p, fields)
}

// lowdefyUser builds a principal's Lowdefy user as Lowdefy's auth callbacks build
// session.user from a sign-in, with the principal as the sign-in:
//
//   - id and sub are the principal's user id; a JWT's standard OpenID Connect claims
//     (name, given_name, …, email, picture, …: server.StandardClaims) follow, as Lowdefy's
//     session callback copies them; otherwise the principal's name and email; then roles,
//     the principal's roles (which auth.pages rules read).
//   - auth.userFields then maps, entry by entry, a path in {account, profile, user} to a
//     field of _user (server.ApplyUserFields), where profile is the identity provider's
//     profile: a JWT's claims, or for an API key (or stdio's environment) its user record as
//     claims {sub, name, email, roles}; user is the user record {id, name, email, image (a
//     JWT's picture), roles}; account is {provider: jwt | key | env | admin-key, type: oauth
//     (JWT) or credentials, providerAccountId: the user id, issuer (JWT)}. A path that reads
//     nothing removes the field, as in Lowdefy.
//
// mcpbridge runs no auth adapter: an app whose auth.adapter keeps users in a database gets
// the principal's record as user, not the database's (docs/lowdefy.md, "Users").
func lowdefyUser(p auth.Principal, userFields *jsvalue.Object) *jsvalue.Object {
	if p.User == "" {
		return nil
	}
	roles := make([]any, len(p.Roles))
	for i, r := range p.Roles {
		roles[i] = r
	}
	claims := claimsObject(p.Claims)
	u := jsvalue.ObjectOf("id", p.User, "sub", p.User)
	if claims != nil {
		for _, c := range server.StandardClaims {
			if v, ok := claims.Get(c); ok && c != "sub" && v != nil {
				u.Set(c, v)
			}
		}
	}
	if !u.Has("name") && p.Name != "" {
		u.Set("name", p.Name)
	}
	if !u.Has("email") && p.Email != "" {
		u.Set("email", p.Email)
	}
	u.Set("roles", roles)
	if userFields == nil || userFields.Len() == 0 {
		return u
	}
	rec := jsvalue.ObjectOf("id", p.User)
	if p.Name != "" {
		rec.Set("name", p.Name)
	}
	if p.Email != "" {
		rec.Set("email", p.Email)
	}
	if pic, ok := claims.Prop("picture").(string); ok && pic != "" {
		rec.Set("image", pic)
	}
	rec.Set("roles", append([]any(nil), roles...))
	profile := claims
	if profile == nil {
		profile = jsvalue.ObjectOf("sub", p.User)
		if p.Name != "" {
			profile.Set("name", p.Name)
		}
		if p.Email != "" {
			profile.Set("email", p.Email)
		}
		profile.Set("roles", append([]any(nil), roles...))
	}
	provider, _, _ := strings.Cut(p.Via, ":")
	account := jsvalue.ObjectOf("provider", provider, "type", "credentials", "providerAccountId", p.User)
	if p.Claims != nil {
		account.Set("provider", "jwt")
		account.Set("type", "oauth")
		account.Set("issuer", p.Issuer)
	}
	return server.ApplyUserFields(u, userFields, server.UserSources{Account: account, Profile: profile, User: rec})
}

// claimsObject is a JWT's claims as Lowdefy values (nil for none).
func claimsObject(claims map[string]any) *jsvalue.Object {
	if claims == nil {
		return nil
	}
	b, err := json.Marshal(claims)
	if err != nil {
		return nil
	}
	v, err := jsvalue.Decode(b)
	if err != nil {
		return nil
	}
	o, _ := v.(*jsvalue.Object)
	return o
}

// adapterNote says what becomes of an app's auth adapter under mcpbridge, or "" when the
// app has none: mcpbridge runs no adapter, so the users the adapter keeps in a database are
// not read; user (in auth.userFields) is the caller's record.
func adapterNote(a *app.App) string {
	ad, _ := a.Auth.Prop("adapter").(*jsvalue.Object)
	if ad == nil {
		return ""
	}
	typ, _ := ad.Prop("type").(string)
	return fmt.Sprintf("the app's auth adapter %s does not run under mcpbridge: _user comes from the caller (API key or JWT), and user.* in auth.userFields reads the caller's record {id, name, email, roles}, not the adapter's database; give keys the user ids the app's database uses (docs/lowdefy.md, Users)", typ)
}
