package axioshttp

import (
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// mergeConfig returns lodash's merge(connection, request) — what Lowdefy's mergeObjects
// gives AxiosHttp — without changing either argument: request's keys deep-merged into a
// deep copy of connection. Objects merge key by key (new keys go last), arrays merge
// index by index (a shorter array replaces only the first items), an undefined value
// never replaces a present one, and null, numbers, strings, booleans and dates replace.
func mergeConfig(connection *jsvalue.Object, request any) *jsvalue.Object {
	out, _ := jsvalue.DeepCopy(connection).(*jsvalue.Object)
	if out == nil {
		out = jsvalue.NewObject(0)
	}
	if req, ok := request.(*jsvalue.Object); ok {
		mergeObject(out, req)
	}
	return out
}

// mergeObject merges src into dst in place (lodash baseMerge for plain objects).
func mergeObject(dst, src *jsvalue.Object) {
	for k, sv := range src.Range {
		if k == "__proto__" {
			continue
		}
		dv, had := dst.Get(k)
		nv, assign := mergeValue(dv, had, sv)
		if assign {
			dst.Set(k, nv)
		}
	}
}

// mergeArray merges src into dst index by index and returns the result (lodash
// baseMerge for arrays).
func mergeArray(dst, src []any) []any {
	for i, sv := range src {
		var dv any = jsvalue.Undefined
		had := i < len(dst)
		if had {
			dv = dst[i]
		}
		nv, assign := mergeValue(dv, had, sv)
		if !assign {
			continue
		}
		for len(dst) <= i {
			dst = append(dst, jsvalue.Undefined)
		}
		dst[i] = nv
	}
	return dst
}

// mergeValue is lodash's baseMergeDeep/assignMergeValue for one key: it returns the value
// to store and whether to store it.
func mergeValue(dv any, had bool, sv any) (any, bool) {
	switch s := sv.(type) {
	case *jsvalue.Object:
		d, ok := dv.(*jsvalue.Object)
		if !ok {
			d = jsvalue.NewObject(s.Len())
		}
		mergeObject(d, s)
		return d, true
	case []any:
		d, ok := dv.([]any)
		if !ok {
			d = nil
		}
		return mergeArray(d, s), true
	case jsvalue.UndefinedType:
		// An undefined source value only creates a missing key.
		return sv, !had
	default:
		return sv, true
	}
}
