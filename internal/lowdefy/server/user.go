package server

import (
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// StandardClaims are the OpenID Connect profile claims Lowdefy's session callback copies
// from the sign-in token into `_user`, in its order (@lowdefy/api 4.0.0-rc.11
// createSessionCallback).
var StandardClaims = []string{"sub", "name", "given_name", "family_name", "middle_name", "nickname",
	"preferred_username", "profile", "picture", "website", "email", "email_verified", "gender",
	"birthdate", "zoneinfo", "locale", "phone_number", "phone_number_verified", "address", "updated_at"}

// UserSources are what `auth.userFields` reads from, named as in Lowdefy's JWT callback
// (addUserFieldsToToken): the sign-in's account, the identity provider's profile, and the
// user record. Any may be nil.
type UserSources struct {
	Account, Profile, User *jsvalue.Object
}

// ApplyUserFields maps `auth.userFields` into user, as Lowdefy's JWT and session
// callbacks do: for each entry `lowdefyField: providerPath`, in order, the value at
// providerPath in {account, profile, user} (a dotted path such as profile.app_roles or
// user.id) is set at the dotted path lowdefyField of user. A path that reads nothing
// leaves the field undefined: it is removed, as Lowdefy's session (JSON) drops it. A
// userFields entry whose path is not a string is skipped (the app loader reports it).
// user is changed in place and returned; userFields may be nil.
func ApplyUserFields(user, userFields *jsvalue.Object, src UserSources) *jsvalue.Object {
	if user == nil || userFields == nil {
		return user
	}
	objects := jsvalue.NewObject(3)
	for _, kv := range []struct {
		k string
		v *jsvalue.Object
	}{{"account", src.Account}, {"profile", src.Profile}, {"user", src.User}} {
		if kv.v != nil {
			objects.Set(kv.k, kv.v)
		}
	}
	for field, p := range userFields.Range {
		path, ok := p.(string)
		if !ok {
			continue
		}
		v := getDotted(objects, path)
		if jsvalue.IsUndefined(v) {
			unsetDotted(user, field)
			continue
		}
		setDotted(user, field, jsvalue.DeepCopy(v))
	}
	return user
}

// getDotted reads a dotted path (object keys, array indices), as @lowdefy/helpers get.
func getDotted(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case *jsvalue.Object:
			var ok bool
			if v, ok = x.Get(k); !ok {
				return jsvalue.Undefined
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return jsvalue.Undefined
			}
			v = x[i]
		default:
			return jsvalue.Undefined
		}
	}
	return v
}

// setDotted sets a dotted path of o, making the objects on the way.
func setDotted(o *jsvalue.Object, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := o.Prop(k).(*jsvalue.Object)
		if !ok {
			next = jsvalue.NewObject(1)
			o.Set(k, next)
		}
		o = next
	}
	o.Set(keys[len(keys)-1], v)
}

// unsetDotted removes a dotted path of o, if there.
func unsetDotted(o *jsvalue.Object, path string) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := o.Prop(k).(*jsvalue.Object)
		if !ok {
			return
		}
		o = next
	}
	o.Delete(keys[len(keys)-1])
}
