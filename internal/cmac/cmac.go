// Package cmac implements CMAC with AES, the block-cipher MAC of NIST
// SP 800-38B (May 2005, updated 2016), which RFC 4493 specifies for
// AES-128 as AES-CMAC and which is the same algorithm as OMAC1.
//
// Neither the standard library nor the project's dependencies
// (golang.org/x/crypto, cloudflare/circl) export a CMAC, so kexlab has its
// own: PACE uses it for the authentication tokens (ICAO Doc 9303-11 §9.4,
// AES-CMAC truncated to 8 bytes) and 802.11 for the AES-128-CMAC MIC.
//
// The key is an AES key of 16, 24 or 32 bytes. Subkeys follow SP 800-38B
// §6.1 (RFC 4493 §2.3): L = AES(K, 0^128), K1 = dbl(L), K2 = dbl(K1),
// where dbl shifts left by one bit and, if the bit shifted out was 1, XORs
// the constant R_128 = 0^120 || 10000111 into the last byte. The MAC is the
// CBC-MAC of the message whose last block is XORed with K1 if it is
// complete, or padded with 10* and XORed with K2 if it is not (or if the
// message is empty) (SP 800-38B §6.2, RFC 4493 §2.4). Everything that
// depends on the key or the message is constant time; only the message
// length is public.
package cmac

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"fmt"
)

// Size is the length of a full CMAC tag, one AES block.
const Size = aes.BlockSize

// BlockSize is the AES block size, the unit in which CMAC consumes input.
const BlockSize = aes.BlockSize

// MinTagSize is the shortest tag Verify accepts: SP 800-38B Appendix A
// recommends at least 64 bits for general use.
const MinTagSize = 8

// MAC is a running CMAC computation. It implements hash.Hash. The zero
// value is not usable; create one with New.
type MAC struct {
	b      cipher.Block
	k1, k2 [BlockSize]byte
	x      [BlockSize]byte // CBC-MAC chaining value
	buf    [BlockSize]byte // pending input: up to one whole block
	n      int             // bytes in buf
}

// New returns a CMAC keyed with the AES key key (16, 24 or 32 bytes).
func New(key []byte) (*MAC, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("cmac: %w", err)
	}
	m := &MAC{b: b}
	// L = AES(K, 0^128); K1 = dbl(L); K2 = dbl(K1) (SP 800-38B §6.1).
	var l [BlockSize]byte
	b.Encrypt(l[:], l[:])
	m.k1 = dbl(l)
	m.k2 = dbl(m.k1)
	return m, nil
}

// dbl multiplies a block by x in GF(2^128) with the polynomial of R_128:
// a one-bit left shift, then an XOR of 0x87 into the last byte if the
// bit shifted out was set. It is constant time.
func dbl(in [BlockSize]byte) [BlockSize]byte {
	var out [BlockSize]byte
	carry := in[0] >> 7
	for i := 0; i < BlockSize-1; i++ {
		out[i] = in[i]<<1 | in[i+1]>>7
	}
	out[BlockSize-1] = in[BlockSize-1]<<1 ^ (0x87 & -carry)
	return out
}

// Write adds p to the message. It never returns an error.
func (m *MAC) Write(p []byte) (int, error) {
	n := len(p)
	// A full buffer is processed only once more input arrives, because the
	// last block (complete or not) is treated differently.
	for len(p) > 0 {
		if m.n == BlockSize {
			subtle.XORBytes(m.x[:], m.x[:], m.buf[:])
			m.b.Encrypt(m.x[:], m.x[:])
			m.n = 0
		}
		c := copy(m.buf[m.n:], p)
		m.n += c
		p = p[c:]
	}
	return n, nil
}

// Sum appends the 16-byte tag of the message written so far to b. It does
// not change the running state.
func (m *MAC) Sum(b []byte) []byte {
	last := m.buf
	if m.n == BlockSize {
		subtle.XORBytes(last[:], last[:], m.k1[:])
	} else {
		clear(last[m.n:])
		last[m.n] = 0x80
		subtle.XORBytes(last[:], last[:], m.k2[:])
	}
	var t [BlockSize]byte
	subtle.XORBytes(t[:], m.x[:], last[:])
	m.b.Encrypt(t[:], t[:])
	return append(b, t[:]...)
}

// Reset forgets the message, keeping the key.
func (m *MAC) Reset() {
	clear(m.x[:])
	clear(m.buf[:])
	m.n = 0
}

// Size returns the tag length, 16.
func (m *MAC) Size() int { return Size }

// BlockSize returns the AES block size, 16.
func (m *MAC) BlockSize() int { return BlockSize }

// Sum returns the 16-byte CMAC of msg under the AES key key.
func Sum(key, msg []byte) ([Size]byte, error) {
	var t [Size]byte
	m, err := New(key)
	if err != nil {
		return t, err
	}
	m.Write(msg)
	m.Sum(t[:0])
	return t, nil
}

// Verify reports, in constant time, whether tag is the CMAC of msg under
// key or its truncation to len(tag) bytes (its leftmost bytes, SP 800-38B
// §6.2 step 7). A tag shorter than MinTagSize or longer than Size, and an
// invalid key, are never valid.
func Verify(key, msg, tag []byte) bool {
	if len(tag) < MinTagSize || len(tag) > Size {
		return false
	}
	t, err := Sum(key, msg)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare(t[:len(tag)], tag) == 1
}
