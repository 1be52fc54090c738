package pbkdf2

import (
	"encoding/binary"
	"math/bits"
)

// iv is SHA-256's initial hash value H(0) (FIPS 180-4 §5.3.3).
var iv = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// k is SHA-256's constants K0..K63 (FIPS 180-4 §4.2.2).
var k = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// compressGeneric applies SHA-256's compression function to the hash value
// h and the message block w, given as its sixteen big-endian words M0..M15
// (FIPS 180-4 §6.2.2, steps 1 to 4, with the sixteen-word rolling message
// schedule).
func compressGeneric(h *[8]uint32, w *[16]uint32) {
	s := *w
	a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for t := 0; t < 64; t++ {
		var wt uint32
		if t < 16 {
			wt = s[t]
		} else {
			// W_t = σ1(W_t-2) + W_t-7 + σ0(W_t-15) + W_t-16, in place of W_t-16.
			w2, w15 := s[(t-2)&15], s[(t-15)&15]
			s0 := bits.RotateLeft32(w15, -7) ^ bits.RotateLeft32(w15, -18) ^ (w15 >> 3)
			s1 := bits.RotateLeft32(w2, -17) ^ bits.RotateLeft32(w2, -19) ^ (w2 >> 10)
			wt = s1 + s[(t-7)&15] + s0 + s[t&15]
			s[t&15] = wt
		}
		S1 := bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)
		ch := (e & f) ^ (^e & g)
		t1 := hh + S1 + ch + k[t] + wt
		S0 := bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)
		maj := (a & b) ^ (a & c) ^ (b & c)
		t2 := S0 + maj
		hh, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+t2
	}
	h[0] += a
	h[1] += b
	h[2] += c
	h[3] += d
	h[4] += e
	h[5] += f
	h[6] += g
	h[7] += hh
	clear(s[:])
}

// blockGeneric compresses the whole 64-byte blocks of p into h.
func blockGeneric(h *[8]uint32, p []byte) {
	var w [16]uint32
	for ; len(p) >= blockSize; p = p[blockSize:] {
		for i := range w {
			w[i] = binary.BigEndian.Uint32(p[4*i:])
		}
		compressGeneric(h, &w)
	}
	clear(w[:])
}

// iterateGeneric runs n PBKDF2 iterations: with u = U_j as eight words,
// U_j+1 = HMAC(P, U_j) from the pad states (pads[0:8] after the inner pad,
// pads[8:16] after the outer pad), T ^= U_j+1, and u = U_j+1 at the end.
// Both compressions of an iteration take one block of fixed layout: the
// 32-byte value, the bit 1, zeros and the message length, (64+32)·8 = 768
// bits.
func iterateGeneric(pads *[16]uint32, u, t *[8]uint32, n int) {
	var w [16]uint32
	w[8] = 0x80000000
	w[15] = (blockSize + Size) * 8
	var h [8]uint32
	for ; n > 0; n-- {
		copy(w[:8], u[:])
		copy(h[:], pads[:8])
		compressGeneric(&h, &w)
		copy(w[:8], h[:])
		copy(h[:], pads[8:])
		compressGeneric(&h, &w)
		*u = h
		for i := range t {
			t[i] ^= h[i]
		}
	}
	clear(w[:])
	clear(h[:])
}
