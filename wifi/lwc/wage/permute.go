package wage

// StateSize is the number of cells of the WAGE state: 37 stages of the
// NLFSR over GF(2^7), 259 bits in all. Permute keeps one cell per byte in
// the low 7 bits.
const StateSize = 37

// rounds is the number of rounds of the WAGE permutation.
const rounds = 111

// Field elements of GF(2^7) are defined by the primitive polynomial
// f(x) = x^7 + x^3 + x^2 + x + 1 and are stored with the coefficient of
// ω^0 in bit 6 and that of ω^6 in bit 0: the specification writes the
// 7 bits of a cell most significant first, starting with ω^0.

// omega multiplies a cell by ω, the root of f: a shift towards bit 0,
// and when the ω^6 coefficient (bit 0) falls off, ω^7 = 1 + ω + ω^2 + ω^3
// (bits 6..3, 0x78) is added.
func omega(x byte) byte {
	return x>>1 ^ 0x78&-(x&1)
}

// Permute applies the 111-round WAGE permutation to s. Cell i of the state
// (stage S_i of the specification) is s[i]; only its low 7 bits are used
// and the high bit of every byte is cleared on return.
//
// Each round computes the feedback
//
//	fb = ω·S0 + S6 + S8 + S12 + S13 + S19 + S24 + S26 + S30 + S31 + WGP(S36) + rc1
//
// from the stages as they stand at the start of the round, updates
//
//	S5 += SB(S8), S11 += SB(S15), S19 += WGP(S18) + rc0,
//	S24 += SB(S27), S30 += SB(S34)
//
// and then shifts the register by one stage, S_i ← S_{i+1}, S36 ← fb.
//
// Rather than moving 37 bytes per round, the rounds run over a 148-byte
// window: round r sees stage S_i at w[r+i] and appends its feedback at
// w[r+37], so that the final state is w[111:148].
func Permute(s *[StateSize]byte) {
	var w [StateSize + rounds]byte
	for i, c := range s {
		w[i] = c & 0x7f
	}
	for r := 0; r < rounds; r++ {
		t := (*[StateSize]byte)(w[r : r+StateSize])
		w36, w18 := wgp2(t[36], t[18])
		fb := omega(t[0]) ^ t[6] ^ t[8] ^ t[12] ^ t[13] ^ t[19] ^
			t[24] ^ t[26] ^ t[30] ^ t[31] ^ w36 ^ roundConstants[2*r+1]

		// The four S-boxes of the round run side by side, one per byte
		// lane of a 32-bit word.
		in := uint32(t[8]) | uint32(t[15])<<8 | uint32(t[27])<<16 | uint32(t[34])<<24
		out := sb(in)
		t[5] ^= byte(out)
		t[11] ^= byte(out >> 8)
		t[24] ^= byte(out >> 16)
		t[30] ^= byte(out >> 24)
		t[19] ^= w18 ^ roundConstants[2*r]

		w[r+StateSize] = fb
	}
	copy(s[:], w[rounds:])
}

// roundConstants holds rc0 and rc1 of every round, interleaved: rc0 of
// round r is entry 2r and rc1 entry 2r+1. They are 222 successive states
// of the 7-bit LFSR of the specification, started from all ones and
// clocked as a_{i+7} = a_i + a_{i+1}, written with a_i in bit 0.
var roundConstants = func() (rc [2 * rounds]byte) {
	x := byte(0x7f)
	for i := range rc {
		rc[i] = x
		x = x>>1 | (x^x>>1)&1<<6
	}
	return rc
}()

// sb applies the 7-bit S-box SB of the specification to the four cells in
// the byte lanes of x (each lane's high bit must be zero).
//
// SB is a nonlinear network on the bits (x0, ..., x6), x0 the most
// significant: five rounds of P∘Q followed by one more Q, and finally
// x0 and x2 are complemented, where
//
//	Q(x) = (x0 + x2·x3, x1, x2, ¬x3 + x5·x6, x4, ¬x5 + x2·x4, x6)
//	P(x) = (x6, x3, x0, x4, x2, x5, x1).
//
// It is computed bitsliced: word xi holds bit xi of every lane in the low
// bit of that lane (higher bits of the lanes carry junk that is masked
// off at the end), so no table is consulted.
func sb(x uint32) uint32 {
	x0, x1, x2, x3, x4, x5, x6 := x>>6, x>>5, x>>4, x>>3, x>>2, x>>1, x
	for range 5 {
		x0, x3, x5 = x0^x2&x3, ^x3^x5&x6, ^x5^x2&x4
		x0, x1, x2, x3, x4, x6 = x6, x3, x0, x4, x2, x1 // P; x5 stays
	}
	x0, x3, x5 = x0^x2&x3, ^x3^x5&x6, ^x5^x2&x4
	x0, x2 = ^x0, ^x2
	const m = 0x01010101
	return (x0&m)<<6 | (x1&m)<<5 | (x2&m)<<4 | (x3&m)<<3 |
		(x4&m)<<2 | (x5&m)<<1 | x6&m
}

// wgp2 returns WGP(x) and WGP(y) for 7-bit x and y, where WGP is the
// Welch–Gong permutation of GF(2^7) decimated by 13:
//
//	WGP(x) = z + (z+1)^33 + (z+1)^39 + (z+1)^41 + (z+1)^104,  z = x^13.
//
// The function is held in registers as seven 128-bit bit planes (plane j,
// bit i = bit j of WGP(i), split into 64-bit halves lo and hi). Every
// plane word is read whatever the inputs are; an input only picks a half
// with a mask and a bit with a register shift. No memory address and no
// branch depends on the inputs, so the evaluation is constant time on
// CPUs whose variable shifts are (amd64, arm64 and the other 64-bit
// targets Go supports). This is the 128-entry table read in full, with
// the selection done in registers; it costs about 45 ALU operations per
// input, against some 10 multiplications and 9 squarings in GF(2^7) for
// the power maps, or 128 masked reads for a byte-table scan (see
// BenchmarkWGP). Two inputs share the loads of the plane words.
func wgp2(x, y byte) (byte, byte) {
	p := &wgpPlanes
	sx, sy := uint(x)&63, uint(y)&63
	mx, my := -uint64(x>>6&1), -uint64(y>>6&1)
	var u, v uint64
	for j := range 7 {
		lo, d := p.lo[j], p.lo[j]^p.hi[j]
		u |= ((lo ^ d&mx) >> sx & 1) << j
		v |= ((lo ^ d&my) >> sy & 1) << j
	}
	return byte(u), byte(v)
}

// wgpPlanes is WGP in bit-plane form, computed once from the definition
// in GF(2^7) (public data only, so the computation need not be constant
// time).
var wgpPlanes = func() (p struct{ lo, hi [7]uint64 }) {
	for x := range 128 {
		v := wgpSpec(byte(x))
		for j := range 7 {
			b := uint64(v>>j) & 1
			if x < 64 {
				p.lo[j] |= b << x
			} else {
				p.hi[j] |= b << (x - 64)
			}
		}
	}
	return p
}()

// wgpSpec evaluates WGP from its definition, for building wgpPlanes.
func wgpSpec(x byte) byte {
	y := gfPow(x, 13)
	z := y ^ 0x40 // y + 1: the unit is bit 6
	return y ^ gfPow(z, 33) ^ gfPow(z, 39) ^ gfPow(z, 41) ^ gfPow(z, 104)
}

// gfMul multiplies two cells in GF(2^7) (variable time; public data only).
func gfMul(a, b byte) byte {
	var r byte
	for i := 0; i < 7; i++ {
		if b&(0x40>>i) != 0 { // coefficient of ω^i
			r ^= a
		}
		a = omega(a)
	}
	return r
}

// gfPow returns x^e in GF(2^7) (variable time; public data only).
func gfPow(x byte, e int) byte {
	r := byte(0x40)
	for ; e > 0; e-- {
		r = gfMul(r, x)
	}
	return r
}
