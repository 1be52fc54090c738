package p256field

// The exponents below are fixed public constants, so the addition chains run
// the same sequence of squarings and multiplications for every input.

// square sets e = x^(2^n).
func (e *Element) square(x *Element, n int) *Element {
	e.Square(x)
	for i := 1; i < n; i++ {
		e.Square(e)
	}
	return e
}

// PowC1 sets e = x^c1 with c1 = (p-3)/4 and returns e: the exponentiation of
// sqrt_ratio for q ≡ 3 (mod 4) (RFC 9380 Appendix F.2.1.2).
//
// In binary, (p-3)/4 is 1{32} 0{31} 1 0{96} 1{94}: 253 squarings and 12
// multiplications with runs of ones x^(2^k - 1) built from smaller runs.
func (e *Element) PowC1(x *Element) *Element {
	var x2, x4, x8, x16, x24, x28, x30, x32, t Element
	x2.Square(x).Mul(&x2, x)
	x4.square(&x2, 2).Mul(&x4, &x2)
	x8.square(&x4, 4).Mul(&x8, &x4)
	x16.square(&x8, 8).Mul(&x16, &x8)
	x24.square(&x16, 8).Mul(&x24, &x8)
	x28.square(&x24, 4).Mul(&x28, &x4)
	x30.square(&x28, 2).Mul(&x30, &x2)
	x32.square(&x30, 2).Mul(&x32, &x2)

	t.square(&x32, 32).Mul(&t, x) // 1{32} 0{31} 1
	t.square(&t, 96)              // 0{96}
	t.square(&t, 32).Mul(&t, &x32)
	t.square(&t, 32).Mul(&t, &x32)
	t.square(&t, 30).Mul(&t, &x30) // 1{94} in all
	return e.Set(&t)
}

// Invert sets e = 1/x, or 0 if x is 0 (inv0, RFC 9380 §4), and returns e.
// It computes x^(p-2) = (x^((p-3)/4))^4 · x.
func (e *Element) Invert(x *Element) *Element {
	var t Element
	t.PowC1(x)
	t.square(&t, 2)
	return e.Mul(&t, x)
}
