// Package brainpool implements the elliptic curve brainpoolP256r1 of RFC 5639
// §3.4, which the ICAO Doc 9303-11 PACE worked examples use (standardized
// domain parameters ID 13, §9.5.1). It provides what those examples and
// their tests need: points with their SEC 1 encodings, complete addition,
// constant-time scalar multiplication and random scalars.
//
// Neither the standard library nor filippo.io/nistec has the Brainpool
// curves, so the arithmetic is written here on filippo.io/bigmod, whose
// modular operations are constant time. Points are kept in homogeneous
// projective coordinates (X : Y : Z), x = X/Z, y = Y/Z, with the identity
// (0 : 1 : 0). Addition and doubling are the complete formulas for
// short-Weierstrass curves with general a of Renes, Costello and Batina,
// "Complete addition formulas for prime order elliptic curves", Eurocrypt
// 2016 (ePrint 2015/1060), Algorithm 1 (addition) and Algorithm 3
// (doubling): they are correct for every pair of inputs, the identity and
// equal points included, so no branch depends on the values.
// ScalarMult uses a fixed 4-bit window over all 256 bits of the scalar, with
// a table lookup that reads every entry. A scalar multiplication costs a
// few milliseconds (1.3 to 3.5 ms on the shared development machine;
// bigmod's generic arithmetic, about 17 modular multiplications per point
// addition at roughly 0.5 µs each): fine for known-answer tests and
// interoperability, not for benchmarks of a protocol.
//
// SetBytes accepts exactly the SEC 1 v2 §2.3.4 compressed (0x02, 0x03) and
// uncompressed (0x04) encodings of a point on the curve other than the
// identity, with coordinates below p; everything else is refused with
// group.ErrInvalidEncoding, and the identity's encoding 0x00 with
// group.ErrIdentity. The curve has prime order (cofactor 1), so every point
// on it that is not the identity generates the group.
package brainpool

import (
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"

	"filippo.io/bigmod"

	"github.com/kexlab/kexlab/internal/group"
)

// Sizes of brainpoolP256r1 encodings.
const (
	ScalarSize            = 32
	FieldSize             = 32 // one coordinate
	CompressedPointSize   = 1 + FieldSize
	UncompressedPointSize = 1 + 2*FieldSize
)

// The domain parameters of brainpoolP256r1, RFC 5639 §3.4.
const (
	hexP  = "A9FB57DBA1EEA9BC3E660A909D838D726E3BF623D52620282013481D1F6E5377"
	hexA  = "7D5A0975FC2C3057EEF67530417AFFE7FB8055C126DC5C6CE94A4B44F330B5D9"
	hexB  = "26DC5C6CE94A4B44F330B5D9BBD77CBF958416295CF7E1CE6BCCDC18FF8C07B6"
	hexGx = "8BD2AEB9CB7E57CB2C4B482FFC81B7AFB9DE27E1E3BD23C23A4453BD9ACE3262"
	hexGy = "547EF835C3DAC4FD97F8461A14611DC9C27745132DED8E545C1D54C72F046997"
	hexN  = "A9FB57DBA1EEA9BC3E660A909D838D718C397AA3B561A6F7901E0E82974856A7"
)

// CurveParams are the domain parameters as 32-byte big-endian integers:
// the prime p, the coefficients a and b of y² = x³ + ax + b, the base point
// (Gx, Gy) and its prime order N. The cofactor is 1.
type CurveParams struct {
	P, A, B, Gx, Gy, N []byte
}

// Params returns a copy of the domain parameters.
func Params() CurveParams {
	return CurveParams{P: mustHex(hexP), A: mustHex(hexA), B: mustHex(hexB),
		Gx: mustHex(hexGx), Gy: mustHex(hexGy), N: mustHex(hexN)}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func mustModulus(s string) *bigmod.Modulus {
	m, err := bigmod.NewModulus(mustHex(s))
	if err != nil {
		panic(err)
	}
	return m
}

var (
	fieldP = mustModulus(hexP)
	orderN = mustModulus(hexN)

	curveA  = mustFe(hexA)
	curveB  = mustFe(hexB)
	curveB3 = newFe().Add(curveB, fieldP).Add(curveB, fieldP).Add(curveB, fieldP)
	// expInv is p-2 (inversion by Fermat); expSqrt is (p+1)/4, a square
	// root exponent since p ≡ 3 (mod 4).
	expInv, expSqrt = exponents()
	// r256 is 2^256 mod n = 2^256 - n, for reducing wide scalars.
	r256 = mustScalar(sub256(make([]byte, ScalarSize), mustHex(hexN)))
)

// exponents returns p-2 and (p+1)/4 as big-endian bytes, from p by byte
// arithmetic on public constants.
func exponents() (inv, sqrt []byte) {
	p := mustHex(hexP)
	two := make([]byte, len(p))
	two[len(two)-1] = 2
	inv = sub256(p, two)
	// (p+1)/4 = (p >> 2) + 1, since p ≡ 3 (mod 4).
	sqrt = make([]byte, len(p))
	var carry byte
	for i := range p {
		sqrt[i] = p[i]>>2 | carry
		carry = p[i] << 6
	}
	for i := len(sqrt) - 1; i >= 0; i-- {
		sqrt[i]++
		if sqrt[i] != 0 {
			break
		}
	}
	return inv, sqrt
}

// sub256 returns x - y mod 2^256 for 32-byte big-endian x and y.
func sub256(x, y []byte) []byte {
	out := make([]byte, len(x))
	var borrow int
	for i := len(x) - 1; i >= 0; i-- {
		v := int(x[i]) - int(y[i]) - borrow
		borrow = 0
		if v < 0 {
			v += 256
			borrow = 1
		}
		out[i] = byte(v)
	}
	return out
}

// newFe returns the field element 0.
func newFe() *bigmod.Nat { return bigmod.NewNat().ExpandFor(fieldP) }

func mustFe(s string) *bigmod.Nat {
	x, err := newFe().SetBytes(mustHex(s), fieldP)
	if err != nil {
		panic(err)
	}
	return x
}

func mustScalar(b []byte) *bigmod.Nat {
	x, err := bigmod.NewNat().SetBytes(b, orderN)
	if err != nil {
		panic(err)
	}
	return x
}

// RandomScalar returns a uniformly random scalar in [1, n-1] as 32
// big-endian bytes: 48 bytes read from rand, reduced modulo n (bias below
// 2^-128), and read again in the (2^-256) event of zero. Reduction is
// constant time.
//
// As with group.RandomScalar, a test replays a fixed scalar x < n by
// supplying 16 zero bytes followed by the 32-byte x.
func RandomScalar(rand io.Reader) ([]byte, error) {
	var buf [ScalarSize + 16]byte
	for {
		if _, err := io.ReadFull(rand, buf[:]); err != nil {
			return nil, fmt.Errorf("brainpool: reading randomness: %w", err)
		}
		// Horner over two 256-bit chunks (the first zero-padded):
		// k = hi * 2^256 + lo mod n. SetOverflowingBytes reduces a 256-bit
		// chunk by at most one subtraction, enough since 2^256 < 2n.
		var hi [ScalarSize]byte
		copy(hi[ScalarSize-16:], buf[:16])
		k, err1 := bigmod.NewNat().SetOverflowingBytes(hi[:], orderN)
		lo, err2 := bigmod.NewNat().SetOverflowingBytes(buf[16:], orderN)
		if err1 != nil || err2 != nil {
			panic("brainpool: unreachable: 256-bit chunk rejected")
		}
		k.Mul(r256, orderN).Add(lo, orderN)
		if k.IsZero() == 0 {
			return k.Bytes(orderN), nil
		}
	}
}

// Point is a point on brainpoolP256r1. The zero value is not usable;
// create points with NewPoint, NewGenerator or SetBytes.
type Point struct {
	x, y, z *bigmod.Nat
}

// NewPoint returns the identity.
func NewPoint() *Point {
	one := newFe()
	one.Bits()[0] = 1
	return &Point{x: newFe(), y: one, z: newFe()}
}

// NewGenerator returns the base point G.
func NewGenerator() *Point {
	p := NewPoint()
	fset(p.x, mustFe(hexGx))
	fset(p.y, mustFe(hexGy))
	p.z.Bits()[0] = 1
	return p
}

// Set sets p = q and returns p.
func (p *Point) Set(q *Point) *Point {
	p.ensure()
	fset(p.x, q.x)
	fset(p.y, q.y)
	fset(p.z, q.z)
	return p
}

// ensure allocates p's coordinates if p is a zero Point used as a receiver.
func (p *Point) ensure() {
	if p.x == nil {
		*p = *NewPoint()
	}
}

// SetBytes decodes a SEC 1 compressed or uncompressed point; see the
// package documentation for what it refuses. On error p is unchanged.
func (p *Point) SetBytes(b []byte) (*Point, error) {
	switch {
	case len(b) == 1 && b[0] == 0:
		return nil, group.ErrIdentity
	case len(b) == UncompressedPointSize && b[0] == 4:
		x, err1 := newFe().SetBytes(b[1:1+FieldSize], fieldP)
		y, err2 := newFe().SetBytes(b[1+FieldSize:], fieldP)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%w: coordinate not below p", group.ErrInvalidEncoding)
		}
		if mul(newFe(), y, y).Equal(rhs(x)) != 1 {
			return nil, fmt.Errorf("%w: point not on brainpoolP256r1", group.ErrInvalidEncoding)
		}
		return p.setAffine(x, y), nil
	case len(b) == CompressedPointSize && (b[0] == 2 || b[0] == 3):
		x, err := newFe().SetBytes(b[1:], fieldP)
		if err != nil {
			return nil, fmt.Errorf("%w: x not below p", group.ErrInvalidEncoding)
		}
		r := rhs(x)
		y := newFe().Exp(r, expSqrt, fieldP)
		if mul(newFe(), y, y).Equal(r) != 1 {
			return nil, fmt.Errorf("%w: x is not on brainpoolP256r1", group.ErrInvalidEncoding)
		}
		// Pick the root whose parity is the prefix's low bit. y = 0 cannot
		// occur: the curve has no point of order 2.
		fselect(y, newFe().Sub(y, fieldP), y.IsOdd()^uint(b[0]&1))
		return p.setAffine(x, y), nil
	}
	return nil, fmt.Errorf("%w: %d bytes, prefix %#x", group.ErrInvalidEncoding, len(b), firstByte(b))
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// rhs returns x³ + ax + b.
func rhs(x *bigmod.Nat) *bigmod.Nat {
	r := mul(newFe(), x, x)
	r.Add(curveA, fieldP).Mul(x, fieldP)
	return r.Add(curveB, fieldP)
}

func (p *Point) setAffine(x, y *bigmod.Nat) *Point {
	p.ensure()
	fset(p.x, x)
	fset(p.y, y)
	clear(p.z.Bits())
	p.z.Bits()[0] = 1
	return p
}

// affine returns the affine coordinates of p, or ok = 0 for the identity.
func (p *Point) affine() (x, y *bigmod.Nat, ok int) {
	zinv := newFe().Exp(p.z, expInv, fieldP) // 0 for the identity
	return mul(newFe(), p.x, zinv), mul(newFe(), p.y, zinv), int(1 ^ p.z.IsZero())
}

// Bytes returns the uncompressed SEC 1 encoding (65 bytes), or the single
// byte 0x00 for the identity.
func (p *Point) Bytes() []byte {
	x, y, ok := p.affine()
	if ok == 0 {
		return []byte{0}
	}
	out := make([]byte, 0, UncompressedPointSize)
	out = append(out, 4)
	out = append(out, x.Bytes(fieldP)...)
	return append(out, y.Bytes(fieldP)...)
}

// BytesCompressed returns the compressed SEC 1 encoding (33 bytes), or the
// single byte 0x00 for the identity.
func (p *Point) BytesCompressed() []byte {
	x, y, ok := p.affine()
	if ok == 0 {
		return []byte{0}
	}
	return append([]byte{2 | byte(y.IsOdd())}, x.Bytes(fieldP)...)
}

// BytesX returns the 32-byte affine x coordinate (the ECDH shared secret of
// SEC 1 §3.3.1), or an error wrapping group.ErrIdentity for the identity.
func (p *Point) BytesX() ([]byte, error) {
	x, _, ok := p.affine()
	if ok == 0 {
		return nil, group.ErrIdentity
	}
	return x.Bytes(fieldP), nil
}

// IsIdentity returns 1 if p is the identity and 0 otherwise.
func (p *Point) IsIdentity() int { return int(p.z.IsZero()) }

// Equal returns 1 if p and q are the same point and 0 otherwise, in
// constant time: X1·Z2 = X2·Z1 and Y1·Z2 = Y2·Z1.
func (p *Point) Equal(q *Point) int {
	ex := mul(newFe(), p.x, q.z).Equal(mul(newFe(), q.x, p.z))
	ey := mul(newFe(), p.y, q.z).Equal(mul(newFe(), q.y, p.z))
	return int(ex & ey)
}

// Negate sets p = -a and returns p.
func (p *Point) Negate(a *Point) *Point {
	p.Set(a)
	p.y = newFe().Sub(a.y, fieldP)
	return p
}

// fset sets out = x; both are field elements (expanded for p).
func fset(out, x *bigmod.Nat) { copy(out.Bits(), x.Bits()) }

// fselect sets out = x if cond == 1 and leaves it if cond == 0, in
// constant time. It works on the limbs, which Nat.Bits exposes.
func fselect(out, x *bigmod.Nat, cond uint) {
	mask := -cond
	o, v := out.Bits(), x.Bits()
	for i := range o {
		o[i] ^= mask & (o[i] ^ v[i])
	}
}

// mul sets out = x·y mod p and returns out; out may alias x or y.
func mul(out, x, y *bigmod.Nat) *bigmod.Nat {
	if out == y {
		return out.Mul(x, fieldP)
	}
	fset(out, x)
	return out.Mul(y, fieldP)
}

// add sets out = x + y mod p; out may alias x or y.
func add(out, x, y *bigmod.Nat) *bigmod.Nat {
	if out == y {
		return out.Add(x, fieldP)
	}
	fset(out, x)
	return out.Add(y, fieldP)
}

// sub sets out = x - y mod p; out may alias x but not y unless x is y too.
func sub(out, x, y *bigmod.Nat) *bigmod.Nat {
	if out == y && out != x {
		t := newFe()
		fset(t, x)
		t.Sub(y, fieldP)
		fset(out, t)
		return out
	}
	fset(out, x)
	return out.Sub(y, fieldP)
}

// ctEq returns 1 if a == b and 0 otherwise, for small non-negative ints.
func ctEq(a, b int) uint { return uint(subtle.ConstantTimeEq(int32(a), int32(b))) }
