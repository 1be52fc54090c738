package ace

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/kexlab/kexlab/wifi/lwc/internal/duplex"
)

// ErrOpen is returned by Open when the ciphertext is shorter than a tag or
// fails authentication.
var ErrOpen = errors.New("ace: message authentication failed")

// Domain separators added to the last state byte before each permutation
// call of the associated-data and message phases (§2.4.5, §2.4.6).
const (
	domainAD  = 0x01
	domainMsg = 0x02
)

// aeadACE is ACE-AE-128 under a fixed key: the embedded duplex.AEAD
// provides the cipher.AEAD methods over Encrypt and Decrypt.
type aeadACE struct {
	duplex.AEAD
	k [4]uint32 // the key as big-endian 32-bit words K[0..3]
}

// New returns ACE-AE-128 (§2.4) keyed with the 16-byte key. The AEAD takes
// 16-byte nonces and appends a 16-byte tag to the ciphertext. Open returns
// ErrOpen if the ciphertext is shorter than a tag or the tag does not
// match, and then leaves no plaintext in dst's capacity. Seal and Open
// panic only if the nonce length is wrong.
func New(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, errors.New("ace: invalid key size " + strconv.Itoa(len(key)))
	}
	a := new(aeadACE)
	a.AEAD = duplex.AEAD{Cipher: a, ErrOpen: ErrOpen,
		BadNonce: "ace: incorrect nonce length given to ACE-AE-128"}
	for i := range a.k {
		a.k[i] = binary.BigEndian.Uint32(key[4*i:])
	}
	return a, nil
}

// absorbKey adds the key to the rate in two halves, permuting after each
// (the closing part of the initialization, §2.4.4, and of the
// finalization, §2.4.7).
func (a *aeadACE) absorbKey(s *state) {
	s[rate0] ^= a.k[0]
	s[rate1] ^= a.k[1]
	s.permute()
	s[rate0] ^= a.k[2]
	s[rate1] ^= a.k[3]
	s.permute()
}

// init loads the key and nonce (§2.4.3: A = K[0..63], B = N[0..63],
// C = K[64..127], D = 0, E = N[64..127]), runs the initialization (§2.4.4)
// and absorbs the associated data, if any, in padded 8-byte blocks with
// domain separator 1 (§2.4.5).
func (a *aeadACE) init(nonce *[NonceSize]byte, ad []byte) state {
	s := state{
		a.k[0], a.k[1],
		binary.BigEndian.Uint32(nonce[0:]), binary.BigEndian.Uint32(nonce[4:]),
		a.k[2], a.k[3],
		0, 0,
		binary.BigEndian.Uint32(nonce[8:]), binary.BigEndian.Uint32(nonce[12:]),
	}
	s.permute()
	a.absorbKey(&s)
	if len(ad) == 0 {
		return s
	}
	for len(ad) >= Rate {
		s.absorb(ad)
		s[domain] ^= domainAD
		s.permute()
		ad = ad[Rate:]
	}
	s.absorbPadded(ad)
	s[domain] ^= domainAD
	s.permute()
	return s
}

// finish runs the finalization (§2.4.7) and returns the tag, the rate
// words A[0], A[1], C[0], C[1] of the final state.
func (a *aeadACE) finish(s *state) (tag [TagSize]byte) {
	a.absorbKey(s)
	binary.BigEndian.PutUint32(tag[0:], s[0])
	binary.BigEndian.PutUint32(tag[4:], s[1])
	binary.BigEndian.PutUint32(tag[8:], s[4])
	binary.BigEndian.PutUint32(tag[12:], s[5])
	return tag
}

// Encrypt is ACE-AE-128 encryption (§2.4): after init, each 8-byte
// plaintext block (the last one padded, §2.4.2) is added to the rate, the
// rate is output as ciphertext, and the state is permuted with domain
// separator 2 (§2.4.6); finish gives the tag.
func (a *aeadACE) Encrypt(out []byte, nonce *[NonceSize]byte, plaintext, ad []byte) [TagSize]byte {
	s := a.init(nonce, ad)
	m, c := plaintext, out
	for len(m) >= Rate {
		s.absorb(m)
		s.squeeze(c)
		s[domain] ^= domainMsg
		s.permute()
		m, c = m[Rate:], c[Rate:]
	}
	var block [Rate]byte
	s.absorbPadded(m)
	s.squeeze(block[:])
	copy(c, block[:len(m)])
	s[domain] ^= domainMsg
	s.permute()
	return a.finish(&s)
}

// Decrypt is ACE-AE-128 decryption (§2.4.8): it writes the plaintext of
// ciphertext to out and returns the tag to compare with the received one.
func (a *aeadACE) Decrypt(out []byte, nonce *[NonceSize]byte, ciphertext, ad []byte) [TagSize]byte {
	s := a.init(nonce, ad)
	c, m := ciphertext, out
	for len(c) >= Rate {
		c0 := binary.BigEndian.Uint32(c)
		c1 := binary.BigEndian.Uint32(c[4:])
		binary.BigEndian.PutUint32(m, s[rate0]^c0)
		binary.BigEndian.PutUint32(m[4:], s[rate1]^c1)
		s[rate0], s[rate1] = c0, c1
		s[domain] ^= domainMsg
		s.permute()
		c, m = c[Rate:], m[Rate:]
	}
	// The last block: the plaintext is the ciphertext minus the keystream;
	// absorbing the padded plaintext leaves the ciphertext in the rate.
	var block [Rate]byte
	s.squeeze(block[:])
	for i := range c {
		block[i] ^= c[i]
	}
	s.absorbPadded(block[:len(c)])
	copy(m, block[:len(c)])
	s[domain] ^= domainMsg
	s.permute()
	return a.finish(&s)
}
