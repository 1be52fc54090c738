// Complete projective addition and doubling (Renes–Costello–Batina 2016,
// Algorithms 1 and 3) and fixed-window scalar multiplication.

package brainpool

import "fmt"

// Add sets p = q + r and returns p. It is complete (correct for all inputs,
// including the identity and q = r) and constant time: RCB16 Algorithm 1,
// 12M + 3m_a + 2m_3b + 23a.
func (p *Point) Add(q, r *Point) *Point {
	X1, Y1, Z1 := q.x, q.y, q.z
	X2, Y2, Z2 := r.x, r.y, r.z
	t0, t1, t2 := newFe(), newFe(), newFe()
	t3, t4, t5 := newFe(), newFe(), newFe()
	X3, Y3, Z3 := newFe(), newFe(), newFe()

	mul(t0, X1, X2)      // 1
	mul(t1, Y1, Y2)      // 2
	mul(t2, Z1, Z2)      // 3
	add(t3, X1, Y1)      // 4
	add(t4, X2, Y2)      // 5
	mul(t3, t3, t4)      // 6
	add(t4, t0, t1)      // 7
	sub(t3, t3, t4)      // 8
	add(t4, X1, Z1)      // 9
	add(t5, X2, Z2)      // 10
	mul(t4, t4, t5)      // 11
	add(t5, t0, t2)      // 12
	sub(t4, t4, t5)      // 13
	add(t5, Y1, Z1)      // 14
	add(X3, Y2, Z2)      // 15
	mul(t5, t5, X3)      // 16
	add(X3, t1, t2)      // 17
	sub(t5, t5, X3)      // 18
	mul(Z3, curveA, t4)  // 19
	mul(X3, curveB3, t2) // 20
	add(Z3, X3, Z3)      // 21
	sub(X3, t1, Z3)      // 22
	add(Z3, t1, Z3)      // 23
	mul(Y3, X3, Z3)      // 24
	add(t1, t0, t0)      // 25
	add(t1, t1, t0)      // 26
	mul(t2, curveA, t2)  // 27
	mul(t4, curveB3, t4) // 28
	add(t1, t1, t2)      // 29
	sub(t2, t0, t2)      // 30
	mul(t2, curveA, t2)  // 31
	add(t4, t4, t2)      // 32
	mul(t2, t1, t4)      // 33
	add(Y3, Y3, t2)      // 34
	mul(t2, t5, t4)      // 35
	mul(X3, X3, t3)      // 36
	sub(X3, X3, t2)      // 37
	mul(t2, t3, t1)      // 38
	mul(Z3, t5, Z3)      // 39
	add(Z3, Z3, t2)      // 40

	p.ensure()
	fset(p.x, X3)
	fset(p.y, Y3)
	fset(p.z, Z3)
	return p
}

// Double sets p = 2q and returns p, in constant time: RCB16 Algorithm 3,
// 8M + 3S + 3m_a + 2m_3b + 15a.
func (p *Point) Double(q *Point) *Point {
	X, Y, Z := q.x, q.y, q.z
	t0, t1, t2, t3 := newFe(), newFe(), newFe(), newFe()
	X3, Y3, Z3 := newFe(), newFe(), newFe()

	mul(t0, X, X)        // 1
	mul(t1, Y, Y)        // 2
	mul(t2, Z, Z)        // 3
	mul(t3, X, Y)        // 4
	add(t3, t3, t3)      // 5
	mul(Z3, X, Z)        // 6
	add(Z3, Z3, Z3)      // 7
	mul(X3, curveA, Z3)  // 8
	mul(Y3, curveB3, t2) // 9
	add(Y3, X3, Y3)      // 10
	sub(X3, t1, Y3)      // 11
	add(Y3, t1, Y3)      // 12
	mul(Y3, X3, Y3)      // 13
	mul(X3, t3, X3)      // 14
	mul(Z3, curveB3, Z3) // 15
	mul(t2, curveA, t2)  // 16
	sub(t3, t0, t2)      // 17
	mul(t3, curveA, t3)  // 18
	add(t3, t3, Z3)      // 19
	add(Z3, t0, t0)      // 20
	add(t0, Z3, t0)      // 21
	add(t0, t0, t2)      // 22
	mul(t0, t0, t3)      // 23
	add(Y3, Y3, t0)      // 24
	mul(t2, Y, Z)        // 25
	add(t2, t2, t2)      // 26
	mul(t0, t2, t3)      // 27
	sub(X3, X3, t0)      // 28
	mul(Z3, t2, t1)      // 29
	add(Z3, Z3, Z3)      // 30
	add(Z3, Z3, Z3)      // 31

	p.ensure()
	fset(p.x, X3)
	fset(p.y, Y3)
	fset(p.z, Z3)
	return p
}

// ScalarMult sets p = k·q and returns p. k is a big-endian integer of at
// most ScalarSize bytes (shorter ones are zero-extended; it need not be
// reduced modulo n). The time depends only on ScalarSize: a fixed 4-bit
// window over 256 bits, every table entry read at each step.
func (p *Point) ScalarMult(k []byte, q *Point) (*Point, error) {
	if len(k) > ScalarSize {
		return nil, fmt.Errorf("brainpool: scalar of %d bytes, want at most %d", len(k), ScalarSize)
	}
	var kb [ScalarSize]byte
	copy(kb[ScalarSize-len(k):], k)

	// table[i] = i·q for i = 0..15.
	var table [16]*Point
	table[0] = NewPoint()
	table[1] = NewPoint().Set(q)
	for i := 2; i < 16; i++ {
		if i%2 == 0 {
			table[i] = NewPoint().Double(table[i/2])
		} else {
			table[i] = NewPoint().Add(table[i-1], q)
		}
	}

	acc := NewPoint()
	sel := NewPoint()
	for _, b := range kb {
		for _, shift := range []uint{4, 0} {
			acc.Double(acc).Double(acc).Double(acc).Double(acc)
			w := int(b>>shift) & 0xf
			for i := range table {
				c := ctEq(w, i)
				fselect(sel.x, table[i].x, c)
				fselect(sel.y, table[i].y, c)
				fselect(sel.z, table[i].z, c)
			}
			acc.Add(acc, sel)
		}
	}
	p.ensure()
	return p.Set(acc), nil
}

// ScalarBaseMult sets p = k·G and returns p; see ScalarMult.
func (p *Point) ScalarBaseMult(k []byte) (*Point, error) {
	return p.ScalarMult(k, NewGenerator())
}
