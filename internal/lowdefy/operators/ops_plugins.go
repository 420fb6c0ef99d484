package operators

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/moment"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/nunjucks"
)

// _nunjucks

func opNunjucks(c *call) (any, error) {
	var tmpl string
	var on any
	if pm, ok := c.params.(*jsvalue.Object); ok {
		if s, ok := pm.Prop("template").(string); ok {
			tmpl = s
			if o, ok := pm.Prop("on").(*jsvalue.Object); ok {
				on = o
			} else {
				on = &jsvalue.Object{}
			}
		}
	}
	if s, ok := c.params.(string); ok {
		tmpl = s
		if c.st.p.server {
			on = orUndefined(c.ctx().Payload)
		} else {
			on = orUndefined(c.ctx().State)
		}
	}
	if tmpl == "" {
		return nil, nil
	}
	t, err := nunjucks.Compile("", tmpl)
	if err == nil {
		_, err = t.Render(map[string]any{})
	}
	var out string
	if err == nil {
		switch typeOf(on) {
		case "undefined", "null", "string", "number", "boolean", "date":
			out, err = t.Render(map[string]any{"value": jsonLike(on)})
		default:
			out, err = t.RenderValue(on)
		}
	}
	if err != nil {
		return nil, c.errorf("_nunjucks failed to parse nunjucks template.")
	}
	return out, nil
}

// jsonLike maps undefined to nil for libraries that only know JSON values.
func jsonLike(v any) any {
	if jsvalue.IsUndefined(v) {
		return nil
	}
	return v
}

// _moment

var momentMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"format":           named(arrObj, "on", "locale", "format"),
		"humanizeDuration": named(arrObj, "on", "locale", "withSuffix", "thresholds"),
	}
}}

var momentFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"format": func(c *call, args []any) (any, error) {
			on := arg(args, 0)
			var t time.Time
			if jsvalue.IsUndefined(on) {
				t = c.ctx().now()
			} else {
				var ok bool
				if t, ok = moment.FromValue(on); !ok {
					return "Invalid date", nil
				}
			}
			layout, _ := arg(args, 2).(string)
			return moment.Format(t.In(time.Local), layout), nil
		},
		"humanizeDuration": func(c *call, args []any) (any, error) {
			d, err := moment.DurationFromValue(jsonLike(arg(args, 0)))
			if err != nil {
				return nil, err
			}
			var th map[string]float64
			if m, ok := arg(args, 3).(*jsvalue.Object); ok {
				th = map[string]float64{}
				for k, v := range m.Range {
					if f, ok := v.(float64); ok {
						th[k] = f
					}
				}
			}
			return moment.Humanize(d, jsvalue.Truthy(arg(args, 2)), th), nil
		},
	}
}}

func opMoment(c *call) (any, error) { return runClass(c, momentMeta.Get(), momentFuncs.Get(), "") }

// _uuid

var uuidMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"v1": {noArgs: true},
		"v3": named(arrObj, "name", "namespace"),
		"v4": {noArgs: true},
		"v5": named(arrObj, "name", "namespace"),
	}
}}

func formatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func uuidV4() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func uuidV1(now time.Time) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	ts := uint64(now.UnixNano()/100) + 0x01B21DD213814000
	tl, tm, th := uint32(ts), uint16(ts>>32), uint16(ts>>48)&0x0fff|0x1000
	b[0], b[1], b[2], b[3] = byte(tl>>24), byte(tl>>16), byte(tl>>8), byte(tl)
	b[4], b[5] = byte(tm>>8), byte(tm)
	b[6], b[7] = byte(th>>8), byte(th)
	b[8] = b[8]&0x3f | 0x80
	b[10] |= 0x01
	return formatUUID(b)
}

func parseUUIDBytes(v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		h := strings.ReplaceAll(x, "-", "")
		if len(x) != 36 || len(h) != 32 {
			return nil, errors.New("Invalid UUID")
		}
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, errors.New("Invalid UUID")
		}
		return b, nil
	case []any:
		if len(x) == 16 {
			b := make([]byte, 16)
			for i, n := range x {
				f, ok := n.(float64)
				if !ok {
					return nil, errors.New("Namespace must be array-like (16 iterable integer values, 0-255)")
				}
				b[i] = byte(int(f))
			}
			return b, nil
		}
	}
	return nil, errors.New("Namespace must be array-like (16 iterable integer values, 0-255)")
}

func uuidHashed(version byte, newHash func() interface {
	Write([]byte) (int, error)
	Sum([]byte) []byte
}) classFunc {
	return func(c *call, args []any) (any, error) {
		var name []byte
		switch n := arg(args, 0).(type) {
		case string:
			name = []byte(n)
		case []any:
			for _, v := range n {
				name = append(name, byte(int(jsvalue.ToNumber(v))))
			}
		default:
			name = []byte(jsvalue.ToString(n))
		}
		ns, err := parseUUIDBytes(arg(args, 1))
		if err != nil {
			return nil, err
		}
		h := newHash()
		h.Write(ns)
		h.Write(name)
		sum := h.Sum(nil)[:16]
		sum[6] = sum[6]&0x0f | version<<4
		sum[8] = sum[8]&0x3f | 0x80
		return formatUUID(sum), nil
	}
}

var uuidFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"v1": func(c *call, _ []any) (any, error) { return uuidV1(c.ctx().now()), nil },
		"v3": uuidHashed(3, func() interface {
			Write([]byte) (int, error)
			Sum([]byte) []byte
		} {
			return md5.New()
		}),
		"v4": func(*call, []any) (any, error) { return uuidV4(), nil },
		"v5": uuidHashed(5, func() interface {
			Write([]byte) (int, error)
			Sum([]byte) []byte
		} {
			return sha1.New()
		}),
	}
}}

func opUUID(c *call) (any, error) {
	if c.method == "" && (jsvalue.IsNullish(c.params) || c.params == true) {
		return uuidV4(), nil
	}
	return runClass(c, uuidMeta.Get(), uuidFuncs.Get(), "")
}

// _diff

var diffMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{"deep": named([]string{"object", "array"}, "lhs", "rhs")}
}}

var diffFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"deep": func(c *call, args []any) (any, error) {
			changes := []any{}
			deepDiff(arg(args, 0), arg(args, 1), &changes, nil, nil, nil)
			return changes, nil
		},
	}
}}

func opDiff(c *call) (any, error) { return runClass(c, diffMeta.Get(), diffFuncs.Get(), "") }

// diffRecord starts a deep-diff record: kind, then path when there is one.
func diffRecord(kind string, path []any) *jsvalue.Object {
	d := jsvalue.ObjectOf("kind", kind)
	if len(path) > 0 {
		d.Set("path", path)
	}
	return d
}

func diffType(v any) string {
	if jsvalue.IsUndefined(v) {
		return "undefined"
	}
	return typeOf(v)
}

// deepDiff follows deep-diff 1.0.2's algorithm (kinds N, D, E, A; array
// tails from the end; object keys of lhs then new keys of rhs).
func deepDiff(lhs, rhs any, changes *[]any, path []any, key any, parent *[2]any) {
	cur := append([]any(nil), path...)
	if key != nil {
		cur = append(cur, key)
	}
	ldef, rdef := !jsvalue.IsUndefined(lhs), !jsvalue.IsUndefined(rhs)
	if parent != nil && key != nil {
		if m, ok := parent[0].(*jsvalue.Object); ok && !ldef {
			ldef = m.Has(jsvalue.ToString(key))
		}
		if m, ok := parent[1].(*jsvalue.Object); ok && !rdef {
			rdef = m.Has(jsvalue.ToString(key))
		}
	}
	switch {
	case !ldef && rdef:
		d := diffRecord("N", cur)
		d.Set("rhs", rhs)
		*changes = append(*changes, d)
	case !rdef && ldef:
		d := diffRecord("D", cur)
		d.Set("lhs", lhs)
		*changes = append(*changes, d)
	case diffType(lhs) != diffType(rhs):
		d := diffRecord("E", cur)
		d.Set("lhs", lhs)
		d.Set("rhs", rhs)
		*changes = append(*changes, d)
	case diffType(lhs) == "date":
		if !lhs.(time.Time).Equal(rhs.(time.Time)) {
			d := diffRecord("E", cur)
			d.Set("lhs", lhs)
			d.Set("rhs", rhs)
			*changes = append(*changes, d)
		}
	case diffType(lhs) == "array":
		la, ra := lhs.([]any), rhs.([]any)
		i, j := len(ra)-1, len(la)-1
		for i > j {
			d := diffRecord("A", cur)
			d.Set("index", float64(i))
			d.Set("item", jsvalue.ObjectOf("kind", "N", "rhs", ra[i]))
			*changes = append(*changes, d)
			i--
		}
		for j > i {
			d := diffRecord("A", cur)
			d.Set("index", float64(j))
			d.Set("item", jsvalue.ObjectOf("kind", "D", "lhs", la[j]))
			*changes = append(*changes, d)
			j--
		}
		for ; i >= 0; i-- {
			deepDiff(la[i], ra[i], changes, cur, float64(i), &[2]any{lhs, rhs})
		}
	case diffType(lhs) == "object":
		lm, rm := lhs.(*jsvalue.Object), rhs.(*jsvalue.Object)
		p := &[2]any{lhs, rhs}
		for k, lv := range lm.Range {
			deepDiff(lv, rm.Prop(k), changes, cur, k, p)
		}
		for k, rv := range rm.Range {
			if !lm.Has(k) {
				deepDiff(jsvalue.Undefined, rv, changes, cur, k, p)
			}
		}
	default:
		if !jsvalue.StrictEqual(lhs, rhs) {
			if f, ok := lhs.(float64); ok && f != f {
				if g, ok := rhs.(float64); ok && g != g {
					return
				}
			}
			d := diffRecord("E", cur)
			d.Set("lhs", lhs)
			d.Set("rhs", rhs)
			*changes = append(*changes, d)
		}
	}
}
