package core

import "github.com/kexlab/kexlab/internal/group"

// Constants of the simplified SWU map for P-256 (RFC 9380 §8.2): Z = -10,
// and c2 = sqrt(-Z) = sqrt(10) for sqrt_ratio. IEEE 802.11-2020
// §12.4.4.2.3 uses the same map with z = -10 for group 19.
var (
	sswuZ  = new(Element).Negate(mustElement([]byte{10}))
	sswuC2 = func() *Element {
		ten := mustElement([]byte{10})
		c2 := new(Element).Sqrt(ten)
		if new(Element).Square(c2).Equal(ten) != 1 {
			panic("core: 10 is not a square modulo p")
		}
		return c2
	}()
)

// MapToCurveSSWU returns map_to_curve_simple_swu(u) for P-256 (RFC 9380
// §6.6.2), computed with the straight-line, constant-time procedure of
// RFC 9380 Appendix F.2 and sqrt_ratio for q ≡ 3 (mod 4) (Appendix
// F.2.1.2): two exponentiations, no branch on u. It is 802.11's SSWU(u).
func MapToCurveSSWU(u *Element) (*group.Point, error) {
	var tv1, tv2, tv3, tv4, tv5, tv6, x, y, negY Element
	tv1.Square(u)
	tv1.Mul(&tv1, sswuZ) // Z·u²
	tv2.Square(&tv1)     // Z²·u⁴
	tv2.Add(&tv2, &tv1)  // Z²·u⁴ + Z·u²
	tv3.Add(&tv2, oneElem)
	tv3.Mul(&tv3, coeffB) // B·(tv2 + 1), x1's numerator
	tv4.Negate(&tv2)
	tv4.Select(&tv4, sswuZ, 1^tv2.IsZero())
	tv4.Mul(&tv4, minus3) // A·(-tv2), or A·Z if tv2 = 0: x1's denominator
	tv2.Square(&tv3)
	tv6.Square(&tv4)
	tv5.Mul(&tv6, minus3)
	tv2.Add(&tv2, &tv5)
	tv2.Mul(&tv2, &tv3)
	tv6.Mul(&tv6, &tv4)
	tv5.Mul(&tv6, coeffB)
	tv2.Add(&tv2, &tv5) // gx1 = tv2 / tv6
	x.Mul(&tv1, &tv3)   // x2's numerator
	isQR, y1 := sqrtRatio(&tv2, &tv6)
	y.Mul(&tv1, u)
	y.Mul(&y, y1)
	x.Select(&tv3, &x, isQR)
	y.Select(y1, &y, isQR)
	negY.Negate(&y)
	y.Select(&y, &negY, 1^(u.IsOdd()^y.IsOdd())) // sgn0(y) = sgn0(u)
	x.Mul(&x, tv1.Invert(&tv4))
	return PointFromAffine(&x, &y)
}

// sqrtRatio returns (1, sqrt(u/v)) if u/v is a square and
// (0, sqrt(Z·u/v)) otherwise, for v != 0 (RFC 9380 Appendix F.2.1.2).
func sqrtRatio(u, v *Element) (int, *Element) {
	var tv1, tv2, tv3, y1, y2 Element
	tv1.Square(v)
	tv2.Mul(u, v)
	tv1.Mul(&tv1, &tv2)
	y1.PowC1(&tv1)
	y1.Mul(&y1, &tv2)
	y2.Mul(&y1, sswuC2)
	tv3.Square(&y1)
	tv3.Mul(&tv3, v)
	isQR := tv3.Equal(u)
	return isQR, new(Element).Select(&y1, &y2, isQR)
}
