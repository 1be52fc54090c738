package group

import (
	"encoding/binary"

	"filippo.io/nistec"
)

// Fixed-base multiplication by any point (SPAKE2's M and N, for example),
// with a precomputed table and signed (Booth) windows of tableW bits.
//
// The scalar is recoded into tableWindows digits d_j in [-2^(w-1), 2^(w-1)]
// with s = Σ d_j·2^(w·j), and the table holds k·2^(w·j)·Q for k = 1 … 2^(w-1)
// in every window j, so s·Q is one table lookup and one addition per
// window, and no doublings. Each lookup scans every entry of its window with
// nistec's constant-time Select and applies the sign with Negate and Select:
// neither branches nor memory addresses depend on the scalar.
//
// Speed. tableW = 6 was chosen by measurement: w = 4, 5, 6, 7, 8 took 36,
// 31, 30, 34 and 43 µs on the reference machine (ScalarBaseMult: 11.7 µs).
// TableMult thus costs about 2.5 ScalarBaseMults and half a variable-base
// ScalarMult, short of the 1.5x target, which nistec's public API cannot
// reach. Its only addition, Add, is complete: it computes a projective
// addition and a doubling and selects between them (about 465 ns), while
// ScalarBaseMult spends about 250 ns per window on a private affine table
// and a mixed addition. 42 Adds take about 20 µs, already above 1.5 x 11 µs,
// and the 43 scans (32 Selects of 96-byte points each) add about 6 µs. A
// complete mixed addition written here on package p256field would cost 14
// multiplications of about 25 ns, no less than nistec's Add, plus a final
// inversion of about 7 µs to hand the result to nistec, so it is not done.
const (
	tableW       = 6
	tableWindows = 256/tableW + 1 // the top digit takes the Booth carry
	tableEntries = 1 << (tableW - 1)
)

// Table holds precomputed multiples of a fixed point for fast constant-time
// multiplication by that point: TableMult costs about half of ScalarMult
// but about 2.5 times ScalarBaseMult, because nistec's public API offers
// only its complete (and slower) point addition. A Table takes about
// 130 KiB; NewTable costs about 1400 point additions (about 1 ms). A Table
// is read-only after NewTable and safe for concurrent use.
type Table struct {
	// w[j][k] = (k+1)·2^(tableW·j)·Q.
	w [tableWindows][tableEntries]nistec.P256Point
}

// NewTable precomputes the table for q, which is public.
func NewTable(q *Point) *Table {
	t := new(Table)
	base := nistec.NewP256Point().Set(q.p)
	for j := range t.w {
		win := &t.w[j]
		win[0].Set(base)
		for k := 1; k < tableEntries; k++ {
			win[k].Add(&win[k-1], base)
		}
		base.Double(&win[tableEntries-1]) // 2^(w-1)·base doubled is 2^w·base
	}
	return t
}

// TableMult sets p = s·Q, where t = NewTable(Q), and returns p. It runs in
// constant time in s.
func (p *Point) TableMult(s *Scalar, t *Table) *Point {
	// Little-endian 64-bit limbs of s, with a zero limb on top so that the
	// last window can read past bit 255.
	var k [5]uint64
	b := s.Bytes()
	for i := range 4 {
		k[i] = binary.BigEndian.Uint64(b[24-8*i:])
	}

	acc := nistec.NewP256Point()
	sel := nistec.NewP256Point()
	neg := nistec.NewP256Point()
	for j := range t.w {
		mag, sign := boothDigit(&k, j)
		sel.Set(nistecIdentity)
		for i := range t.w[j] {
			sel.Select(&t.w[j][i], sel, ctEq(i+1, mag))
		}
		neg.Negate(sel)
		sel.Select(neg, sel, sign)
		if j == 0 {
			acc.Set(sel)
		} else {
			acc.Add(acc, sel)
		}
	}
	p.p = acc
	return p
}

var nistecIdentity = nistec.NewP256Point()

// boothDigit returns |d_j| and 1 if d_j < 0 (0 otherwise), where d_j is the
// signed digit of window j: with bits b_(w·j-1) … b_(w·j+w-1) of the scalar
// (b_-1 = 0), d_j = b_(w·j-1) + Σ_{i<w-1} b_(w·j+i)·2^i - b_(w·j+w-1)·2^(w-1).
// Which limbs are read depends only on j, never on the scalar.
func boothDigit(k *[5]uint64, j int) (mag, neg int) {
	var v uint64
	if start := tableW*j - 1; start < 0 {
		v = k[0] << 1
	} else {
		v = k[start/64] >> (start % 64)
		if start%64+tableW+1 > 64 {
			v |= k[start/64+1] << (64 - start%64)
		}
	}
	v &= 1<<(tableW+1) - 1
	// v has b_(w·j-1) in bit 0 and b_(w·j) … b_(w·j+w-1) in bits 1 … w,
	// so d_j = (v >> 1) + (v & 1) - (v >> w)·2^w.
	d := int64(v>>1+v&1) - int64(v>>tableW<<tableW)
	sign := int64(uint64(d) >> 63)
	return int((d ^ -sign) + sign), int(sign)
}

// ctEq returns 1 if a == b and 0 otherwise, for 0 <= a, b < 2^62, without
// branching.
func ctEq(a, b int) int {
	d := uint64(a ^ b)
	return int(1 ^ (d|-d)>>63)
}
