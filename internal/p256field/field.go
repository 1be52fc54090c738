// Package p256field implements constant-time arithmetic in GF(p), the base
// field of NIST P-256, p = 2^256 - 2^224 + 2^192 + 2^96 - 1 (SEC 2 §2.4.2).
//
// It exists because RFC 9380 hash-to-curve needs field operations (the
// simplified SWU map, sqrt_ratio, inversion) and neither dependency offers
// them at a useful speed: filippo.io/nistec keeps its field elements private,
// and filippo.io/bigmod's generic Montgomery arithmetic costs about 180 ns
// per multiplication and 40 µs per 256-bit exponentiation on the reference
// machine, so that hash_to_curve, with two exponentiations, would cost more
// than a variable-base scalar multiplication. Using the special form of p,
// a multiplication here costs about 25 ns and an exponentiation about 7 µs.
//
// An Element holds x·2^256 mod p (Montgomery form) as four little-endian
// 64-bit limbs, always fully reduced. No branch and no memory access depends
// on an element's value; the exponentiations use fixed addition chains.
package p256field

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Limbs of p, least significant first.
const (
	p0 = 0xffffffffffffffff
	p1 = 0x00000000ffffffff
	p2 = 0x0000000000000000
	p3 = 0xffffffff00000001
)

// rr is 2^512 mod p and rrr is 2^768 mod p: multiplying by them moves a
// plain value into Montgomery form (rr) or does so while also scaling it by
// 2^256 (rrr), which is how wide inputs are reduced.
var (
	rr  = Element{[4]uint64{0x0000000000000003, 0xfffffffbffffffff, 0xfffffffffffffffe, 0x00000004fffffffd}}
	rrr = Element{[4]uint64{0xfffffffd0000000a, 0xffffffedfffffff7, 0x00000005fffffffc, 0x0000001800000001}}
)

// Element is an element of GF(p). The zero value is 0.
type Element struct {
	l [4]uint64 // x·2^256 mod p, little-endian limbs, < p
}

// One sets e = 1 and returns e.
func (e *Element) One() *Element {
	// 2^256 mod p = 2^224 - 2^192 - 2^96 + 1.
	e.l = [4]uint64{1, 0xffffffff00000000, 0xffffffffffffffff, 0x00000000fffffffe}
	return e
}

// Set sets e = x and returns e.
func (e *Element) Set(x *Element) *Element {
	e.l = x.l
	return e
}

// errNonCanonical is returned by SetBytes for values that are not < p.
var errNonCanonical = errors.New("p256field: value not reduced modulo p")

// SetBytes sets e to the 32-byte big-endian value b, which must be less than
// p. It runs in constant time for inputs of the right length.
func (e *Element) SetBytes(b []byte) (*Element, error) {
	if len(b) != 32 {
		return nil, errors.New("p256field: invalid length")
	}
	var x [4]uint64
	loadBE(&x, b)
	if _, borrow := subP(&[4]uint64{x[0], x[1], x[2], x[3]}); borrow == 0 {
		return nil, errNonCanonical
	}
	mul(&e.l, &x, &rr.l)
	return e, nil
}

// SetWideBytes sets e to the big-endian value b reduced modulo p, for b of
// at most 64 bytes (hash_to_field, RFC 9380 §5.2, uses 48). It runs in time
// that depends only on len(b).
func (e *Element) SetWideBytes(b []byte) (*Element, error) {
	if len(b) > 64 {
		return nil, errors.New("p256field: input longer than 64 bytes")
	}
	var buf [64]byte
	copy(buf[64-len(b):], b)
	// b = hi·2^256 + lo, with hi, lo < 2^256. Montgomery multiplication
	// accepts one factor up to 2^256 when the other is below p, so
	// hi·rrr·2^-256 = hi·2^512 and lo·rr·2^-256 = lo·2^256, the Montgomery
	// forms of hi·2^256 and lo.
	var hi, lo, t [4]uint64
	loadBE(&hi, buf[:32])
	loadBE(&lo, buf[32:])
	mul(&t, &hi, &rrr.l)
	mul(&e.l, &lo, &rr.l)
	add(&e.l, &e.l, &t)
	return e, nil
}

// Bytes returns the canonical 32-byte big-endian encoding of e.
func (e *Element) Bytes() []byte {
	var out [32]byte
	return e.bytes(&out)
}

func (e *Element) bytes(out *[32]byte) []byte {
	var x [4]uint64
	montReduce(&x, e.l[0], e.l[1], e.l[2], e.l[3], 0, 0, 0, 0)
	for i := range 4 {
		binary.BigEndian.PutUint64(out[8*i:], x[3-i])
	}
	return out[:]
}

// loadBE sets x to the 32-byte big-endian value b.
func loadBE(x *[4]uint64, b []byte) {
	for i := range 4 {
		x[3-i] = binary.BigEndian.Uint64(b[8*i:])
	}
}

// Add sets e = x + y and returns e.
func (e *Element) Add(x, y *Element) *Element {
	add(&e.l, &x.l, &y.l)
	return e
}

// Sub sets e = x - y and returns e.
func (e *Element) Sub(x, y *Element) *Element {
	var c, d uint64
	var t [4]uint64
	t[0], d = bits.Sub64(x.l[0], y.l[0], 0)
	t[1], d = bits.Sub64(x.l[1], y.l[1], d)
	t[2], d = bits.Sub64(x.l[2], y.l[2], d)
	t[3], d = bits.Sub64(x.l[3], y.l[3], d)
	// On borrow, add p back.
	m := -d
	e.l[0], c = bits.Add64(t[0], p0&m, 0)
	e.l[1], c = bits.Add64(t[1], p1&m, c)
	e.l[2], c = bits.Add64(t[2], p2&m, c)
	e.l[3], _ = bits.Add64(t[3], p3&m, c)
	return e
}

// Negate sets e = -x and returns e.
func (e *Element) Negate(x *Element) *Element {
	var zero Element
	return e.Sub(&zero, x)
}

// Mul sets e = x * y and returns e.
func (e *Element) Mul(x, y *Element) *Element {
	mul(&e.l, &x.l, &y.l)
	return e
}

// Square sets e = x * x and returns e.
func (e *Element) Square(x *Element) *Element {
	square(&e.l, &x.l)
	return e
}

// Select sets e = a if cond == 1 and e = b if cond == 0, in constant time.
// cond must be 0 or 1.
func (e *Element) Select(a, b *Element, cond int) *Element {
	m := -uint64(cond)
	for i := range e.l {
		e.l[i] = b.l[i] ^ (m & (a.l[i] ^ b.l[i]))
	}
	return e
}

// Equal returns 1 if e == x and 0 otherwise, in constant time.
func (e *Element) Equal(x *Element) int {
	var d uint64
	for i := range e.l {
		d |= e.l[i] ^ x.l[i]
	}
	return isZero64(d)
}

// IsZero returns 1 if e == 0 and 0 otherwise, in constant time.
func (e *Element) IsZero() int {
	return isZero64(e.l[0] | e.l[1] | e.l[2] | e.l[3])
}

// IsOdd returns the least significant bit of the canonical (non-Montgomery)
// value of e: sgn0 for m = 1 (RFC 9380 §4.1).
func (e *Element) IsOdd() int {
	var x [4]uint64
	montReduce(&x, e.l[0], e.l[1], e.l[2], e.l[3], 0, 0, 0, 0)
	return int(x[0] & 1)
}

func isZero64(d uint64) int {
	// d|-d has its top bit set exactly when d != 0.
	return int(1 ^ (d|-d)>>63)
}

// add sets z = x + y mod p, for x, y < p.
func add(z, x, y *[4]uint64) {
	var t [4]uint64
	var c uint64
	t[0], c = bits.Add64(x[0], y[0], 0)
	t[1], c = bits.Add64(x[1], y[1], c)
	t[2], c = bits.Add64(x[2], y[2], c)
	t[3], c = bits.Add64(x[3], y[3], c)
	reduceOnce(z, &t, c)
}

// reduceOnce sets z = t + carry·2^256 - p if that is not negative, and
// z = t otherwise, for a value below 2p.
func reduceOnce(z, t *[4]uint64, carry uint64) {
	r := *t
	_, b := subP(&r)
	_, b = bits.Sub64(carry, 0, b)
	m := -b // all ones when t < p: keep t
	for i := range z {
		z[i] = r[i] ^ (m & (t[i] ^ r[i]))
	}
}

// subP sets x = x - p (mod 2^256) and returns the borrow out, 1 if x < p.
func subP(x *[4]uint64) (*[4]uint64, uint64) {
	var b uint64
	x[0], b = bits.Sub64(x[0], p0, 0)
	x[1], b = bits.Sub64(x[1], p1, b)
	x[2], b = bits.Sub64(x[2], p2, b)
	x[3], b = bits.Sub64(x[3], p3, b)
	return x, b
}

// mul sets z = x·y·2^-256 mod p (Montgomery multiplication), for x < 2^256
// and y < p: the 512-bit product, then montReduce.
func mul(z, x, y *[4]uint64) {
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
	var r0, r1, r2, r3, r4, r5, r6, r7, h uint64

	// Schoolbook, one row per limb of y. Each step x_i·y_j + two words
	// fits in 128 bits, so the high words never overflow.
	y0 := y[0]
	h, r0 = bits.Mul64(x0, y0)
	h, r1 = madd(x1, y0, h, 0)
	h, r2 = madd(x2, y0, h, 0)
	r4, r3 = madd(x3, y0, h, 0)
	y1 := y[1]
	h, r1 = madd(x0, y1, r1, 0)
	h, r2 = madd(x1, y1, r2, h)
	h, r3 = madd(x2, y1, r3, h)
	r5, r4 = madd(x3, y1, r4, h)
	y2 := y[2]
	h, r2 = madd(x0, y2, r2, 0)
	h, r3 = madd(x1, y2, r3, h)
	h, r4 = madd(x2, y2, r4, h)
	r6, r5 = madd(x3, y2, r5, h)
	y3 := y[3]
	h, r3 = madd(x0, y3, r3, 0)
	h, r4 = madd(x1, y3, r4, h)
	h, r5 = madd(x2, y3, r5, h)
	r7, r6 = madd(x3, y3, r6, h)

	montReduce(z, r0, r1, r2, r3, r4, r5, r6, r7)
}

// square sets z = x·x·2^-256 mod p, for x < p. The six cross products are
// computed once and doubled, which saves six of mul's sixteen
// multiplications.
func square(z, x *[4]uint64) {
	a0, a1, a2, a3 := x[0], x[1], x[2], x[3]
	var r0, r1, r2, r3, r4, r5, r6, r7, h, l, c uint64

	h, r1 = bits.Mul64(a0, a1)
	h, r2 = madd(a0, a2, h, 0)
	r4, r3 = madd(a0, a3, h, 0)
	h, r3 = madd(a1, a2, r3, 0)
	r5, r4 = madd(a1, a3, r4, h)
	r6, r5 = madd(a2, a3, r5, 0)

	r7 = r6 >> 63
	r6 = r6<<1 | r5>>63
	r5 = r5<<1 | r4>>63
	r4 = r4<<1 | r3>>63
	r3 = r3<<1 | r2>>63
	r2 = r2<<1 | r1>>63
	r1 = r1 << 1

	h, r0 = bits.Mul64(a0, a0)
	r1, c = bits.Add64(r1, h, 0)
	h, l = bits.Mul64(a1, a1)
	r2, c = bits.Add64(r2, l, c)
	r3, c = bits.Add64(r3, h, c)
	h, l = bits.Mul64(a2, a2)
	r4, c = bits.Add64(r4, l, c)
	r5, c = bits.Add64(r5, h, c)
	h, l = bits.Mul64(a3, a3)
	r6, c = bits.Add64(r6, l, c)
	r7, _ = bits.Add64(r7, h, c)

	montReduce(z, r0, r1, r2, r3, r4, r5, r6, r7)
}

// montReduce sets z = r·2^-256 mod p for r = (r0 … r7) < 2^256·p.
//
// Each of the four rounds adds m·p with m the current low limb, which
// clears that limb. Since p ≡ -1 (mod 2^64), m needs no multiplication by
// -p^-1, and m·p = m·2^96 - m + m·p3·2^192, so the low limb cancels and
// only m·p3 is a real multiplication. A round's carry out lands on the limb
// where the next round adds the high word of m·p3, which is below
// 2^64 - 2^32, so it is folded into that word without overflow.
func montReduce(z *[4]uint64, r0, r1, r2, r3, r4, r5, r6, r7 uint64) {
	var h, l, c, k uint64

	r1, c = bits.Add64(r1, r0<<32, 0)
	r2, c = bits.Add64(r2, r0>>32, c)
	h, l = bits.Mul64(r0, p3)
	r3, c = bits.Add64(r3, l, c)
	r4, k = bits.Add64(r4, h, c)

	r2, c = bits.Add64(r2, r1<<32, 0)
	r3, c = bits.Add64(r3, r1>>32, c)
	h, l = bits.Mul64(r1, p3)
	r4, c = bits.Add64(r4, l, c)
	r5, k = bits.Add64(r5, h+k, c)

	r3, c = bits.Add64(r3, r2<<32, 0)
	r4, c = bits.Add64(r4, r2>>32, c)
	h, l = bits.Mul64(r2, p3)
	r5, c = bits.Add64(r5, l, c)
	r6, k = bits.Add64(r6, h+k, c)

	r4, c = bits.Add64(r4, r3<<32, 0)
	r5, c = bits.Add64(r5, r3>>32, c)
	h, l = bits.Mul64(r3, p3)
	r6, c = bits.Add64(r6, l, c)
	r7, k = bits.Add64(r7, h+k, c)

	// The result (r4 … r7) + k·2^256 is below 2p: subtract p once if
	// that does not go negative. (Written out, not via reduceOnce, so
	// that the hot path makes no call.)
	var s0, s1, s2, s3, b uint64
	s0, b = bits.Sub64(r4, p0, 0)
	s1, b = bits.Sub64(r5, p1, b)
	s2, b = bits.Sub64(r6, p2, b)
	s3, b = bits.Sub64(r7, p3, b)
	_, b = bits.Sub64(k, 0, b)
	keep := -b // all ones when the subtraction borrowed
	z[0] = s0 ^ (keep & (r4 ^ s0))
	z[1] = s1 ^ (keep & (r5 ^ s1))
	z[2] = s2 ^ (keep & (r6 ^ s2))
	z[3] = s3 ^ (keep & (r7 ^ s3))
}

// madd returns a·b + c + d as a 128-bit value (it cannot overflow).
func madd(a, b, c, d uint64) (hi, lo uint64) {
	var k uint64
	hi, lo = bits.Mul64(a, b)
	lo, k = bits.Add64(lo, c, 0)
	hi += k
	lo, k = bits.Add64(lo, d, 0)
	hi += k
	return hi, lo
}
