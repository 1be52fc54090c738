// Package wage implements WAGE-AE-128, the authenticated cipher of
// "WAGE: An Authenticated Cipher", the NIST Lightweight Cryptography
// round-2 submission by R. AlTawy, G. Gong, M. He, K. Mandal and
// R. Rohit (2019), and the WAGE permutation it is built on.
//
// The WAGE permutation (the specification's chapter on the permutation) is a
// 37-stage nonlinear feedback shift register over GF(2^7), 259 bits,
// clocked for 111 rounds. Each round mixes the stages through the
// Welch–Gong permutation WGP (x ↦ WG(x^13), two per round), the 7-bit
// S-box SB (four per round), multiplication by ω and two round constants
// from a 7-bit LFSR; see Permute.
//
// WAGE-AE-128 (the specification's chapter on the mode) is a unified
// sponge-duplex over that permutation with a 64-bit rate: the 128-bit key
// and nonce are loaded into the state, which is permuted and then
// absorbs the key again in two 64-bit halves. Associated data and
// plaintext are absorbed 64 bits at a time with the 10*-padding (a 0x80
// byte, always added) and domain bits 1 (data) and 01 (message) in the
// top of stage 0; the ciphertext is the rate after the plaintext block is
// added. The key is absorbed once more and the 128-bit tag is read from
// stages 28..36, 9..17 and two bits of stage 18.
//
// The 64 rate bits lie, most significant first, in stages 8, 9, 15, 16,
// 18, 27, 28, 34 and 35 (7 bits each) and the top bit of stage 36.
//
// The byte-level conventions (loading of key and nonce, packing of the
// tag) follow the submission's reference code as mirrored by
// rweather/lightweight-crypto, whose known-answer file this package
// passes.
//
// kexlab implements WAGE itself because no maintained Go implementation
// exists in the libraries the project allows (the standard library,
// golang.org/x/crypto, filippo.io, circl); WAGE was not selected for
// the LWC final round.
//
// The implementation is constant time: WGP and SB use no secret-indexed
// memory (SB is a bitsliced gate network, WGP is evaluated from bit
// planes held in registers with masks and register shifts), there are no
// secret-dependent branches, and tags are compared with crypto/subtle.
package wage

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"

	"github.com/kexlab/kexlab/wifi/lwc/internal/duplex"
)

const (
	// KeySize is the size of a WAGE-AE-128 key: 128 bits.
	KeySize = 16
	// NonceSize is the size of a WAGE-AE-128 nonce: 128 bits.
	NonceSize = 16
	// TagSize is the size of the authentication tag: 128 bits.
	TagSize = 16
	// Rate is the number of bytes absorbed per permutation call: 64 bits.
	Rate = 8
)

// Domain separation bits, XORed into stage 0 before each permutation.
const (
	domainAD  = 0x40 // associated data
	domainMsg = 0x20 // plaintext / ciphertext
)

// ErrOpen is returned by Open when the ciphertext is not authentic.
var ErrOpen = errors.New("wage: message authentication failed")

// aead is WAGE-AE-128 under a fixed key; the embedded duplex.AEAD provides
// the cipher.AEAD methods over Encrypt and Decrypt.
type aead struct {
	duplex.AEAD
	key [KeySize]byte
}

// New returns WAGE-AE-128 keyed with key, which must be KeySize bytes.
// Seal appends ciphertext || tag to dst. Open returns ErrOpen if the
// ciphertext is not authentic, and then leaves no plaintext in dst's spare
// capacity. Both panic if nonce is not NonceSize bytes, as cipher.AEAD
// requires.
func New(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, errors.New("wage: invalid key size")
	}
	a := new(aead)
	a.AEAD = duplex.AEAD{Cipher: a, ErrOpen: ErrOpen,
		BadNonce: "wage: incorrect nonce length given to WAGE"}
	copy(a.key[:], key)
	return a, nil
}

// Encrypt encrypts plaintext into out and returns the tag.
func (a *aead) Encrypt(out []byte, nonce *[NonceSize]byte, plaintext, ad []byte) [TagSize]byte {
	var s [StateSize]byte
	a.start(&s, nonce, ad)

	var buf [Rate]byte
	for len(plaintext) >= Rate {
		c := rate(&s) ^ binary.BigEndian.Uint64(plaintext)
		setRate(&s, c)
		s[0] ^= domainMsg
		Permute(&s)
		binary.BigEndian.PutUint64(out, c)
		plaintext, out = plaintext[Rate:], out[Rate:]
	}
	n := copy(buf[:], plaintext)
	buf[n] = 0x80
	c := rate(&s) ^ binary.BigEndian.Uint64(buf[:])
	setRate(&s, c)
	s[0] ^= domainMsg
	Permute(&s)
	binary.BigEndian.PutUint64(buf[:], c)
	copy(out, buf[:n])
	return a.finish(&s)
}

// Decrypt decrypts ciphertext (without the tag) into out and returns the
// tag to compare with the received one.
func (a *aead) Decrypt(out []byte, nonce *[NonceSize]byte, ciphertext, ad []byte) [TagSize]byte {
	var s [StateSize]byte
	a.start(&s, nonce, ad)

	var buf [Rate]byte
	for len(ciphertext) >= Rate {
		c := binary.BigEndian.Uint64(ciphertext)
		p := rate(&s) ^ c
		setRate(&s, c)
		s[0] ^= domainMsg
		Permute(&s)
		binary.BigEndian.PutUint64(out, p)
		ciphertext, out = ciphertext[Rate:], out[Rate:]
	}
	// Last, partial block: the plaintext bytes are rate ^ ciphertext; the
	// rate absorbs plaintext || 0x80 || 0... like Encrypt.
	n := copy(buf[:], ciphertext)
	r := rate(&s)
	p := (r ^ binary.BigEndian.Uint64(buf[:])) & ^(^uint64(0) >> (8 * uint(n)))
	setRate(&s, r^p^uint64(0x80)<<(56-8*uint(n)))
	s[0] ^= domainMsg
	Permute(&s)
	binary.BigEndian.PutUint64(buf[:], p)
	copy(out, buf[:n])
	return a.finish(&s)
}

// start loads key and nonce into s, permutes, absorbs the key, and then
// absorbs the padded associated data, if there is any.
func (a *aead) start(s *[StateSize]byte, nonce *[NonceSize]byte, ad []byte) {
	var k, n [19]byte
	cells(&k, a.key[:])
	cells(&n, nonce[:])
	// The key's cells fill stages 0..8 (even cells) and 19..27 (odd
	// cells), the nonce's stages 28..36 (even) and 9..17 (odd, with the
	// last two swapped); stage 18 takes the four leftover bits.
	for i := range 9 {
		s[i] = k[2*i]
		s[19+i] = k[2*i+1]
		s[28+i] = n[2*i]
		s[9+i] = n[2*i+1]
	}
	s[16], s[17] = s[17], s[16]
	s[18] = k[18] | n[18]>>2
	Permute(s)
	a.absorbKey(s)

	if len(ad) == 0 {
		return
	}
	for len(ad) >= Rate {
		setRate(s, rate(s)^binary.BigEndian.Uint64(ad))
		s[0] ^= domainAD
		Permute(s)
		ad = ad[Rate:]
	}
	var buf [Rate]byte
	buf[copy(buf[:], ad)] = 0x80
	setRate(s, rate(s)^binary.BigEndian.Uint64(buf[:]))
	s[0] ^= domainAD
	Permute(s)
}

// absorbKey adds the key to the rate in two 64-bit halves, permuting after
// each (no domain bits).
func (a *aead) absorbKey(s *[StateSize]byte) {
	for i := 0; i < KeySize; i += Rate {
		setRate(s, rate(s)^binary.BigEndian.Uint64(a.key[i:]))
		Permute(s)
	}
}

// finish absorbs the key once more and returns the tag: the 126 bits of
// stages 28, 9, 29, 10, ..., 36, 17 (alternating), then bits 4 and 3 of
// stage 18, most significant first.
func (a *aead) finish(s *[StateSize]byte) (tag [TagSize]byte) {
	a.absorbKey(s)
	var hi, lo uint64 // 128-bit accumulator
	for i := range 9 {
		for _, c := range [2]byte{s[28+i], s[9+i]} {
			hi = hi<<7 | lo>>57
			lo = lo<<7 | uint64(c&0x7f)
		}
	}
	hi = hi<<2 | lo>>62
	lo = lo<<2 | uint64(s[18]>>3&3)
	binary.BigEndian.PutUint64(tag[0:], hi)
	binary.BigEndian.PutUint64(tag[8:], lo)
	return tag
}

// cells splits a 128-bit value into the 19 components the specification
// loads: cells 0..8 are the first 63 bits and cells 9..17 the 63 bits
// after bit 64, in 7-bit groups; cell 18 holds bit 63 in its bit 6 and
// bit 127 in its bit 5.
func cells(c *[19]byte, b []byte) {
	hi := binary.BigEndian.Uint64(b)
	lo := binary.BigEndian.Uint64(b[8:])
	for i := range 9 {
		c[i] = byte(hi>>(57-7*i)) & 0x7f
		c[9+i] = byte(lo>>(57-7*i)) & 0x7f
	}
	c[18] = byte(hi&1)<<6 | byte(lo&1)<<5
}

// rate reads the 64 rate bits of s as a big-endian word.
func rate(s *[StateSize]byte) uint64 {
	return uint64(s[8])<<57 | uint64(s[9])<<50 | uint64(s[15])<<43 |
		uint64(s[16])<<36 | uint64(s[18])<<29 | uint64(s[27])<<22 |
		uint64(s[28])<<15 | uint64(s[34])<<8 | uint64(s[35])<<1 |
		uint64(s[36]>>6)
}

// setRate overwrites the 64 rate bits of s with v; the low 6 bits of
// stage 36 are kept.
func setRate(s *[StateSize]byte, v uint64) {
	s[8] = byte(v>>57) & 0x7f
	s[9] = byte(v>>50) & 0x7f
	s[15] = byte(v>>43) & 0x7f
	s[16] = byte(v>>36) & 0x7f
	s[18] = byte(v>>29) & 0x7f
	s[27] = byte(v>>22) & 0x7f
	s[28] = byte(v>>15) & 0x7f
	s[34] = byte(v>>8) & 0x7f
	s[35] = byte(v>>1) & 0x7f
	s[36] = s[36]&0x3f | byte(v&1)<<6
}
