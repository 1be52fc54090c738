package ascon

import (
	"crypto/cipher"
	"errors"
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi/lwc/internal/duplex"
)

// ErrOpen is returned by Open when the ciphertext is shorter than a tag or
// the tag does not verify.
var ErrOpen = errors.New("ascon: message authentication failed")

// aead is Ascon-AEAD128 under one key K = K0 ∥ K1 (two little-endian
// words); the embedded duplex.AEAD provides the cipher.AEAD methods over
// Encrypt and Decrypt.
type aead struct {
	duplex.AEAD
	k0, k1 uint64
}

// New returns Ascon-AEAD128 (SP 800-232 §4) under the 16-byte key. The
// result seals a plaintext P with a 16-byte nonce N and associated data A
// into C ∥ T: the ciphertext C, len(P) bytes, followed by the 16-byte tag T
// (§4.1.1). Open (§4.1.2) gives ErrOpen for a ciphertext shorter than
// TagSize or a tag that does not verify (compared in constant time), and
// then nothing is appended and the bytes decrypted into dst's capacity are
// zeroed: no unauthenticated plaintext is released. Seal and Open panic
// only if the nonce is not NonceSize bytes long, as every cipher.AEAD does;
// to encrypt or decrypt in place use the input's [:0] as dst. A key of any
// other length is an error wrapping pakeerr.ErrInvalidParameter.
//
// As SP 800-232 requires, a nonce must never be used twice under one key.
func New(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("%w: ascon: key is %d bytes, want %d",
			pakeerr.ErrInvalidParameter, len(key), KeySize)
	}
	a := &aead{k0: load64(key[0:8]), k1: load64(key[8:16])}
	a.AEAD = duplex.AEAD{Cipher: a, ErrOpen: ErrOpen,
		BadNonce: "ascon: incorrect nonce length given to Ascon-AEAD128"}
	return a, nil
}

// Encrypt computes C and T (§4.1.1): start, encrypt, finish.
func (a *aead) Encrypt(out []byte, nonce *[NonceSize]byte, plaintext, ad []byte) [TagSize]byte {
	s := a.start(nonce, ad)
	s.encrypt(out, plaintext)
	return a.finish(&s)
}

// Decrypt computes P and the expected tag T (§4.1.2): start, decrypt,
// finish.
func (a *aead) Decrypt(out []byte, nonce *[NonceSize]byte, ciphertext, ad []byte) [TagSize]byte {
	s := a.start(nonce, ad)
	s.decrypt(out, ciphertext)
	return a.finish(&s)
}

// start runs the initialization (S = Ascon-p[12](IV ∥ K ∥ N) ⊕ (0^192 ∥ K))
// and absorbs the associated data: each padded 128-bit block A_i is XORed
// into S0 ∥ S1 and followed by Ascon-p[8]; empty A is not padded or
// absorbed. Last comes the domain separation S ⊕= 0^319 ∥ 1 (§4.1.1).
func (a *aead) start(nonce *[NonceSize]byte, ad []byte) state {
	s := state{ivAEAD128, a.k0, a.k1, load64(nonce[0:8]), load64(nonce[8:16])}
	s.rounds(12)
	s[3] ^= a.k0
	s[4] ^= a.k1
	if len(ad) > 0 {
		for len(ad) >= Rate {
			s[0] ^= load64(ad[0:8])
			s[1] ^= load64(ad[8:16])
			s.rounds(8)
			ad = ad[Rate:]
		}
		if len(ad) >= 8 {
			s[0] ^= load64(ad[0:8])
			s[1] ^= loadPartial(ad[8:]) ^ pad(len(ad)-8)
		} else {
			s[0] ^= loadPartial(ad) ^ pad(len(ad))
		}
		s.rounds(8)
	}
	s[4] ^= domainSepA
	return s
}

// encrypt absorbs the plaintext in and writes the ciphertext to out
// (len(out) == len(in)): per 128-bit block, S0 ∥ S1 ⊕= P_i and C_i = S0 ∥ S1,
// then Ascon-p[8] for every full block. The last block, of 0 to 15 bytes,
// is padded and its ciphertext truncated; no permutation follows it. Each
// block is read before its output is written, so out may equal in.
func (s *state) encrypt(out, in []byte) {
	for len(in) >= Rate {
		s[0] ^= load64(in[0:8])
		s[1] ^= load64(in[8:16])
		store64(out[0:8], s[0])
		store64(out[8:16], s[1])
		s.rounds(8)
		in, out = in[Rate:], out[Rate:]
	}
	if len(in) >= 8 {
		s[0] ^= load64(in[0:8])
		store64(out[0:8], s[0])
		s[1] ^= loadPartial(in[8:])
		storePartial(out[8:], s[1])
		s[1] ^= pad(len(in) - 8)
	} else {
		s[0] ^= loadPartial(in)
		storePartial(out, s[0])
		s[0] ^= pad(len(in))
	}
}

// decrypt is the inverse of encrypt (§4.1.2): P_i = S0 ∥ S1 ⊕ C_i and the
// rate part of the state becomes C_i. For the last partial block of l bytes,
// the first l state bytes become C and the padding bit is XORed after them.
func (s *state) decrypt(out, in []byte) {
	for len(in) >= Rate {
		c0, c1 := load64(in[0:8]), load64(in[8:16])
		store64(out[0:8], s[0]^c0)
		store64(out[8:16], s[1]^c1)
		s[0], s[1] = c0, c1
		s.rounds(8)
		in, out = in[Rate:], out[Rate:]
	}
	w := &s[0]
	if len(in) >= 8 {
		c0 := load64(in[0:8])
		store64(out[0:8], s[0]^c0)
		s[0] = c0
		in, out, w = in[8:], out[8:], &s[1]
	}
	// p holds the l = len(in) < 8 plaintext bytes in its low bytes, so
	// w ⊕ p has C̃ in its low bytes and the untouched state above.
	mask := pad(len(in)) - 1
	p := (*w ^ loadPartial(in)) & mask
	storePartial(out, p)
	*w ^= p ^ pad(len(in))
}

// finish runs the finalization: S ⊕= 0^128 ∥ K ∥ 0^64, S = Ascon-p[12](S),
// and returns the tag T = (S3 ∥ S4) ⊕ K (§4.1.1).
func (a *aead) finish(s *state) (tag [TagSize]byte) {
	s[2] ^= a.k0
	s[3] ^= a.k1
	s.rounds(12)
	store64(tag[0:8], s[3]^a.k0)
	store64(tag[8:16], s[4]^a.k1)
	return tag
}
