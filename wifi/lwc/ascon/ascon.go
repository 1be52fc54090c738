// Package ascon implements the Ascon family of NIST SP 800-232 (final,
// August 2025), "Ascon-Based Lightweight Cryptography Standards for
// Constrained Devices":
//
//   - Ascon-AEAD128 (SP 800-232 §4), a nonce-based AEAD with a 128-bit key,
//     nonce and tag, as a crypto/cipher.AEAD ([New]);
//   - Ascon-Hash256 (§5.1), a 256-bit hash ([Sum256], [NewHash256]);
//   - Ascon-XOF128 (§5.2) and Ascon-CXOF128 (§5.3), extendable-output
//     functions, the latter with a customization string ([NewXOF128],
//     [NewCXOF128]);
//   - the Ascon permutation Ascon-p[12] itself (§3), as [Permute].
//
// All of them run the duplex/sponge over one 320-bit state of five 64-bit
// words S0..S4. SP 800-232 is little-endian (§2, §3.1): state byte 8i+j is
// byte j of word Si counted from the least significant end, message bytes are
// loaded into words the same way, and padding appends the bit 1 just after the
// last byte (the byte 0x01). The Ascon v1.2 submission used big-endian words
// and other initial values, so results do not match Ascon-128a or Ascon-Hash
// v1.2.
//
// kexlab implements Ascon itself because none of the libraries that
// kexlab's design allows (the Go standard library, golang.org/x/crypto,
// filippo.io, cloudflare/circl) provides Ascon; this package exists as the
// modern reference point for the lightweight-cipher WiFi handshake
// experiments in package wifi/lwc.
//
// Everything is constant time: the permutation is the bitsliced form of
// §3.3–3.4 (only XOR, AND-NOT and rotations of 64-bit words), and the only
// branches and indices depend on public lengths.
package ascon

import (
	"encoding/binary"
	"math/bits"
)

const (
	// KeySize is the Ascon-AEAD128 key size in bytes (128 bits, §4).
	KeySize = 16
	// NonceSize is the Ascon-AEAD128 nonce size in bytes (128 bits, §4).
	NonceSize = 16
	// TagSize is the Ascon-AEAD128 tag size in bytes (128 bits, §4).
	TagSize = 16
	// StateSize is the size of the permutation state in bytes (320 bits, §3.1).
	StateSize = 40
	// Rate is the number of bytes Ascon-AEAD128 absorbs per permutation call
	// (r = 128 bits, §4.1), each followed by Ascon-p[8].
	Rate = 16
	// HashRate is the rate of Ascon-Hash256, Ascon-XOF128 and Ascon-CXOF128
	// in bytes (r = 64 bits, §5), each block followed by Ascon-p[12].
	HashRate = 8
)

// Initial values, the first state word of each algorithm (SP 800-232 §4.1.1
// for Ascon-AEAD128, §5.1–5.3 for the hash functions). Each encodes the
// algorithm number, the round numbers a and b, the rate and the output
// length.
const (
	ivAEAD128  = 0x00001000808c0001
	ivHash256  = 0x0000080100cc0002
	ivXOF128   = 0x0000080000cc0003
	ivCXOF128  = 0x0000080000cc0004
	domainSepA = 1 << 63 // S ⊕= 0^319 ∥ 1 after the associated data (§4.1.1)
)

// roundConstants are c0..c15 of SP 800-232 Table 5. Ascon-p[rnd] uses the
// last rnd of them: round i (0 ≤ i < rnd) adds c(16−rnd+i) to S2 (§3.2).
var roundConstants = [16]uint64{
	0x3c, 0x2d, 0x1e, 0x0f, 0xf0, 0xe1, 0xd2, 0xc3,
	0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b,
}

// state is the 320-bit Ascon state S = S0 ∥ S1 ∥ S2 ∥ S3 ∥ S4 (§3.1).
type state [5]uint64

// rounds applies Ascon-p[n] (1 ≤ n ≤ 16; this package uses 8 and 12): n
// rounds of constant addition pC (§3.2), the substitution layer pS (the
// 5-bit S-box of Table 6 in its bitsliced form, §3.3) and the linear
// diffusion layer pL (§3.4, Eq. 3.2–3.6).
func (s *state) rounds(n int) {
	x0, x1, x2, x3, x4 := s[0], s[1], s[2], s[3], s[4]
	for _, c := range roundConstants[len(roundConstants)-n:] {
		// pC
		x2 ^= c
		// pS: the S-box applied to each of the 64 bit columns.
		x0 ^= x4
		x4 ^= x3
		x2 ^= x1
		t0 := x1 &^ x0
		t1 := x2 &^ x1
		t2 := x3 &^ x2
		t3 := x4 &^ x3
		t4 := x0 &^ x4
		x0 ^= t1
		x1 ^= t2
		x2 ^= t3
		x3 ^= t4
		x4 ^= t0
		x1 ^= x0
		x0 ^= x4
		x3 ^= x2
		x2 = ^x2
		// pL: Si ⊕= (Si ⋙ a) ⊕ (Si ⋙ b).
		x0 ^= bits.RotateLeft64(x0, -19) ^ bits.RotateLeft64(x0, -28)
		x1 ^= bits.RotateLeft64(x1, -61) ^ bits.RotateLeft64(x1, -39)
		x2 ^= bits.RotateLeft64(x2, -1) ^ bits.RotateLeft64(x2, -6)
		x3 ^= bits.RotateLeft64(x3, -10) ^ bits.RotateLeft64(x3, -17)
		x4 ^= bits.RotateLeft64(x4, -7) ^ bits.RotateLeft64(x4, -41)
	}
	s[0], s[1], s[2], s[3], s[4] = x0, x1, x2, x3, x4
}

// Permute applies Ascon-p[12] (SP 800-232 §3) to the 40-byte state s in the
// standard's byte order: bytes 8i..8i+7 are the word Si, little-endian.
func Permute(s *[StateSize]byte) {
	var st state
	for i := range st {
		st[i] = binary.LittleEndian.Uint64(s[8*i:])
	}
	st.rounds(12)
	for i := range st {
		binary.LittleEndian.PutUint64(s[8*i:], st[i])
	}
}

// load64 reads the 8-byte block b as a little-endian word.
func load64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// store64 writes w into the 8-byte block b, little-endian.
func store64(b []byte, w uint64) { binary.LittleEndian.PutUint64(b, w) }

// loadPartial reads len(b) < 8 bytes as the low bytes of a little-endian
// word; the other bytes are zero.
func loadPartial(b []byte) uint64 {
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
	}
	return w
}

// storePartial writes the len(b) < 8 low bytes of w into b, little-endian.
func storePartial(b []byte, w uint64) {
	for i := range b {
		b[i] = byte(w >> (8 * i))
	}
}

// pad is the padding of a block holding n < 8 bytes of data in its word:
// the bit 1 right after the data (pad(X, r) = X ∥ 1 ∥ 0^j of SP 800-232 §2,
// which is the byte 0x01 at offset n in little-endian order).
func pad(n int) uint64 { return 1 << (8 * uint(n)) }
