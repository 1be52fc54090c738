package group

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/kexlab/kexlab/internal/p256field"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Hashing to P-256, RFC 9380: the suites P256_XMD:SHA-256_SSWU_RO_ and
// P256_XMD:SHA-256_SSWU_NU_ (§8.2), built from expand_message_xmd with
// SHA-256 (§5.3.1), hash_to_field with L = 48 (§5.2) and the simplified SWU
// map with Z = -10 (§6.6.2, straight-line form of Appendix F.2). P-256 has
// cofactor 1, so clear_cofactor is the identity (h_eff = 1).
//
// Everything that depends on msg runs in constant time: the SWU map has no
// branch (the exceptional case u^4·Z^2 + u^2·Z = 0 is handled by CMOV, §6.6.2
// and F.2 step 7) and sqrt_ratio and inversion are fixed addition chains.
// Only len(msg), len(dst) and the output length affect timing.

// h2cL is L, the bytes hashed into each field element:
// ceil((ceil(log2(p)) + k) / 8) with k = 128 (§5.2, §8.2).
const h2cL = 48

// Curve and map constants (§8.2 and Appendix F.2.1.2).
var (
	sswuA = mustField("ffffffff00000001000000000000000000000000fffffffffffffffffffffffc") // -3
	sswuB = mustField("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b")
	sswuZ = mustField("ffffffff00000001000000000000000000000000fffffffffffffffffffffff5") // -10
	// sswuC2 is c2 = sqrt(-Z) = sqrt(10) of sqrt_ratio for q ≡ 3 (mod 4).
	sswuC2 = mustField("25ac71c31e27646736870398ae7f554d8472e008b3aa2a49d332cbd81bcc3b80")
)

func mustField(s string) *p256field.Element {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	e, err := new(p256field.Element).SetBytes(b)
	if err != nil {
		panic(err)
	}
	return e
}

// ExpandMessageXMD implements expand_message_xmd with SHA-256 (RFC 9380
// §5.3.1): it returns n uniformly random bytes derived from msg and the
// domain separation tag dst.
//
// A dst longer than 255 bytes is first replaced by
// SHA-256("H2C-OVERSIZE-DST-" || dst) (§5.3.3). An empty dst (forbidden by
// §3.1) and n outside 0..8160 (ell = ceil(n/32) must be at most 255 and n at
// most 65535, §5.3.1 step 2) return an error wrapping
// pakeerr.ErrInvalidParameter.
func ExpandMessageXMD(msg, dst []byte, n int) ([]byte, error) {
	if len(dst) == 0 {
		return nil, fmt.Errorf("%w: hash-to-curve: empty domain separation tag", pakeerr.ErrInvalidParameter)
	}
	ell := (n + sha256.Size - 1) / sha256.Size
	if n < 0 || n > 65535 || ell > 255 {
		return nil, fmt.Errorf("%w: expand_message_xmd: cannot produce %d bytes", pakeerr.ErrInvalidParameter, n)
	}
	if len(dst) > 255 {
		h := sha256.New()
		h.Write([]byte("H2C-OVERSIZE-DST-"))
		h.Write(dst)
		dst = h.Sum(nil)
	}
	dstPrime := make([]byte, 0, len(dst)+1)
	dstPrime = append(append(dstPrime, dst...), byte(len(dst)))

	// b_0 = H(Z_pad || msg || I2OSP(n, 2) || I2OSP(0, 1) || DST_prime)
	var zPad [sha256.BlockSize]byte
	h := sha256.New()
	h.Write(zPad[:])
	h.Write(msg)
	h.Write([]byte{byte(n >> 8), byte(n), 0})
	h.Write(dstPrime)
	var b0, bi [sha256.Size]byte
	h.Sum(b0[:0])

	// b_i = H(strxor(b_0, b_(i-1)) || I2OSP(i, 1) || DST_prime), with
	// b_1 = H(b_0 || I2OSP(1, 1) || DST_prime): the xor with b_0 of an
	// all-zero b_0 is b_0 itself.
	out := make([]byte, 0, ell*sha256.Size)
	for i := 1; i <= ell; i++ {
		for j := range bi {
			bi[j] ^= b0[j]
		}
		h.Reset()
		h.Write(bi[:])
		h.Write([]byte{byte(i)})
		h.Write(dstPrime)
		h.Sum(bi[:0])
		out = append(out, bi[:]...)
	}
	return out[:n], nil
}

// hashToField implements hash_to_field (§5.2) for GF(p) with L = 48.
func hashToField(msg, dst []byte, count int) ([]p256field.Element, error) {
	uniform, err := ExpandMessageXMD(msg, dst, count*h2cL)
	if err != nil {
		return nil, err
	}
	u := make([]p256field.Element, count)
	for i := range u {
		if _, err := u[i].SetWideBytes(uniform[i*h2cL : (i+1)*h2cL]); err != nil {
			panic("group: unreachable: " + err.Error())
		}
	}
	return u, nil
}

// sqrtRatio is sqrt_ratio for q ≡ 3 (mod 4) (Appendix F.2.1.2). For v != 0
// it returns (1, sqrt(u/v)) if u/v is square and (0, sqrt(Z·u/v))
// otherwise. It also returns inv = 1/(u·v^3) (0 if u = 0) almost for free:
// with t = u·v^3 and y = t^c1, t^(p-2) = t^(4·c1 + 1) = y^4·t.
func sqrtRatio(u, v *p256field.Element) (isQR int, y, inv p256field.Element) {
	var tv1, tv2, tv3, y1, y2 p256field.Element
	tv1.Square(v)            // 1. tv1 = v^2
	tv2.Mul(u, v)            // 2. tv2 = u * v
	tv1.Mul(&tv1, &tv2)      // 3. tv1 = tv1 * tv2
	y1.PowC1(&tv1)           // 4. y1 = tv1^c1
	inv.Square(&y1)          //
	inv.Square(&inv)         //
	inv.Mul(&inv, &tv1)      //    inv = y1^4 * tv1 = tv1^(p-2)
	y1.Mul(&y1, &tv2)        // 5. y1 = y1 * tv2
	y2.Mul(&y1, sswuC2)      // 6. y2 = y1 * c2
	tv3.Square(&y1)          // 7. tv3 = y1^2
	tv3.Mul(&tv3, v)         // 8. tv3 = tv3 * v
	isQR = tv3.Equal(u)      // 9. isQR = tv3 == u
	y.Select(&y1, &y2, isQR) // 10. y = CMOV(y2, y1, isQR)
	return isQR, y, inv
}

// sswu is map_to_curve_simple_swu (§6.6.2) in the straight-line form of
// Appendix F.2, returning the affine point (x, y).
//
// Step 25's division by tv4 reuses sqrt_ratio's exponentiation instead of a
// second one: sqrt_ratio(tv2, tv6) also yields 1/(tv2·tv6^3), and since
// tv6 = tv4^3, 1/tv4 = tv2·tv6^2·tv4^2 / (tv2·tv6^3). This needs tv2 != 0:
// tv2 = tv4^3·g(tv3/tv4), and g(X) = X^3 - 3X + B has no root in GF(p),
// as a root would be the x of a point of order 2 and P-256 has prime order.
// tv4 != 0 by step 7. So the map costs one exponentiation, not two.
func sswu(u *p256field.Element) (x, y p256field.Element) {
	var tv1, tv2, tv3, tv4, tv5, tv6, t p256field.Element
	tv1.Square(u)                                 // 1. tv1 = u^2
	tv1.Mul(sswuZ, &tv1)                          // 2. tv1 = Z * tv1
	tv2.Square(&tv1)                              // 3. tv2 = tv1^2
	tv2.Add(&tv2, &tv1)                           // 4. tv2 = tv2 + tv1
	tv3.Add(&tv2, t.One())                        // 5. tv3 = tv2 + 1
	tv3.Mul(sswuB, &tv3)                          // 6. tv3 = B * tv3
	t.Negate(&tv2)                                //
	tv4.Select(&t, sswuZ, 1-tv2.IsZero())         // 7. tv4 = CMOV(Z, -tv2, tv2 != 0)
	tv4.Mul(sswuA, &tv4)                          // 8. tv4 = A * tv4
	tv2.Square(&tv3)                              // 9. tv2 = tv3^2
	tv6.Square(&tv4)                              // 10. tv6 = tv4^2
	tv5.Mul(sswuA, &tv6)                          // 11. tv5 = A * tv6
	tv2.Add(&tv2, &tv5)                           // 12. tv2 = tv2 + tv5
	tv2.Mul(&tv2, &tv3)                           // 13. tv2 = tv2 * tv3
	tv6.Mul(&tv6, &tv4)                           // 14. tv6 = tv6 * tv4
	tv5.Mul(sswuB, &tv6)                          // 15. tv5 = B * tv6
	tv2.Add(&tv2, &tv5)                           // 16. tv2 = tv2 + tv5
	x.Mul(&tv1, &tv3)                             // 17. x = tv1 * tv3
	isGx1Square, y1, inv := sqrtRatio(&tv2, &tv6) // 18. (is_gx1_square, y1) = sqrt_ratio(tv2, tv6)
	y.Mul(&tv1, u)                                // 19. y = tv1 * u
	y.Mul(&y, &y1)                                // 20. y = y * y1
	x.Select(&tv3, &x, isGx1Square)               // 21. x = CMOV(x, tv3, is_gx1_square)
	y.Select(&y1, &y, isGx1Square)                // 22. y = CMOV(y, y1, is_gx1_square)
	e1 := 1 ^ u.IsOdd() ^ y.IsOdd()               // 23. e1 = sgn0(u) == sgn0(y)
	t.Negate(&y)                                  //
	y.Select(&y, &t, e1)                          // 24. y = CMOV(-y, y, e1)
	inv.Mul(&inv, &tv2)                           //
	t.Square(&tv6)                                //
	inv.Mul(&inv, &t)                             //
	t.Square(&tv4)                                //
	inv.Mul(&inv, &t)                             //     inv = 1/tv4, see above
	x.Mul(&x, &inv)                               // 25. x = x / tv4
	return x, y
}

// affinePoint builds the nistec point (x, y) through its SEC 1 uncompressed
// encoding, which also checks that the point is on the curve.
func affinePoint(x, y *p256field.Element) (*Point, error) {
	var buf [UncompressedPointSize]byte
	buf[0] = 4
	copy(buf[1:], x.Bytes())
	copy(buf[1+ElementSize:], y.Bytes())
	p, err := NewPoint().SetBytes(buf[:])
	if err != nil {
		// Unreachable: the map's output always satisfies the curve equation.
		return nil, fmt.Errorf("group: hash-to-curve produced an invalid point: %w", err)
	}
	return p, nil
}

// mapToCurve is map_to_curve: u to a point on P-256.
func mapToCurve(u *p256field.Element) (*Point, error) {
	x, y := sswu(u)
	return affinePoint(&x, &y)
}

// HashToCurve implements P256_XMD:SHA-256_SSWU_RO_ (RFC 9380 §3, §8.2):
// hash_to_field(msg, 2), map both elements to the curve, add. The output is
// indistinguishable from a random point; it is never the identity except
// with negligible probability. dst must be non-empty (see ExpandMessageXMD).
func HashToCurve(msg, dst []byte) (*Point, error) {
	u, err := hashToField(msg, dst, 2)
	if err != nil {
		return nil, err
	}
	q0, err := mapToCurve(&u[0])
	if err != nil {
		return nil, err
	}
	q1, err := mapToCurve(&u[1])
	if err != nil {
		return nil, err
	}
	return q0.Add(q0, q1), nil // clear_cofactor is the identity map
}

// EncodeToCurve implements P256_XMD:SHA-256_SSWU_NU_ (RFC 9380 §3, §8.2):
// hash_to_field(msg, 1) and one map. Its output is not uniformly
// distributed (§10.4); use HashToCurve unless a protocol specifies the
// nonuniform encoding. dst must be non-empty (see ExpandMessageXMD).
func EncodeToCurve(msg, dst []byte) (*Point, error) {
	u, err := hashToField(msg, dst, 1)
	if err != nil {
		return nil, err
	}
	return mapToCurve(&u[0])
}
