// Package duplex holds the cipher.AEAD framing that the lightweight AEADs
// of wifi/lwc (ACE-AE-128, SPIX-AE-128, WAGE-AE-128 and Ascon-AEAD128)
// share, written once: the nonce-length check, appending to dst as
// cipher.AEAD documents, splitting off and comparing the tag in constant
// time, and releasing no plaintext when Open fails.
//
// All four ciphers are duplex constructions with 128-bit nonces and tags.
// A cipher package implements [Cipher] — the keyed duplex run over one
// message — and embeds an [AEAD] in the same value, so the result of its
// New is a cipher.AEAD in a single allocation.
package duplex

import "crypto/subtle"

// NonceSize and TagSize are the nonce and tag sizes, in bytes, of every
// cipher built on this package (128 bits each).
const (
	NonceSize = 16
	TagSize   = 16
)

// Cipher is the part of an AEAD that differs between the ciphers: the
// duplex run over one message under the key the implementation holds.
type Cipher interface {
	// Encrypt initializes the state with the key and nonce, absorbs ad,
	// writes the ciphertext of plaintext to out and returns the tag.
	// len(out) == len(plaintext), and out may be plaintext itself.
	Encrypt(out []byte, nonce *[NonceSize]byte, plaintext, ad []byte) [TagSize]byte

	// Decrypt is the inverse of Encrypt: it writes the candidate plaintext
	// of ciphertext to out and returns the tag that Encrypt gives for that
	// plaintext. len(out) == len(ciphertext), and out may be ciphertext
	// itself. The caller releases out only if the tag is the one received.
	Decrypt(out []byte, nonce *[NonceSize]byte, ciphertext, ad []byte) [TagSize]byte
}

// AEAD implements cipher.AEAD (NonceSize, Overhead, Seal and Open) over
// Cipher. A cipher package embeds it in the value that implements Cipher
// and sets Cipher to that value.
type AEAD struct {
	Cipher Cipher
	// ErrOpen is what Open returns when the ciphertext is shorter than a
	// tag or its tag does not verify.
	ErrOpen error
	// BadNonce is the panic message of Seal and Open for a nonce that is
	// not NonceSize bytes long.
	BadNonce string
}

// NonceSize returns NonceSize.
func (*AEAD) NonceSize() int { return NonceSize }

// Overhead returns TagSize.
func (*AEAD) Overhead() int { return TagSize }

// Seal appends the ciphertext of plaintext followed by the tag to dst and
// returns the result. To encrypt in place use plaintext[:0] as dst; as
// cipher.AEAD documents, dst's capacity must not otherwise overlap
// plaintext. Seal panics only if the nonce is not NonceSize bytes long.
func (a *AEAD) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	if len(nonce) != NonceSize {
		panic(a.BadNonce)
	}
	ret, out := sliceForAppend(dst, len(plaintext)+TagSize)
	tag := a.Cipher.Encrypt(out[:len(plaintext)], (*[NonceSize]byte)(nonce), plaintext, additionalData)
	copy(out[len(plaintext):], tag[:])
	return ret
}

// Open authenticates and decrypts ciphertext (the output of Seal) and
// appends the plaintext to dst. If the ciphertext is shorter than a tag or
// its tag does not verify, Open returns nil and ErrOpen, and the bytes it
// decrypted into dst's capacity are zeroed: no unauthenticated plaintext is
// released. The tag is compared in constant time. To decrypt in place use
// ciphertext[:0] as dst. Open panics only if the nonce is not NonceSize
// bytes long.
func (a *AEAD) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	if len(nonce) != NonceSize {
		panic(a.BadNonce)
	}
	if len(ciphertext) < TagSize {
		return nil, a.ErrOpen
	}
	n := len(ciphertext) - TagSize
	tag := [TagSize]byte(ciphertext[n:]) // copied before out is written
	ret, out := sliceForAppend(dst, n)
	want := a.Cipher.Decrypt(out, (*[NonceSize]byte)(nonce), ciphertext[:n], additionalData)
	if subtle.ConstantTimeCompare(want[:], tag[:]) != 1 {
		clear(out)
		return nil, a.ErrOpen
	}
	return ret, nil
}

// sliceForAppend extends in by n bytes, returning the whole slice and the
// n-byte tail, reallocating if in's capacity is too small.
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
