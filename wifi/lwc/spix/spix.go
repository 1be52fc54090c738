// Package spix implements SPIX-AE-128 (Spix), the authenticated cipher of
// AlTawy, Gong, He, Jha, Mandal, Nandi and Rohit submitted to the NIST
// Lightweight Cryptography standardization process ("Spix: An Authenticated
// Cipher, Submission to the NIST LWC Competition", round 2, September 2019).
//
// Spix is a monkeyDuplex construction over the 256-bit sLiSCP-light
// permutation (specification §2), whose steps apply two 8-round Simeck-64
// boxes to a Type-II generalized Feistel state of four 64-bit subblocks.
// The AEAD mode (§2.2) uses a 64-bit rate, which is bytes 8..11 and 24..27 of
// the state (the first halves of subblocks 1 and 3), and works as follows:
//
//   - Initialization: the state is N[0:8] || K[0:8] || N[8:16] || K[8:16];
//     after the full 18-step permutation the key is absorbed into the rate in
//     two 64-bit halves, each followed by the full permutation.
//   - Associated data (§2.2.4), only when non-empty: 64-bit blocks padded
//     with 0x80 (10*), each absorbed with domain separator 0x01 XORed into the
//     last state byte, followed by the 9-step permutation.
//   - Plaintext: the same with domain separator 0x02; the ciphertext block is
//     the rate after absorbing the plaintext block (the padded last block is
//     always processed, even when empty).
//   - Finalization: the key is absorbed again as at initialization and the
//     128-bit tag is the concatenation of state bytes 8..15 and 24..31.
//
// The byte order and rate positions follow the submission's reference code
// and the round-2 known-answer tests (checked against all 1089 of them).
//
// kexlab implements Spix itself because no maintained Go implementation
// exists in the libraries its design allows (the standard library,
// golang.org/x/crypto, filippo.io, cloudflare/circl); it is needed to rebuild
// the lightweight 802.11 4-way handshake study (package wifi/lwc).
package spix

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"reflect"

	"github.com/kexlab/kexlab/wifi/lwc/internal/duplex"
)

// Sizes of SPIX-AE-128 (specification §2.2).
const (
	KeySize   = 16 // 128-bit key
	NonceSize = 16 // 128-bit nonce
	TagSize   = 16 // 128-bit tag
	Rate      = 8  // 64-bit rate: bytes absorbed per permutation call
)

// Domain separators XORed into the last state byte (specification §2.2).
const (
	domainAD      = 0x01
	domainMessage = 0x02
)

// ErrOpen is returned by Open when the ciphertext is too short or its tag
// does not verify.
var ErrOpen = errors.New("spix: message authentication failed")

// aead is SPIX-AE-128 under a fixed key; the embedded duplex.AEAD provides
// the cipher.AEAD methods over Encrypt and Decrypt.
type aead struct {
	duplex.AEAD
	key [4]uint32 // the key as big-endian 32-bit words
}

// New returns SPIX-AE-128 keyed with the 16-byte key. Seal appends the
// ciphertext followed by the 16-byte tag to dst; Open returns ErrOpen if
// the ciphertext is too short or its tag does not verify, and then dst's
// spare capacity holds no plaintext. Both panic only if the nonce is not
// NonceSize bytes long.
func New(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, errors.New("spix: key must be 16 bytes")
	}
	a := new(aead)
	a.AEAD = duplex.AEAD{Cipher: a, ErrOpen: ErrOpen,
		BadNonce: "spix: incorrect nonce length given to SPIX"}
	for i := range a.key {
		a.key[i] = binary.BigEndian.Uint32(key[4*i:])
	}
	return a, nil
}

// absorbKey XORs the key into the rate in two halves, each followed by the
// full permutation (initialization and finalization, §2.2).
func (a *aead) absorbKey(s *state) {
	s[2] ^= a.key[0]
	s[6] ^= a.key[1]
	s.permute(fullSteps)
	s[2] ^= a.key[2]
	s[6] ^= a.key[3]
	s.permute(fullSteps)
}

// rate returns the eight rate bytes of s as a big-endian integer.
func (s *state) rate() uint64 { return uint64(s[2])<<32 | uint64(s[6]) }

// setRate replaces the rate bytes of s.
func (s *state) setRate(r uint64) { s[2], s[6] = uint32(r>>32), uint32(r) }

// loadPartial returns the n < Rate bytes of b as the top bytes of a
// big-endian integer, followed by the 10* padding byte 0x80.
func loadPartial(b []byte) uint64 {
	var buf [Rate]byte
	n := copy(buf[:], b)
	buf[n] = 0x80
	return binary.BigEndian.Uint64(buf[:])
}

// start initializes the state with the key and nonce and absorbs ad.
func (a *aead) start(nonce *[NonceSize]byte, ad []byte) state {
	var s state
	s[0] = binary.BigEndian.Uint32(nonce[0:])
	s[1] = binary.BigEndian.Uint32(nonce[4:])
	s[2], s[3] = a.key[0], a.key[1]
	s[4] = binary.BigEndian.Uint32(nonce[8:])
	s[5] = binary.BigEndian.Uint32(nonce[12:])
	s[6], s[7] = a.key[2], a.key[3]
	s.permute(fullSteps)
	a.absorbKey(&s)
	if len(ad) == 0 {
		return s
	}
	for len(ad) >= Rate {
		s.setRate(s.rate() ^ binary.BigEndian.Uint64(ad))
		s[7] ^= domainAD
		s.permute(reducedSteps)
		ad = ad[Rate:]
	}
	s.setRate(s.rate() ^ loadPartial(ad))
	s[7] ^= domainAD
	s.permute(reducedSteps)
	return s
}

// finish absorbs the key again and returns the tag.
func (a *aead) finish(s *state) (tag [TagSize]byte) {
	a.absorbKey(s)
	binary.BigEndian.PutUint32(tag[0:], s[2])
	binary.BigEndian.PutUint32(tag[4:], s[3])
	binary.BigEndian.PutUint32(tag[8:], s[6])
	binary.BigEndian.PutUint32(tag[12:], s[7])
	return tag
}

// Encrypt encrypts plaintext into out and returns the tag.
func (a *aead) Encrypt(out []byte, nonce *[NonceSize]byte, plaintext, ad []byte) [TagSize]byte {
	if inexactOverlap(out, plaintext) {
		plaintext = append([]byte(nil), plaintext...)
	}
	s := a.start(nonce, ad)
	m, c := plaintext, out
	for len(m) >= Rate {
		r := s.rate() ^ binary.BigEndian.Uint64(m)
		binary.BigEndian.PutUint64(c, r)
		s.setRate(r)
		s[7] ^= domainMessage
		s.permute(reducedSteps)
		m, c = m[Rate:], c[Rate:]
	}
	r := s.rate() ^ loadPartial(m)
	var last [Rate]byte
	binary.BigEndian.PutUint64(last[:], r)
	copy(c, last[:len(m)])
	s.setRate(r)
	s[7] ^= domainMessage
	s.permute(reducedSteps)
	return a.finish(&s)
}

// Decrypt decrypts ciphertext (without the tag) into out and returns the
// tag to compare with the received one.
func (a *aead) Decrypt(out []byte, nonce *[NonceSize]byte, ciphertext, ad []byte) [TagSize]byte {
	if inexactOverlap(out, ciphertext) {
		ciphertext = append([]byte(nil), ciphertext...)
	}
	s := a.start(nonce, ad)
	c, m := ciphertext, out
	for len(c) >= Rate {
		cb := binary.BigEndian.Uint64(c)
		binary.BigEndian.PutUint64(m, s.rate()^cb)
		s.setRate(cb)
		s[7] ^= domainMessage
		s.permute(reducedSteps)
		c, m = c[Rate:], m[Rate:]
	}
	// The last block: the rate's first len(c) bytes become the ciphertext
	// bytes, the padding byte 0x80 is XORed in at position len(c).
	n := len(c)
	cb := loadPartial(c)          // ciphertext bytes, 0x80, zeros
	keep := ^uint64(0) >> (8 * n) // rate bytes n..7 (n < 8)
	var last [Rate]byte
	binary.BigEndian.PutUint64(last[:], s.rate()^cb)
	copy(m, last[:n])
	s.setRate(cb&^keep | (s.rate()^cb)&keep)
	s[7] ^= domainMessage
	s.permute(reducedSteps)
	return a.finish(&s)
}

// inexactOverlap reports whether x and y share memory at different
// offsets, which the cipher.AEAD contract forbids; Encrypt and Decrypt then work
// on a copy of their input instead of panicking. The addresses come from
// reflect, as this package does not use unsafe; taking them from pointers
// to the first elements, not from the slices, keeps this allocation-free.
func inexactOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	px, py := reflect.ValueOf(&x[0]).Pointer(), reflect.ValueOf(&y[0]).Pointer()
	if px == py {
		return false
	}
	return px < py+uintptr(len(y)) && py < px+uintptr(len(x))
}
