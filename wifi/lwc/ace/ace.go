// Package ace implements ACE, the authenticated-encryption and hash family
// submitted to the NIST lightweight-cryptography competition by Aagaard,
// AlTawy, Gong, Mandal and Rohit ("ACE: An Authenticated Encryption and Hash
// Algorithm", round-2 submission, September 27, 2019):
//
//   - the ACE permutation (§2.3): a 320-bit state of five 64-bit words
//     A, B, C, D, E, updated by 16 steps, each applying the Simeck box SB-64
//     (§2.3.1: 8 unkeyed Simeck-64 rounds) to A, C and E, mixing them into
//     B, D and E, adding the step constants (§2.3.2) and shuffling the words
//     with π = (3, 2, 0, 4, 1);
//   - ACE-AE-128 (§2.4), an AEAD with 128-bit key, nonce and tag in the
//     sLiSCP sponge-duplex mode, exposed as a [cipher.AEAD] by [New];
//   - ACE-H-256 (§2.5), a 256-bit sponge hash, exposed as [Sum256] and
//     [New256].
//
// The permutation state is serialised as in the specification and in the
// NIST known-answer tests: the words A‖B‖C‖D‖E, each a big-endian 64-bit
// value, so byte 0 is the most significant byte of A and byte 39 the least
// significant byte of E. The 64-bit rate (§2.4.1) is the upper half A[0] of
// A (bytes 0..3) followed by the upper half C[0] of C (bytes 16..19); the
// domain separators of the AEAD (§2.4.5, §2.4.6) are added to the last
// state byte.
//
// kexlab implements ACE itself because no maintained Go implementation
// exists in the libraries its design allows (the standard library,
// golang.org/x/crypto, filippo.io and CIRCL do not provide ACE). The code
// operates on 32-bit words with no secret-dependent branches, table lookups
// or memory indices; it uses neither assembly nor unsafe.
package ace

import (
	"encoding/binary"
	"math/bits"
)

const (
	// StateSize is the size of the ACE permutation state in bytes (320 bits).
	StateSize = 40
	// Rate is the number of bytes absorbed or squeezed per permutation call
	// (64 bits, §2.4.1).
	Rate = 8
	// KeySize is the ACE-AE-128 key size in bytes.
	KeySize = 16
	// NonceSize is the ACE-AE-128 nonce size in bytes.
	NonceSize = 16
	// TagSize is the ACE-AE-128 authentication tag size in bytes.
	TagSize = 16
	// Size is the ACE-H-256 digest size in bytes.
	Size = 32
	// BlockSize is the ACE-H-256 block size in bytes (its rate).
	BlockSize = Rate
)

// roundConstants holds, for each of the 16 steps of the ACE permutation,
// the round constants rc0, rc1, rc2 of the three Simeck boxes (one bit per
// Simeck round, least significant bit first) and the step constants sc0,
// sc1, sc2 (§2.3.2), transcribed from the submission.
var roundConstants = [16][6]uint8{
	{0x07, 0x53, 0x43, 0x50, 0x28, 0x14},
	{0x0a, 0x5d, 0xe4, 0x5c, 0xae, 0x57},
	{0x9b, 0x49, 0x5e, 0x91, 0x48, 0x24},
	{0xe0, 0x7f, 0xcc, 0x8d, 0xc6, 0x63},
	{0xd1, 0xbe, 0x32, 0x53, 0xa9, 0x54},
	{0x1a, 0x1d, 0x4e, 0x60, 0x30, 0x18},
	{0x22, 0x28, 0x75, 0x68, 0x34, 0x9a},
	{0xf7, 0x6c, 0x25, 0xe1, 0x70, 0x38},
	{0x62, 0x82, 0xfd, 0xf6, 0x7b, 0xbd},
	{0x96, 0x47, 0xf9, 0x9d, 0xce, 0x67},
	{0x71, 0x6b, 0x76, 0x40, 0x20, 0x10},
	{0xaa, 0x88, 0xa0, 0x4f, 0x27, 0x13},
	{0x2b, 0xdc, 0xb0, 0xbe, 0x5f, 0x2f},
	{0xe9, 0x8b, 0x09, 0x5b, 0xad, 0xd6},
	{0xcf, 0x59, 0x1e, 0xe9, 0x74, 0xba},
	{0xb7, 0xc6, 0xad, 0x7f, 0x3f, 0x1f},
}

// state is the ACE state as ten 32-bit words: A[0], A[1], B[0], B[1], C[0],
// C[1], D[0], D[1], E[0], E[1], where X[0] is the upper half of the 64-bit
// word X. Byte i of the serialised state is byte i%4 (big-endian) of word
// i/4.
type state [10]uint32

// Indices of the rate words and of the word holding the last state byte.
const (
	rate0  = 0 // A[0], state bytes 0..3
	rate1  = 4 // C[0], state bytes 16..19
	domain = 9 // E[1]; its low byte is state byte 39
)

// f is the Simeck round function (x <<< 5) & x ⊕ (x <<< 1). The Simeck box
// SB-64 (§2.3.1) is eight Simeck-64 rounds on the halves (x, y) where round
// j adds the constant 0xfffffffe ⊕ bit j of the box's round constant in
// place of a round key: y ← y ⊕ f(x) ⊕ const, then the halves swap roles.
func f(x uint32) uint32 {
	return bits.RotateLeft32(x, 5)&x ^ bits.RotateLeft32(x, 1)
}

// permute applies the 16 steps of the ACE permutation (§2.3). The three
// Simeck boxes of a step are independent; their rounds are interleaved so
// the processor can overlap them.
func (s *state) permute() {
	a0, a1, b0, b1, c0, c1, d0, d1, e0, e1 := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9]
	for i := range roundConstants {
		k := &roundConstants[i]
		ra, rc, re := uint32(k[0]), uint32(k[1]), uint32(k[2])
		for range 4 {
			a1 ^= f(a0) ^ 0xfffffffe ^ ra&1
			c1 ^= f(c0) ^ 0xfffffffe ^ rc&1
			e1 ^= f(e0) ^ 0xfffffffe ^ re&1
			a0 ^= f(a1) ^ 0xfffffffe ^ ra>>1&1
			c0 ^= f(c1) ^ 0xfffffffe ^ rc>>1&1
			e0 ^= f(e1) ^ 0xfffffffe ^ re>>1&1
			ra, rc, re = ra>>2, rc>>2, re>>2
		}
		// B ← B ⊕ C ⊕ SC0, D ← D ⊕ E ⊕ SC1, E ← E ⊕ A ⊕ SC2, with
		// SCi = 0xffffffffffffff ‖ sci.
		b0 ^= c0 ^ 0xffffffff
		b1 ^= c1 ^ 0xffffff00 ^ uint32(k[3])
		d0 ^= e0 ^ 0xffffffff
		d1 ^= e1 ^ 0xffffff00 ^ uint32(k[4])
		e0 ^= a0 ^ 0xffffffff
		e1 ^= a1 ^ 0xffffff00 ^ uint32(k[5])
		// π: (A, B, C, D, E) ← (D, C, A, E, B).
		a0, a1, b0, b1, c0, c1, d0, d1, e0, e1 = d0, d1, c0, c1, a0, a1, e0, e1, b0, b1
	}
	s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9] = a0, a1, b0, b1, c0, c1, d0, d1, e0, e1
}

// Permute applies the ACE permutation to s, serialised as A‖B‖C‖D‖E with
// each 64-bit word big-endian (the byte order of the specification and of
// the known-answer tests).
func Permute(s *[StateSize]byte) {
	var w state
	for i := range w {
		w[i] = binary.BigEndian.Uint32(s[4*i:])
	}
	w.permute()
	for i := range w {
		binary.BigEndian.PutUint32(s[4*i:], w[i])
	}
}

// absorb adds the 8-byte block b to the rate.
func (s *state) absorb(b []byte) {
	s[rate0] ^= binary.BigEndian.Uint32(b)
	s[rate1] ^= binary.BigEndian.Uint32(b[4:])
}

// absorbPadded adds the partial block b (len(b) < Rate) padded with 0x80
// and zero bytes to the rate (§2.4.2, §2.5.1).
func (s *state) absorbPadded(b []byte) {
	var p [Rate]byte
	copy(p[:], b)
	p[len(b)] = 0x80
	s.absorb(p[:])
}

// squeeze writes the 8 rate bytes to out.
func (s *state) squeeze(out []byte) {
	binary.BigEndian.PutUint32(out, s[rate0])
	binary.BigEndian.PutUint32(out[4:], s[rate1])
}
