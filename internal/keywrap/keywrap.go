// Package keywrap implements the AES Key Wrap algorithms of NIST
// SP 800-38F: KW, the wrapping of RFC 3394 §2.2 (the form IEEE 802.11 uses
// to encrypt the key data of EAPOL-Key frames under the KEK, IEEE Std
// 802.11-2020 §12.7.2), and KWP, the variant with padding of RFC 5649.
//
// Both use the wrapping function W of SP 800-38F §6.1 (RFC 3394 §2.2.1 in
// its index-based form): for j = 0..5 and i = 1..n,
//
//	B    = AES(K, A || R[i])
//	A    = MSB64(B) XOR t,  t = n·j + i
//	R[i] = LSB64(B)
//
// with A initialised to the integrity check value. KW uses the default
// ICV A6A6A6A6A6A6A6A6 (RFC 3394 §2.2.3.1) and wraps n ≥ 2 semiblocks of
// plaintext. KWP uses the alternative ICV A65959A6 || MLI, where MLI is the
// plaintext length in octets as a 32-bit big-endian integer, pads the
// plaintext with zeros to a multiple of eight octets, and, when the padded
// plaintext is a single semiblock, encrypts AIV || P as one AES block
// instead of running W (RFC 5649 §4.1).
//
// Unwrapping checks the ICV (and for KWP the length and the padding) in
// constant time and returns ErrIntegrity, never the candidate plaintext,
// when the check fails. The key is an AES key of 16, 24 or 32 octets.
package keywrap

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

var (
	// ErrIntegrity: the wrapped key failed the integrity check (wrong KEK,
	// or a modified ciphertext). It wraps pakeerr.ErrAuthFailed.
	ErrIntegrity = fmt.Errorf("keywrap: integrity check failed: %w", pakeerr.ErrAuthFailed)
	// ErrLength: the input length is not one the algorithm accepts. It wraps
	// pakeerr.ErrInvalidMessage.
	ErrLength = fmt.Errorf("keywrap: invalid length: %w", pakeerr.ErrInvalidMessage)
)

// defaultIV is the KW integrity check value (RFC 3394 §2.2.3.1).
const defaultIV = 0xA6A6A6A6A6A6A6A6

// aivPrefix is the first half of the KWP alternative IV (RFC 5649 §3).
const aivPrefix = 0xA65959A6

// maxSemiblocks bounds the input: SP 800-38F §5.3.1 allows up to 2^54
// semiblocks; a bound that fits any int keeps t from overflowing.
const maxSemiblocks = 1 << 28

func newCipher(kek []byte) (cipher.Block, error) {
	b, err := aes.NewCipher(kek)
	if err != nil {
		return nil, fmt.Errorf("keywrap: %w: %v", pakeerr.ErrInvalidParameter, err)
	}
	return b, nil
}

// w runs the wrapping function on buf = A || R[1] || ... || R[n] in place.
func w(b cipher.Block, buf []byte) {
	n := len(buf)/8 - 1
	var blk [16]byte
	copy(blk[:8], buf[:8])
	for j := 0; j < 6; j++ {
		for i := 1; i <= n; i++ {
			r := buf[8*i : 8*i+8]
			copy(blk[8:], r)
			b.Encrypt(blk[:], blk[:])
			t := uint64(n*j + i)
			binary.BigEndian.PutUint64(blk[:8], binary.BigEndian.Uint64(blk[:8])^t)
			copy(r, blk[8:])
		}
	}
	copy(buf[:8], blk[:8])
}

// wInv runs the unwrapping function W^-1 on buf in place; buf[:8] is A.
func wInv(b cipher.Block, buf []byte) {
	n := len(buf)/8 - 1
	var blk [16]byte
	copy(blk[:8], buf[:8])
	for j := 5; j >= 0; j-- {
		for i := n; i >= 1; i-- {
			r := buf[8*i : 8*i+8]
			t := uint64(n*j + i)
			binary.BigEndian.PutUint64(blk[:8], binary.BigEndian.Uint64(blk[:8])^t)
			copy(blk[8:], r)
			b.Decrypt(blk[:], blk[:])
			copy(r, blk[8:])
		}
	}
	copy(buf[:8], blk[:8])
}

// Wrap wraps plaintext, a multiple of 8 octets and at least 16 octets long,
// under kek with KW (RFC 3394 §2.2.1). The result is 8 octets longer.
func Wrap(kek, plaintext []byte) ([]byte, error) {
	if len(plaintext) < 16 || len(plaintext)%8 != 0 || len(plaintext)/8 > maxSemiblocks {
		return nil, fmt.Errorf("%w: KW plaintext of %d octets", ErrLength, len(plaintext))
	}
	b, err := newCipher(kek)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 8+len(plaintext))
	binary.BigEndian.PutUint64(out, defaultIV)
	copy(out[8:], plaintext)
	w(b, out)
	return out, nil
}

// Unwrap reverses Wrap (RFC 3394 §2.2.2) and checks the integrity check
// value (§2.2.3). A ciphertext that is not a multiple of 8 octets or shorter
// than 24 octets gives ErrLength; a failed check gives ErrIntegrity.
func Unwrap(kek, ciphertext []byte) ([]byte, error) {
	if len(ciphertext) < 24 || len(ciphertext)%8 != 0 || len(ciphertext)/8 > maxSemiblocks+1 {
		return nil, fmt.Errorf("%w: KW ciphertext of %d octets", ErrLength, len(ciphertext))
	}
	b, err := newCipher(kek)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, len(ciphertext))
	copy(buf, ciphertext)
	wInv(b, buf)
	var iv [8]byte
	binary.BigEndian.PutUint64(iv[:], defaultIV)
	if subtle.ConstantTimeCompare(buf[:8], iv[:]) != 1 {
		clear(buf)
		return nil, ErrIntegrity
	}
	return buf[8:], nil
}

// WrapPad wraps a plaintext of 1 to 2^32-1 octets under kek with KWP
// (RFC 5649 §4.1). The result is the padded length plus 8 octets.
func WrapPad(kek, plaintext []byte) ([]byte, error) {
	if len(plaintext) == 0 || uint64(len(plaintext)) > 8*maxSemiblocks {
		return nil, fmt.Errorf("%w: KWP plaintext of %d octets", ErrLength, len(plaintext))
	}
	b, err := newCipher(kek)
	if err != nil {
		return nil, err
	}
	padded := (len(plaintext) + 7) &^ 7
	out := make([]byte, 8+padded)
	binary.BigEndian.PutUint32(out[0:4], aivPrefix)
	binary.BigEndian.PutUint32(out[4:8], uint32(len(plaintext)))
	copy(out[8:], plaintext)
	if padded == 8 {
		b.Encrypt(out, out)
		return out, nil
	}
	w(b, out)
	return out, nil
}

// UnwrapPad reverses WrapPad (RFC 5649 §4.2): it checks the alternative
// IV, that the message length indicator MLI satisfies
// 8·(n-1) < MLI ≤ 8·n, and that the padding octets are zero, all in
// constant time, and returns ErrIntegrity if any check fails.
func UnwrapPad(kek, ciphertext []byte) ([]byte, error) {
	if len(ciphertext) < 16 || len(ciphertext)%8 != 0 || len(ciphertext)/8 > maxSemiblocks+1 {
		return nil, fmt.Errorf("%w: KWP ciphertext of %d octets", ErrLength, len(ciphertext))
	}
	b, err := newCipher(kek)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, len(ciphertext))
	copy(buf, ciphertext)
	if len(buf) == 16 {
		b.Decrypt(buf, buf)
	} else {
		wInv(b, buf)
	}
	n := len(buf)/8 - 1
	ok := subtle.ConstantTimeEq(int32(binary.BigEndian.Uint32(buf[0:4])^aivPrefix), 0)
	mli := uint64(binary.BigEndian.Uint32(buf[4:8]))
	// 8(n-1) < MLI <= 8n, checked without branching on MLI.
	lo, hi := uint64(8*(n-1)), uint64(8*n)
	ok &= int(((lo - mli) >> 63) & 1)     // lo < mli
	ok &= int(((mli - hi - 1) >> 63) & 1) // mli <= hi
	// Padding: the last 8n - MLI octets are zero. MLI is secret until the
	// check passes, so every octet of the last semiblock is examined.
	var bad byte
	for i := 0; i < 8; i++ {
		pos := uint64(8*n + i) // offset within the plaintext is 8(n-1)+i
		inPad := byte(((mli - (pos - 8) - 1) >> 63) & 1)
		bad |= buf[8*n+i] & -inPad
	}
	ok &= subtle.ConstantTimeByteEq(bad, 0)
	if ok != 1 {
		clear(buf)
		return nil, ErrIntegrity
	}
	return buf[8 : 8+int(mli)], nil
}
