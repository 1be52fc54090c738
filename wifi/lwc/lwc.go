// Package lwc turns lightweight authenticated ciphers into the key
// derivation function and message integrity code of the IEEE 802.11 4-way
// handshake, as "Implementation of three LWC schemes in the WiFi 4-way
// handshake" (Yi, Gong, Mandal, NIST Lightweight Cryptography Workshop
// 2019) did with ACE, SPIX and WAGE; Ascon (NIST SP 800-232) is added as the
// modern reference. The ciphers live in the subpackages ace, spix, wage and
// ascon; this package maps the handshake's inputs onto them and models the
// handshake's authentication time.
//
// # The sponge KDF and MIC
//
// The talk replaces PRF-384 and the EAPOL-Key MIC by one call each of the
// cipher's AEAD mode: the KDF encrypts a 6-block message (six 64-bit rate
// blocks, 384 bits) with no associated data and keeps the ciphertext as
// KCK‖KEK‖TK, dropping the tag; the MIC authenticates associated data with
// an empty message and keeps the tag. The public record does not say how
// the PMK, the addresses, the nonces and the frame are mapped onto key,
// nonce, associated data and message, so kexlab fixes the mapping below,
// the same for every cipher. All four ciphers take a 128-bit key and a
// 128-bit nonce and produce a 128-bit tag.
//
// KDF. The 802.11 derivation it replaces (IEEE Std 802.11-2020
// §12.7.1.3) is
//
//	PTK = PRF-384(PMK, "Pairwise key expansion",
//	              Min(AA,SPA) ‖ Max(AA,SPA) ‖ Min(ANonce,SNonce) ‖ Max(ANonce,SNonce))
//
// With A1 = Min(ANonce,SNonce), A2 = Max(ANonce,SNonce) (32 octets each,
// compared as big-endian numbers) and L(x, i, n) the n bits of x starting
// at bit i:
//
//	K = L(PMK, 0, 128)
//	N = L(A1, 0, 64) ‖ L(A2, 0, 64)
//	M = L(PMK, 128, 128) ‖ Min(AA,SPA) ‖ Max(AA,SPA) ‖ L(A1, 64, 64) ‖ L(A2, 64, 64) ‖ "LWC" ‖ 0x00
//	    (16 + 12 + 16 + 4 = 48 octets: six 64-bit blocks)
//	KCK ‖ KEK ‖ TK = C, where C ‖ T = AE-Encrypt(K, N, AD = ε, M); T is dropped
//
// The nonce carries 128 bits that both stations drew fresh for this
// handshake, so no (K, N) pair repeats under one PMK, which is what keeps
// the keystream — and therefore the keys — fresh. The second half of the
// PMK enters as the first message blocks, so all 256 PMK bits determine
// the keys. Each ciphertext block depends only on the blocks before it,
// which is why the secret material comes first; the addresses and the
// remaining nonce bits bind the later blocks (KEK and TK) to the
// association. Bits 128–255 of each nonce are not used: 384 bits of the
// 512 nonce bits drive the derivation. For Ascon, whose rate is 128 bits,
// the same 48 octets are three rate blocks.
//
// MIC. The 802.11 MIC it replaces (§12.7.2) is HMAC-SHA-1-128 or
// AES-128-CMAC over the EAPOL-Key frame with the MIC field zeroed:
//
//	K = KCK, N = 0^128, AD = the EAPOL frame with the MIC field zeroed, M = ε
//	MIC = T, where T = AE-Encrypt(K, N, AD, ε) (the ciphertext is empty)
//
// A fixed nonce is sound here: nothing is encrypted, and the tag of a
// keyed sponge over distinct associated data is a pseudorandom function of
// it, like HMAC. The talk's MIC absorbs four 64-bit blocks; a real EAPOL
// frame is longer (95 octets and more), so kexlab authenticates the whole
// frame, and benchmarks the talk's four-block shape separately.
//
// # Timing model
//
// The talk's authentication time is T_auth = T_4way_tx + 2·T_KDF + 3·T_MIC:
// the airtime of the four EAPOL-Key frames, one PTK derivation at each
// station, and three MICs (messages 2, 3 and 4) on the critical path. See
// [Model].
package lwc

import (
	"crypto/cipher"
	"errors"
	"fmt"
	"strings"

	"github.com/kexlab/kexlab/wifi/lwc/ace"
	"github.com/kexlab/kexlab/wifi/lwc/ascon"
	"github.com/kexlab/kexlab/wifi/lwc/spix"
	"github.com/kexlab/kexlab/wifi/lwc/wage"
)

// Sizes of the mapping.
const (
	KeySize   = 16 // every cipher's key
	NonceSize = 16 // every cipher's nonce
	TagSize   = 16 // every cipher's tag: the MIC length
	PMKSize   = 32 // the PMK this mapping takes
	PTKSize   = 48 // KCK ‖ KEK ‖ TK, 16 octets each
)

// ErrInput is returned (wrapped) for inputs of the wrong length.
var ErrInput = errors.New("lwc: invalid input")

// Cipher is one lightweight AEAD as the handshake uses it.
type Cipher struct {
	Name string // "ace", "spix", "wage", "ascon"
	Spec string // the algorithm and its specification
	// New returns the AEAD under a 128-bit key.
	New func(key []byte) (cipher.AEAD, error)
	// StateSize is the permutation state in bytes (WAGE: 37 7-bit cells,
	// 259 bits, stored one cell per byte); RateBits the bits absorbed per
	// permutation call.
	StateBits, RateBits int
	// Permute runs the cipher's permutation once on a zero state (for
	// benchmarks and instruction counts).
	Permute func()
}

// Ciphers returns the ciphers in the order of the talk, Ascon last.
func Ciphers() []Cipher {
	return []Cipher{
		{Name: "ace", Spec: "ACE-AE-128 (NIST LWC round 2)", New: ace.New, StateBits: 320, RateBits: 64,
			Permute: func() { var s [ace.StateSize]byte; ace.Permute(&s) }},
		{Name: "spix", Spec: "SPIX-AE-128, sLiSCP-light-256 (NIST LWC round 2)", New: spix.New, StateBits: 256, RateBits: 64,
			Permute: func() { var s [spix.StateSize]byte; spix.Permute(&s) }},
		{Name: "wage", Spec: "WAGE-AE-128 (NIST LWC round 2)", New: wage.New, StateBits: 259, RateBits: 64,
			Permute: func() { var s [wage.StateSize]byte; wage.Permute(&s) }},
		{Name: "ascon", Spec: "Ascon-AEAD128 (NIST SP 800-232)", New: ascon.New, StateBits: 320, RateBits: 128,
			Permute: func() { var s [ascon.StateSize]byte; ascon.Permute(&s) }},
	}
}

// ByName returns the cipher called name.
func ByName(name string) (Cipher, error) {
	var names []string
	for _, c := range Ciphers() {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return Cipher{}, fmt.Errorf("%w: unknown cipher %q (have %s)", ErrInput, name, strings.Join(names, ", "))
}
