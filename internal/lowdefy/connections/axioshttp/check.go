package axioshttp

import (
	"errors"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// checkProps validates AxiosHttp connection or request properties the way Lowdefy's JSON
// schema for AxiosHttp does (the same schema for both), with its error messages: the
// first and the last problem, joined by "; " as @lowdefy/ajv does.
func checkProps(props any) error {
	if jsvalue.IsNullish(props) {
		return nil
	}
	o, ok := props.(*jsvalue.Object)
	if !ok {
		return errors.New("must be object")
	}
	var problems []string
	typeErr := func(key, want string) {
		problems = append(problems, `AxiosHttp property "`+key+`" should be `+want+`.`)
	}
	str := func(key string, enum ...string) {
		v, ok := o.Get(key)
		if !ok {
			return
		}
		s, isStr := v.(string)
		if !isStr {
			typeErr(key, "a string")
		}
		if len(enum) > 0 {
			found := false
			for _, e := range enum {
				found = found || (isStr && s == e)
			}
			if !found {
				problems = append(problems, `AxiosHttp property "`+key+`" is not a valid value.`)
			}
		}
	}
	num := func(key string) {
		if v, ok := o.Get(key); ok {
			if _, isNum := number(v); !isNum {
				typeErr(key, "a number")
			}
		}
	}
	obj := func(key string) *jsvalue.Object {
		v, ok := o.Get(key)
		if !ok {
			return nil
		}
		if x, isObj := asObject(v); isObj {
			return x
		}
		typeErr(key, "an object")
		return nil
	}
	str("url")
	str("method", "get", "delete", "head", "options", "post", "put", "patch")
	str("baseURL")
	obj("headers")
	obj("params")
	num("timeout")
	if auth := obj("auth"); auth != nil {
		for _, k := range []string{"username", "password"} {
			if v, ok := auth.Get(k); ok {
				if _, isStr := v.(string); !isStr {
					typeErr("auth."+k, "a string")
				}
			}
		}
	}
	str("responseType", "json", "document", "text")
	str("responseEncoding")
	num("maxContentLength")
	num("maxRedirects")
	obj("proxy")
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return errors.New(problems[0])
	default:
		return errors.New(problems[0] + "; " + problems[len(problems)-1])
	}
}

// asObject reports whether v is what JSON schema calls an object (not null, not an
// array).
func asObject(v any) (*jsvalue.Object, bool) {
	o, ok := v.(*jsvalue.Object)
	return o, ok && o != nil
}
