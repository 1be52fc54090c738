package ascon

import (
	"crypto/cipher"
	"crypto/subtle"
	"errors"
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// ErrOpen is returned by Open when the ciphertext is shorter than a tag or
// the tag does not verify.
var ErrOpen = errors.New("ascon: message authentication failed")

// aead is Ascon-AEAD128 under one key K = K0 ∥ K1 (two little-endian words).
type aead struct {
	k0, k1 uint64
}

// New returns Ascon-AEAD128 (SP 800-232 §4) under the 16-byte key. The
// result seals a plaintext P with a 16-byte nonce N and associated data A
// into C ∥ T: the ciphertext C, len(P) bytes, followed by the 16-byte tag T.
// A key of any other length is an error wrapping
// pakeerr.ErrInvalidParameter.
//
// As SP 800-232 requires, a nonce must never be used twice under one key.
func New(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("%w: ascon: key is %d bytes, want %d",
			pakeerr.ErrInvalidParameter, len(key), KeySize)
	}
	return &aead{k0: load64(key[0:8]), k1: load64(key[8:16])}, nil
}

func (a *aead) NonceSize() int { return NonceSize }
func (a *aead) Overhead() int  { return TagSize }

// Seal appends C ∥ T to dst and returns the result (§4.1.1). It panics only
// if the nonce is not NonceSize bytes long, as every cipher.AEAD does. To
// encrypt in place use plaintext[:0] as dst; as cipher.AEAD documents, the
// rest of dst's capacity must not otherwise overlap plaintext.
func (a *aead) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	if len(nonce) != NonceSize {
		panic("ascon: incorrect nonce length given to Ascon-AEAD128")
	}
	ret, out := sliceForAppend(dst, len(plaintext)+TagSize)
	s := a.start(nonce, additionalData)
	s.encrypt(out[:len(plaintext)], plaintext)
	t0, t1 := a.finish(&s)
	store64(out[len(plaintext):], t0)
	store64(out[len(plaintext)+8:], t1)
	return ret
}

// Open authenticates and decrypts C ∥ T, appending the plaintext to dst
// (§4.1.2). A ciphertext shorter than TagSize or a tag that does not verify
// gives ErrOpen, and then nothing is appended and the bytes decrypted into
// dst's capacity are zeroed before returning: no unauthenticated plaintext
// is released. The tag is compared in constant time. It panics only if the
// nonce is not NonceSize bytes long. To decrypt in place use
// ciphertext[:0] as dst.
func (a *aead) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	if len(nonce) != NonceSize {
		panic("ascon: incorrect nonce length given to Ascon-AEAD128")
	}
	if len(ciphertext) < TagSize {
		return nil, ErrOpen
	}
	n := len(ciphertext) - TagSize
	var tag [TagSize]byte
	copy(tag[:], ciphertext[n:])
	ret, out := sliceForAppend(dst, n)
	s := a.start(nonce, additionalData)
	s.decrypt(out, ciphertext[:n])
	t0, t1 := a.finish(&s)
	var want [TagSize]byte
	store64(want[0:8], t0)
	store64(want[8:16], t1)
	if subtle.ConstantTimeCompare(want[:], tag[:]) != 1 {
		clear(out)
		return nil, ErrOpen
	}
	return ret, nil
}

// start runs the initialization (S = Ascon-p[12](IV ∥ K ∥ N) ⊕ (0^192 ∥ K))
// and absorbs the associated data: each padded 128-bit block A_i is XORed
// into S0 ∥ S1 and followed by Ascon-p[8]; empty A is not padded or
// absorbed. Last comes the domain separation S ⊕= 0^319 ∥ 1 (§4.1.1).
func (a *aead) start(nonce, ad []byte) state {
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
// and returns the tag T = (S3 ∥ S4) ⊕ K as two words (§4.1.1).
func (a *aead) finish(s *state) (t0, t1 uint64) {
	s[2] ^= a.k0
	s[3] ^= a.k1
	s.rounds(12)
	return s[3] ^ a.k0, s[4] ^ a.k1
}

// sliceForAppend takes a slice and a requested number of bytes. It returns a
// slice with the contents of the given slice followed by that many bytes and
// a second slice that aliases into it and contains only the extra bytes.
func sliceForAppend(in []byte, n int) (head, tail []byte) {
	if total := len(in) + n; cap(in) >= total {
		head = in[:total]
	} else {
		head = make([]byte, total)
		copy(head, in)
	}
	tail = head[len(in):]
	return
}
