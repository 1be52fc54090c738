// The Integrated Mapping's point encoding f_G (Part 11 Appendix B; BSI
// TR-03110 Part 3 §A.3) on filippo.io/bigmod.

package suite

import (
	"fmt"

	"filippo.io/bigmod"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// fieldSize is the byte length of p for both curves.
const fieldSize = 32

// field is GF(p) with the coefficients a and b of y² = x³ + ax + b. Both
// curves have p ≡ 3 (mod 4), 2^255 < p < 2^256 and cofactor 1.
type field struct {
	p      *bigmod.Modulus
	a, b   *bigmod.Nat
	expInv []byte      // p - 2: x^(p-2) = 1/x (and 0 for 0)
	expA   []byte      // p - 1 - (p+1)/4, the exponent of Appendix B's A
	r256   *bigmod.Nat // 2^256 mod p = 2^256 - p
}

func mustField(p, a, b string) *field { return newField(mustHex(p), mustHex(a), mustHex(b)) }

func newField(pb, a, b []byte) *field {
	m, err := bigmod.NewModulus(pb)
	if err != nil || len(pb) != fieldSize || pb[0]&0x80 == 0 || pb[fieldSize-1]&3 != 3 {
		panic("pace: bad field modulus")
	}
	f := &field{p: m, a: mustElement(a, m), b: mustElement(b, m)}
	f.expInv = f.neg(f.small(2)).Bytes(m)
	// q = (p+1)/4 = (p >> 2) + 1, since p ≡ 3 (mod 4).
	q := make([]byte, fieldSize)
	var carry byte
	for i := range pb {
		q[i] = pb[i]>>2 | carry
		carry = pb[i] << 6
	}
	qe := mustElement(q, m).Add(f.small(1), m)
	f.expA = f.neg(f.small(1)).Sub(qe, m).Bytes(m) // p - 1 - q
	// 2^256 - p, the two's complement of p in 256 bits.
	neg := make([]byte, fieldSize)
	borrow := 0
	for i := fieldSize - 1; i >= 0; i-- {
		v := -int(pb[i]) - borrow
		borrow = 0
		if v < 0 {
			v += 256
			borrow = 1
		}
		neg[i] = byte(v)
	}
	f.r256 = mustElement(neg, m)
	return f
}

func mustElement(b []byte, m *bigmod.Modulus) *bigmod.Nat {
	x, err := bigmod.NewNat().SetBytes(b, m)
	if err != nil {
		panic(err)
	}
	return x
}

func (f *field) zero() *bigmod.Nat { return bigmod.NewNat().ExpandFor(f.p) }

func (f *field) small(v uint) *bigmod.Nat {
	x := f.zero()
	x.Bits()[0] = v
	return x
}

func (f *field) clone(x *bigmod.Nat) *bigmod.Nat {
	y := f.zero()
	copy(y.Bits(), x.Bits())
	return y
}

func (f *field) neg(x *bigmod.Nat) *bigmod.Nat { return f.zero().Sub(x, f.p) }

func (f *field) mul(x, y *bigmod.Nat) *bigmod.Nat { return f.clone(x).Mul(y, f.p) }

// selectElement returns x if c == 1 and y if c == 0, in constant time, on
// the limbs that Nat.Bits exposes.
func (f *field) selectElement(c uint, x, y *bigmod.Nat) *bigmod.Nat {
	out := f.clone(y)
	mask := -c
	o, v := out.Bits(), x.Bits()
	for i := range o {
		o[i] ^= mask & (o[i] ^ v[i])
	}
	return out
}

// reduce returns b mod p for big-endian b of any length, in time that
// depends only on len(b): Horner over 256-bit chunks, acc·2^256 + chunk.
func (f *field) reduce(b []byte) *bigmod.Nat {
	pad := (fieldSize - len(b)%fieldSize) % fieldSize
	buf := make([]byte, pad+len(b))
	copy(buf[pad:], b)
	acc := f.zero()
	for off := 0; off < len(buf); off += fieldSize {
		// A 256-bit chunk is below 2^256 < 2p: one subtraction reduces it.
		c, err := bigmod.NewNat().SetOverflowingBytes(buf[off:off+fieldSize], f.p)
		if err != nil {
			panic("pace: unreachable: 256-bit chunk rejected: " + err.Error())
		}
		acc.Mul(f.r256, f.p).Add(c, f.p)
	}
	return acc
}

// encode returns f_G(t) of Appendix B (B.2, affine coordinates), a
// simplified SWU map (Brier et al., CHES 2010) for p ≡ 3 (mod 4), as the
// uncompressed point 04 ‖ x ‖ y:
//
//	α  = -t²
//	X2 = -b(1 + α + α²) · (a(α + α²))^(p-2)
//	X3 = α·X2
//	h2 = X2³ + a·X2 + b
//	U  = t³·h2
//	A  = h2^(p-1-(p+1)/4)
//	(x, y) = (X2, A·h2) if A²·h2 = 1, else (X3, A·U)
//
// followed by the cofactor multiplication, the identity for both curves.
// It is constant time: both candidates are computed and one is selected.
func (f *field) encode(t *bigmod.Nat) []byte {
	m := f.p
	alpha := f.neg(f.mul(t, t))
	aa := f.clone(alpha).Add(f.mul(alpha, alpha), m) // α + α²
	inv := f.zero().Exp(f.mul(f.a, aa), f.expInv, m)
	x2 := f.neg(f.b).Mul(f.clone(aa).Add(f.small(1), m), m).Mul(inv, m)
	x3 := f.mul(alpha, x2)
	h2 := f.mul(x2, x2).Add(f.a, m).Mul(x2, m).Add(f.b, m) // (X2² + a)X2 + b
	u := f.mul(f.mul(t, t), t).Mul(h2, m)
	a := f.zero().Exp(h2, f.expA, m)
	square := f.mul(f.mul(a, a), h2).Equal(f.small(1))
	x := f.selectElement(square, x2, x3)
	y := f.selectElement(square, f.mul(a, h2), f.mul(a, u))
	out := make([]byte, 0, PointSize)
	out = append(out, 4)
	out = append(out, x.Bytes(m)...)
	return append(out, y.Bytes(m)...)
}

// Reduce returns x mod p as 32 big-endian bytes (R_p(s, t) from
// R(s, t) = x), in constant time.
func (c *Curve) Reduce(x []byte) []byte { return c.field.reduce(x).Bytes(c.field.p) }

// Encode returns f_G(t) as an uncompressed point, for a field element t
// (32 bytes, below p), or an error for a t that is not.
func (c *Curve) Encode(t []byte) ([]byte, error) {
	e, err := bigmod.NewNat().SetBytes(t, c.field.p)
	if err != nil || len(t) != fieldSize {
		return nil, fmt.Errorf("%w: pace: field element not below p", pakeerr.ErrInvalidParameter)
	}
	return c.field.encode(e), nil
}

// IntegratedMapping returns G' = f_G(R_p(s, t)) (§4.4.3.3.2).
func (c *Curve) IntegratedMapping(s, t []byte) (Point, error) {
	x, err := PseudoRandom(s, t)
	if err != nil {
		return nil, err
	}
	g, err := c.Decode(c.field.encode(c.field.reduce(x)))
	if err != nil {
		// f_G yields a point on the curve except when a(α+α²) = 0, which a
		// pseudo-random t hits with negligible probability.
		return nil, fmt.Errorf("%w: pace: the integrated mapping gave no point", pakeerr.ErrInvalidMessage)
	}
	return g, nil
}
