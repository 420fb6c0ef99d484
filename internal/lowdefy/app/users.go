package app

import "strings"

// maxUserFieldDepth bounds the dotted segments of a userFields field name: _user is built
// for every call, and a field nested deeper than a JSON value can be has no JSON form.
const maxUserFieldDepth = 100

// checkUserFields checks auth.userFields: each entry maps a field of _user to a dotted
// path in the sign-in's {account, profile, user}, as Lowdefy's auth callbacks read it. A
// path that is not a string is a problem; one outside account, profile and user reads
// nothing, always, and is a warning.
func (b *builder) checkUserFields() {
	auth := asMap(get(b.c, "auth"))
	fields := asMap(get(auth, "userFields"))
	for k, v := range fields.Range {
		path := "auth.userFields." + k
		if n := strings.Count(k, ".") + 1; n > maxUserFieldDepth {
			b.fail(fields, "auth.userFields", "the field %.40q… is %d levels deep; a _user field has at most %d (such as profile.roles or app.roles)", k, n, maxUserFieldDepth)
			continue
		}
		s, ok := v.(string)
		if !ok {
			b.fail(fields, path, "must be a path string such as profile.email or user.roles (the field of _user it names is set from there)")
			continue
		}
		head, _, _ := strings.Cut(s, ".")
		switch head {
		case "account", "profile", "user":
		default:
			b.warn(fields, path, "%q reads nothing: userFields paths start with account, profile or user (such as profile.%s)", s, s)
		}
	}
}
