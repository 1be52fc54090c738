package p256scalar

import "math/bits"

// Constant-time modular inversion by Bernstein–Yang divsteps, following
// libsecp256k1's secp256k1_modinv64 (src/modinv64_impl.h, and its
// doc/safegcd_implementation.md for the derivation): numbers are held as
// five signed 62-bit limbs, value = Σ v[i]·2^(62i), with limbs 0–3 in
// [0, 2^62) after each update and limb 4 carrying the sign.
//
// The state is f, g (starting at n and x) and d, e with f ≡ d·x and
// g ≡ e·x (mod n), starting at 0 and 1. Each batch runs 59 divsteps on the
// low bits of f and g alone, collecting them in a 2×2 matrix scaled by 2^62,
// then applies the matrix to the full f, g (an exact division by 2^62) and
// to d, e (made divisible by 2^62 by adding multiples of n). After 590
// divsteps g = 0 and f = ±gcd(n, x) = ±1 for x ≠ 0, so ±d is x^-1; for x = 0,
// f = n and d = 0, giving 0.
//
// This is a Go rendering of that design (the representation, the batch of
// 59 divsteps and the 590 bound are libsecp256k1's; libsecp256k1 is
// MIT-licensed, Copyright (c) 2013 Pieter Wuille), specialised to the
// P-256 order.

type signed62 [5]int64

const m62 = 1<<62 - 1

// nS62 is n in signed62 form, and nInv62 is n^-1 mod 2^62.
var nS62 = signed62{0x33b9cac2fc632551, 0x339beab69c5e7a13, 0x3ffffffffffffffb, 0x3fffffc00000003f, 0xff}

const nInv62 = 0x332e375511ff43b1

// Invert sets s = 1/x, or 0 if x is 0, and returns s, in constant time.
func (s *Scalar) Invert(x *Scalar) *Scalar {
	// x holds a·R; its plain inverse is a^-1·R^-1, and a Montgomery
	// multiplication by R^3 turns that into a^-1·R.
	var t [4]uint64
	inverse(&t, &x.l)
	mul(&s.l, &t, &rrr)
	return s
}

// inverse sets z = a^-1 mod n (0 for a = 0), for a < n, as plain limbs.
func inverse(z, a *[4]uint64) {
	d := signed62{}
	e := signed62{1}
	f := nS62
	g := signed62{
		int64(a[0] & m62),
		int64((a[0]>>62 | a[1]<<2) & m62),
		int64((a[1]>>60 | a[2]<<4) & m62),
		int64((a[2]>>58 | a[3]<<6) & m62),
		int64(a[3] >> 56),
	}
	zeta := int64(-1) // zeta = -(delta + 1/2), delta starting at 1/2
	for range 10 {
		var t matrix
		zeta = divsteps59(zeta, uint64(f[0]), uint64(g[0]), &t)
		updateDE(&d, &e, &t)
		updateFG(&f, &g, &t)
	}
	normalize(&d, f[4])
	z[0] = uint64(d[0]) | uint64(d[1])<<62
	z[1] = uint64(d[1])>>2 | uint64(d[2])<<60
	z[2] = uint64(d[2])>>4 | uint64(d[3])<<58
	z[3] = uint64(d[3])>>6 | uint64(d[4])<<56
}

// matrix is the transition matrix of a batch of divsteps, [u v; q r],
// scaled by 2^62; its entries lie in [-2^62, 2^62].
type matrix struct{ u, v, q, r int64 }

// divsteps59 runs 59 divsteps on the low 64 bits f0 (odd) and g0 of f and g,
// which determine them, and returns the new zeta with the matrix in t.
// Every step runs the same instructions: the two conditions (delta > 0,
// i.e. zeta < 0, and g odd) are masks.
func divsteps59(zeta int64, f0, g0 uint64, t *matrix) int64 {
	u, v, q, r := uint64(8), uint64(0), uint64(0), uint64(8)
	f, g := f0, g0
	for range 59 {
		c1 := uint64(zeta >> 63) // all ones when zeta < 0
		c2 := -(g & 1)           // all ones when g is odd
		// Conditionally negated f, u, v.
		x := (f ^ c1) - c1
		y := (u ^ c1) - c1
		z := (v ^ c1) - c1
		// Conditionally add them to g, q, r.
		g += x & c2
		q += y & c2
		r += z & c2
		// Swap case: zeta < 0 and g odd. zeta becomes -zeta-2 then, and
		// zeta-1 otherwise; the new g, q, r are added to f, u, v (which
		// turns them into the old g, q, r).
		c1 &= c2
		zeta = (zeta ^ int64(c1)) - 1
		f += g & c1
		u += q & c1
		v += r & c1
		g >>= 1
		u <<= 1
		v <<= 1
	}
	t.u, t.v, t.q, t.r = int64(u), int64(v), int64(q), int64(r)
	return zeta
}

// i128 is a two's complement 128-bit accumulator.
type i128 struct{ hi, lo uint64 }

// mulAdd adds the signed product a·b to c.
func (c *i128) mulAdd(a, b int64) {
	h, l := bits.Mul64(uint64(a), uint64(b))
	// Signed correction of the unsigned product's high word.
	h -= uint64(a>>63)&uint64(b) + uint64(b>>63)&uint64(a)
	var k uint64
	c.lo, k = bits.Add64(c.lo, l, 0)
	c.hi += h + k
}

// shr62 shifts c right by 62 bits, arithmetically.
func (c *i128) shr62() {
	c.lo = c.lo>>62 | c.hi<<2
	c.hi = uint64(int64(c.hi) >> 62)
}

// updateDE sets (d, e) = t·(d, e)/2^62 mod n, keeping them in (-2n, n).
func updateDE(d, e *signed62, t *matrix) {
	u, v, q, r := t.u, t.v, t.q, t.r
	// md, me start as zero; plus u, q if d is negative; plus v, r if e is
	// negative (which moves the result back into range).
	sd := d[4] >> 63
	se := e[4] >> 63
	md := u&sd + v&se
	me := q&sd + r&se
	var cd, ce i128
	cd.mulAdd(u, d[0])
	cd.mulAdd(v, e[0])
	ce.mulAdd(q, d[0])
	ce.mulAdd(r, e[0])
	// Correct md, me so that t·(d, e) + n·(md, me) has 62 zero low bits.
	md -= int64((nInv62*cd.lo + uint64(md)) & m62)
	me -= int64((nInv62*ce.lo + uint64(me)) & m62)
	cd.mulAdd(nS62[0], md)
	ce.mulAdd(nS62[0], me)
	cd.shr62()
	ce.shr62()
	for i := 1; i < 5; i++ {
		cd.mulAdd(u, d[i])
		cd.mulAdd(v, e[i])
		cd.mulAdd(nS62[i], md)
		ce.mulAdd(q, d[i])
		ce.mulAdd(r, e[i])
		ce.mulAdd(nS62[i], me)
		d[i-1] = int64(cd.lo & m62)
		e[i-1] = int64(ce.lo & m62)
		cd.shr62()
		ce.shr62()
	}
	d[4] = int64(cd.lo)
	e[4] = int64(ce.lo)
}

// updateFG sets (f, g) = t·(f, g)/2^62, an exact division.
func updateFG(f, g *signed62, t *matrix) {
	u, v, q, r := t.u, t.v, t.q, t.r
	var cf, cg i128
	cf.mulAdd(u, f[0])
	cf.mulAdd(v, g[0])
	cg.mulAdd(q, f[0])
	cg.mulAdd(r, g[0])
	cf.shr62()
	cg.shr62()
	for i := 1; i < 5; i++ {
		cf.mulAdd(u, f[i])
		cf.mulAdd(v, g[i])
		cg.mulAdd(q, f[i])
		cg.mulAdd(r, g[i])
		f[i-1] = int64(cf.lo & m62)
		g[i-1] = int64(cg.lo & m62)
		cf.shr62()
		cg.shr62()
	}
	f[4] = int64(cf.lo)
	g[4] = int64(cg.lo)
}

// normalize brings r from (-2n, n) to [0, n), negating it first if sign is
// negative.
func normalize(r *signed62, sign int64) {
	// Add n if negative, then negate if requested: (-n, n).
	add := r[4] >> 63
	for i := range r {
		r[i] += nS62[i] & add
	}
	neg := sign >> 63
	for i := range r {
		r[i] = (r[i] ^ neg) - neg
	}
	carry62(r)
	// Add n again if still negative: [0, n).
	add = r[4] >> 63
	for i := range r {
		r[i] += nS62[i] & add
	}
	carry62(r)
}

// carry62 propagates carries so that limbs 0–3 lie in [0, 2^62).
func carry62(r *signed62) {
	for i := range 4 {
		r[i+1] += r[i] >> 62
		r[i] &= m62
	}
}
