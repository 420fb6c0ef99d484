package operators

import "math"

// Ports of the fdlibm routines V8 uses for Math.atan, Math.acos, Math.cbrt and
// Math.tan (src/base/ieee754.cc), so results match V8 to the last bit where
// Go's math package (Cephes-derived) differs. Constants are fdlibm's.

func hiWord(x float64) int32  { return int32(math.Float64bits(x) >> 32) }
func loWord(x float64) uint32 { return uint32(math.Float64bits(x)) }
func withLowZero(x float64) float64 {
	return math.Float64frombits(math.Float64bits(x) &^ 0xffffffff)
}

var (
	atanHi = [4]float64{4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01, 1.57079632679489655800e+00}
	atanLo = [4]float64{2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17, 6.12323399573676603587e-17}
	atanT  = [11]float64{3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
		-1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02, 6.66107313738753120669e-02,
		-5.83357013379057348645e-02, 4.97687799461593236017e-02, -3.65315727442169155270e-02, 1.62858201153657823623e-02}
)

func fdAtan(x float64) float64 {
	hx := hiWord(x)
	ix := hx & 0x7fffffff
	if ix >= 0x44100000 {
		if math.IsNaN(x) {
			return x + x
		}
		if hx > 0 {
			return atanHi[3] + atanLo[3]
		}
		return -atanHi[3] - atanLo[3]
	}
	id := -1
	if ix < 0x3fdc0000 {
		if ix < 0x3e400000 {
			return x
		}
	} else {
		x = math.Abs(x)
		if ix < 0x3ff30000 {
			if ix < 0x3fe60000 {
				id = 0
				x = (2.0*x - 1.0) / (2.0 + x)
			} else {
				id = 1
				x = (x - 1.0) / (x + 1.0)
			}
		} else {
			if ix < 0x40038000 {
				id = 2
				x = (x - 1.5) / (1.0 + 1.5*x)
			} else {
				id = 3
				x = -1.0 / x
			}
		}
	}
	z := x * x
	w := z * z
	s1 := z * (atanT[0] + w*(atanT[2]+w*(atanT[4]+w*(atanT[6]+w*(atanT[8]+w*atanT[10])))))
	s2 := w * (atanT[1] + w*(atanT[3]+w*(atanT[5]+w*(atanT[7]+w*atanT[9]))))
	if id < 0 {
		return x - x*(s1+s2)
	}
	z = atanHi[id] - ((x*(s1+s2) - atanLo[id]) - x)
	if hx < 0 {
		return -z
	}
	return z
}

const (
	fdPi    = 3.14159265358979311600e+00
	pio2Hi  = 1.57079632679489655800e+00
	pio2Lo  = 6.12323399573676603587e-17
	acosPS0 = 1.66666666666666657415e-01
	acosPS1 = -3.25565818622400915405e-01
	acosPS2 = 2.01212532134862925881e-01
	acosPS3 = -4.00555345006794114027e-02
	acosPS4 = 7.91534994289814532176e-04
	acosPS5 = 3.47933107596021167570e-05
	acosQS1 = -2.40339491173441421878e+00
	acosQS2 = 2.02094576023350569471e+00
	acosQS3 = -6.88283971605453293030e-01
	acosQS4 = 7.70381505559019352791e-02
)

func acosPQ(z float64) float64 {
	p := z * (acosPS0 + z*(acosPS1+z*(acosPS2+z*(acosPS3+z*(acosPS4+z*acosPS5)))))
	q := 1.0 + z*(acosQS1+z*(acosQS2+z*(acosQS3+z*acosQS4)))
	return p / q
}

func fdAcos(x float64) float64 {
	hx := hiWord(x)
	ix := hx & 0x7fffffff
	if ix >= 0x3ff00000 {
		if (ix-0x3ff00000)|int32(loWord(x)) == 0 {
			if hx > 0 {
				return 0.0
			}
			return fdPi + 2.0*pio2Lo
		}
		return math.NaN()
	}
	if ix < 0x3fe00000 {
		if ix <= 0x3c600000 {
			return pio2Hi + pio2Lo
		}
		z := x * x
		r := acosPQ(z)
		return pio2Hi - (x - (pio2Lo - x*r))
	}
	if hx < 0 {
		z := (1.0 + x) * 0.5
		s := math.Sqrt(z)
		r := acosPQ(z)
		w := r*s - pio2Lo
		return fdPi - 2.0*(s+w)
	}
	z := (1.0 - x) * 0.5
	s := math.Sqrt(z)
	df := withLowZero(s)
	c := (z - df*df) / (s + df)
	r := acosPQ(z)
	w := r*s + c
	return 2.0 * (df + w)
}

func fdCbrt(x float64) float64 {
	const (
		b1 = 715094163
		b2 = 696219795
		p0 = 1.87595182427177009643
		p1 = -1.88497979543377169875
		p2 = 1.621429720105354466140
		p3 = -0.758397934778766047437
		p4 = 0.145996192886612446982
	)
	hi := uint32(math.Float64bits(x) >> 32)
	sign := hi & 0x80000000
	hx := hi & 0x7fffffff
	if hx >= 0x7ff00000 {
		return x + x
	}
	var t float64
	if hx < 0x00100000 {
		if hx|loWord(x) == 0 {
			return x
		}
		t = x * math.Float64frombits(0x4350000000000000) // 2^54
		high := uint32(math.Float64bits(t)>>32) & 0x7fffffff
		t = math.Float64frombits(uint64(sign|(high/3+b2)) << 32)
	} else {
		t = math.Float64frombits(uint64(sign|(hx/3+b1)) << 32)
	}
	r := (t * t) * (t / x)
	t = t * ((p0 + r*(p1+r*p2)) + ((r*r)*r)*(p3+r*p4))
	t = math.Float64frombits((math.Float64bits(t) + 0x80000000) & 0xffffffffc0000000)
	s := t * t
	r = x / s
	w := t + t
	r = (r - t) / (w + r)
	return t + t*r
}

var tanT = [13]float64{3.33333333333334091986e-01, 1.33333333333201242699e-01, 5.39682539762260521377e-02,
	2.18694882948595424599e-02, 8.86323982359930005737e-03, 3.59207910759131235356e-03, 1.45620945432529025516e-03,
	5.88041240820264096874e-04, 2.46463134818469906812e-04, 7.81794442939557092300e-05, 7.14072491382608190305e-05,
	-1.85586374855275456654e-05, 2.59073051863633712884e-05}

func kernelTan(x, y float64, iy int) float64 {
	const pio4, pio4lo = 7.85398163397448278999e-01, 3.06161699786838301793e-17
	hx := hiWord(x)
	ix := hx & 0x7fffffff
	if ix < 0x3e300000 {
		if int(x) == 0 {
			if (ix|int32(loWord(x)))|int32(iy+1) == 0 {
				return 1.0 / math.Abs(x)
			} else if iy == 1 {
				return x
			}
			w := x + y
			z := withLowZero(w)
			v := y - (z - x)
			a := -1.0 / w
			t := withLowZero(a)
			s := 1.0 + t*z
			return t + a*(s+t*v)
		}
	}
	if ix >= 0x3FE59428 {
		if hx < 0 {
			x, y = -x, -y
		}
		z := pio4 - x
		w := pio4lo - y
		x = z + w
		y = 0.0
	}
	z := x * x
	w := z * z
	r := tanT[1] + w*(tanT[3]+w*(tanT[5]+w*(tanT[7]+w*(tanT[9]+w*tanT[11]))))
	v := z * (tanT[2] + w*(tanT[4]+w*(tanT[6]+w*(tanT[8]+w*(tanT[10]+w*tanT[12])))))
	s := z * x
	r = y + z*(s*(r+v)+y)
	r += tanT[0] * s
	w = x + r
	if ix >= 0x3FE59428 {
		v = float64(iy)
		return float64(1-((hx>>30)&2)) * (v - 2.0*(x-(w*w/(w+v)-r)))
	}
	if iy == 1 {
		return w
	}
	z = withLowZero(w)
	v = r - (z - x)
	a := -1.0 / w
	t := withLowZero(a)
	s = 1.0 + t*z
	return t + a*(s+t*v)
}

// remPio2 is fdlibm's __ieee754_rem_pio2 for |x| <= 2^19·π/2; ok is false
// for larger arguments.
func remPio2(x float64) (n int, y0, y1 float64, ok bool) {
	const (
		invpio2 = 6.36619772367581382433e-01
		pio21   = 1.57079632673412561417e+00
		pio21t  = 6.07710050650619224932e-11
		pio22   = 6.07710050630396597660e-11
		pio22t  = 2.02226624879595063154e-21
		pio23   = 2.02226624871116645580e-21
		pio23t  = 8.47842766036889956997e-32
	)
	hx := hiWord(x)
	ix := hx & 0x7fffffff
	if ix <= 0x3fe921fb {
		return 0, x, 0, true
	}
	if ix < 0x4002d97c {
		if hx > 0 {
			z := x - pio21
			if ix != 0x3ff921fb {
				y0 = z - pio21t
				y1 = (z - y0) - pio21t
			} else {
				z -= pio22
				y0 = z - pio22t
				y1 = (z - y0) - pio22t
			}
			return 1, y0, y1, true
		}
		z := x + pio21
		if ix != 0x3ff921fb {
			y0 = z + pio21t
			y1 = (z - y0) + pio21t
		} else {
			z += pio22
			y0 = z + pio22t
			y1 = (z - y0) + pio22t
		}
		return -1, y0, y1, true
	}
	if ix > 0x413921fb {
		return 0, 0, 0, false
	}
	t := math.Abs(x)
	n = int(t*invpio2 + 0.5)
	fn := float64(n)
	r := t - fn*pio21
	w := fn * pio21t
	j := ix >> 20
	y0 = r - w
	i := j - ((hiWord(y0) >> 20) & 0x7ff)
	if i > 16 {
		t = r
		w = fn * pio22
		r = t - w
		w = fn*pio22t - ((t - r) - w)
		y0 = r - w
		i = j - ((hiWord(y0) >> 20) & 0x7ff)
		if i > 49 {
			t = r
			w = fn * pio23
			r = t - w
			w = fn*pio23t - ((t - r) - w)
			y0 = r - w
		}
	}
	y1 = (r - y0) - w
	if hx < 0 {
		return -n, -y0, -y1, true
	}
	return n, y0, y1, true
}

func fdTan(x float64) float64 {
	ix := hiWord(x) & 0x7fffffff
	if ix <= 0x3fe921fb {
		return kernelTan(x, 0, 1)
	}
	if ix >= 0x7ff00000 {
		return math.NaN()
	}
	n, y0, y1, ok := remPio2(x)
	if !ok {
		return math.Tan(x)
	}
	return kernelTan(y0, y1, 1-((n&1)<<1))
}
