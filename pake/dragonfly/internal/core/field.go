// Package core holds what RFC 7664 Dragonfly and its IEEE 802.11 profile,
// SAE, share on P-256: constant-time arithmetic in the base field GF(p),
// which hunting-and-pecking and the simplified SWU map need; the encoding of
// group elements as x || y; and the commit exchange (RFC 7664 §3.3,
// IEEE 802.11-2020 §12.4.5): scalar = (private + mask) mod r,
// Element = inverse(mask·PE), validation of the peer's commit, the
// reflection check and the shared secret F(private·(peer-scalar·PE +
// peer-Element)).
//
// Field arithmetic is kexlab's constant-time P-256 field,
// internal/p256field (filippo.io/nistec keeps its field private; see that
// package for why it exists). Exponentiations are fixed addition chains, so
// the quadratic-residue test, the square root and the inversion take the
// same time for every input. Reductions of inputs of arbitrary length (the
// hunting-and-pecking seed, 802.11's val) use filippo.io/bigmod, constant
// time for a given input length.
package core

import (
	"encoding/hex"
	"errors"

	"filippo.io/bigmod"

	"github.com/kexlab/kexlab/internal/p256field"
)

// FieldSize is the length of an encoded field element (one coordinate).
const FieldSize = 32

// Public constants of P-256 (SEC 2 §2.4.2) and the fixed exponents of the
// field operations, big-endian. The tests recompute each one from p.
var (
	// p = 2^256 - 2^224 + 2^192 + 2^96 - 1.
	pBytes = mustHex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
	// b, the curve coefficient of y^2 = x^3 - 3x + b.
	bBytes = mustHex("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b")
	// pMinus1Bytes and nMinus1Bytes are p-1 and n-1 (n is the group order).
	pMinus1Bytes = mustHex("ffffffff00000001000000000000000000000000fffffffffffffffffffffffe")
	nMinus1Bytes = mustHex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550")
)

var (
	fieldP   = mustModulus(pBytes)
	pMinus1  = mustModulus(pMinus1Bytes)
	nMinus1  = mustModulus(nMinus1Bytes)
	coeffB   = mustElement(bBytes)
	minus3   = new(Element).Negate(mustElement([]byte{3}))
	oneElem  = mustElement([]byte{1})
	zeroElem = new(Element)
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func mustModulus(b []byte) *bigmod.Modulus {
	m, err := bigmod.NewModulus(b)
	if err != nil {
		panic(err)
	}
	return m
}

func mustElement(b []byte) *Element {
	e, err := new(Element).SetBytes(append(make([]byte, FieldSize-len(b)), b...))
	if err != nil {
		panic(err)
	}
	return e
}

// PBytes returns p as 32 big-endian bytes (802.11 hunting and pecking uses
// it as the KDF context).
func PBytes() []byte { return append([]byte(nil), pBytes...) }

// Element is an element of GF(p), the P-256 base field. The zero value is 0.
// Every method is constant time in the values of its operands.
type Element struct {
	f p256field.Element
}

// Set sets e = x and returns e.
func (e *Element) Set(x *Element) *Element {
	e.f.Set(&x.f)
	return e
}

var errNonCanonical = errors.New("core: field element not reduced modulo p")

// SetBytes sets e to the 32-byte big-endian value b, which must be less than
// p.
func (e *Element) SetBytes(b []byte) (*Element, error) {
	if _, err := e.f.SetBytes(b); err != nil {
		return nil, errNonCanonical
	}
	return e, nil
}

// setReduced sets e to r, a value already reduced below p (or below p-1).
func (e *Element) setReduced(r []byte) *Element {
	if _, err := e.f.SetBytes(r); err != nil {
		panic("core: unreachable: reduced value rejected")
	}
	return e
}

// SetWideBytes sets e to the big-endian value b (of any length) reduced
// modulo p. Its time depends only on len(b).
func (e *Element) SetWideBytes(b []byte) *Element {
	return e.setReduced(bigmod.NewNat().Mod(natFromBytes(b), fieldP).Bytes(fieldP))
}

// SetMinus1Plus1 sets e = (b mod (p-1)) + 1 for the big-endian value b of any
// length, a value in [1, p-1] (RFC 7664 §3.2.1's seed). Its time depends
// only on len(b).
func (e *Element) SetMinus1Plus1(b []byte) *Element {
	e.setReduced(bigmod.NewNat().Mod(natFromBytes(b), pMinus1).Bytes(pMinus1))
	return e.Add(e, oneElem)
}

// ScalarMinus1Plus1 returns (b mod (n-1)) + 1 as 32 big-endian bytes, a
// value in [1, n-1] for the group order n (IEEE 802.11-2020 §12.4.4.2.3's
// val). Its time depends only on len(b).
func ScalarMinus1Plus1(b []byte) []byte {
	r := bigmod.NewNat().Mod(natFromBytes(b), nMinus1)
	out := r.Bytes(nMinus1)
	// out < n-1, so adding one cannot carry out of 32 bytes.
	var carry uint16 = 1
	for i := len(out) - 1; i >= 0; i-- {
		s := uint16(out[i]) + carry
		out[i], carry = byte(s), s>>8
	}
	return out
}

// natFromBytes returns the big-endian value b as a Nat wide enough to hold
// it, for reduction with Nat.Mod. The modulus 2^(8·len(b)) only sizes the
// container: b is always below it.
func natFromBytes(b []byte) *bigmod.Nat {
	m := make([]byte, len(b)+1)
	m[0] = 1
	n, err := bigmod.NewNat().SetBytes(b, mustModulus(m))
	if err != nil {
		panic("core: unreachable: value overflows its container")
	}
	return n
}

// Bytes returns the 32-byte big-endian encoding of e.
func (e *Element) Bytes() []byte { return e.f.Bytes() }

// Add sets e = x + y and returns e.
func (e *Element) Add(x, y *Element) *Element {
	e.f.Add(&x.f, &y.f)
	return e
}

// Sub sets e = x - y and returns e.
func (e *Element) Sub(x, y *Element) *Element {
	e.f.Sub(&x.f, &y.f)
	return e
}

// Negate sets e = -x and returns e.
func (e *Element) Negate(x *Element) *Element {
	e.f.Negate(&x.f)
	return e
}

// Mul sets e = x·y and returns e.
func (e *Element) Mul(x, y *Element) *Element {
	e.f.Mul(&x.f, &y.f)
	return e
}

// Square sets e = x² and returns e.
func (e *Element) Square(x *Element) *Element {
	e.f.Square(&x.f)
	return e
}

// Invert sets e = 1/x, or 0 if x = 0, and returns e.
func (e *Element) Invert(x *Element) *Element {
	e.f.Invert(&x.f)
	return e
}

// Sqrt sets e = x^((p+1)/4) = x·x^((p-3)/4) and returns e: since p ≡ 3
// (mod 4), a square root of x when x is a square (the caller checks, or
// knows, that it is).
func (e *Element) Sqrt(x *Element) *Element {
	var t p256field.Element
	t.PowC1(&x.f)
	e.f.Mul(&t, &x.f)
	return e
}

// PowC1 sets e = x^((p-3)/4), the exponent of sqrt_ratio (RFC 9380
// Appendix F.2.1.2), and returns e.
func (e *Element) PowC1(x *Element) *Element {
	e.f.PowC1(&x.f)
	return e
}

// IsSquare returns 1 if x is a non-zero square modulo p (its Legendre symbol
// x^((p-1)/2) = x·(x^((p-3)/4))² is 1) and 0 otherwise (a non-square, or
// zero), with a fixed addition chain.
func IsSquare(x *Element) int {
	var t p256field.Element
	t.PowC1(&x.f)
	t.Square(&t)
	t.Mul(&t, &x.f)
	return t.Equal(&oneElem.f)
}

// Select sets e = a if cond == 1 and e = b if cond == 0, in constant time,
// and returns e. cond must be 0 or 1.
func (e *Element) Select(a, b *Element, cond int) *Element {
	e.f.Select(&a.f, &b.f, cond)
	return e
}

// Equal returns 1 if e == x and 0 otherwise.
func (e *Element) Equal(x *Element) int { return e.f.Equal(&x.f) }

// IsZero returns 1 if e == 0 and 0 otherwise.
func (e *Element) IsZero() int { return e.f.IsZero() }

// IsOdd returns the least significant bit of e: sgn0 (RFC 9380 §4.1), and
// 802.11's LSB.
func (e *Element) IsOdd() int { return e.f.IsOdd() }

// CurveRHS sets e = x³ - 3x + b, the right-hand side of the P-256 equation,
// and returns e.
func (e *Element) CurveRHS(x *Element) *Element {
	var t Element
	t.Square(x).Add(&t, minus3).Mul(&t, x) // (x² - 3)·x
	return e.Add(&t, coeffB)
}

// LessThanP returns 1 if the 32-byte big-endian value b is less than p, and 0
// otherwise, in constant time.
func LessThanP(b []byte) int {
	if len(b) != FieldSize {
		return 0
	}
	// b < p exactly when b - p borrows.
	var borrow int
	for i := FieldSize - 1; i >= 0; i-- {
		d := int(b[i]) - int(pBytes[i]) - borrow // in [-256, 255]
		borrow = (d >> 8) & 1                    // 1 if d < 0
	}
	return borrow
}
