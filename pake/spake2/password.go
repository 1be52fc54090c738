package spake2

import (
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"

	"golang.org/x/crypto/scrypt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// An MHF is a memory-hard function (RFC 9382, Section 3.2) mapping a
// password and a salt to at least MinMHFOutputSize bytes, which DeriveW
// reduces modulo p. It carries its own cost parameters.
type MHF func(password, salt []byte) ([]byte, error)

// MinMHFOutputSize is the least MHF output DeriveW accepts: 64 bits more
// than p takes, so that the reduction modulo p has bias below 2^-64
// (RFC 9382, Section 3.2, after NIST SP 800-56A).
const MinMHFOutputSize = WSize + 8

// Scrypt cost parameters: scrypt (RFC 7914) with N=32768, r=8, p=1, the
// configuration kexlab evaluates (128*N*r bytes = 32 MiB of memory); the
// output is 48 bytes, so the reduction's bias is below 2^-128.
const (
	ScryptN          = 32768
	ScryptR          = 8
	ScryptP          = 1
	ScryptOutputSize = 48
)

// Scrypt is the default MHF: scrypt(password, salt, N=32768, r=8, p=1),
// ScryptOutputSize bytes. It takes about 32 MiB and tens of milliseconds.
func Scrypt(password, salt []byte) ([]byte, error) {
	out, err := scrypt.Key(password, salt, ScryptN, ScryptR, ScryptP, ScryptOutputSize)
	if err != nil {
		return nil, fmt.Errorf("%w: scrypt: %v", pakeerr.ErrInvalidParameter, err)
	}
	return out, nil
}

// DeriveW returns w = mhf(password, salt) mod p (RFC 9382, Section 3.2) as
// WSize big-endian bytes, ready for NewA and NewB. A nil mhf selects Scrypt.
// The reduction is constant time. The password is used as given: an
// application that accepts Unicode should normalize it first (for example
// with the OpaqueString profile of RFC 8265), as the RFC advises.
func DeriveW(mhf MHF, password, salt []byte) ([]byte, error) {
	if mhf == nil {
		mhf = Scrypt
	}
	out, err := mhf(password, salt)
	if err != nil {
		return nil, fmt.Errorf("spake2: deriving w: %w", err)
	}
	if len(out) < MinMHFOutputSize {
		return nil, fmt.Errorf("%w: MHF output of %d bytes, want at least %d", pakeerr.ErrInvalidParameter, len(out), MinMHFOutputSize)
	}
	w := group.NewScalar().SetReducedBytes(out)
	clear(out)
	if w.IsZero() == 1 {
		// Probability 2^-256 for a sound MHF.
		return nil, fmt.Errorf("%w: w reduced to zero", pakeerr.ErrInvalidParameter)
	}
	return w.Bytes(), nil
}

// identitySaltLabel separates kexlab's SPAKE2 password hashing from any
// other use of the same password and MHF.
const identitySaltLabel = "kexlab SPAKE2 P256-SHA256-HKDF-HMAC w v1"

// IdentitySalt returns the salt kexlab's uniform adapter gives the MHF,
// fixed by the two identities A and B (nil or empty when absent):
//
//	"kexlab SPAKE2 P256-SHA256-HKDF-HMAC w v1" || len(A) || A || len(B) || B
//
// with 8-byte little-endian lengths, as in the transcript. Balanced SPAKE2
// has no stored salt; this one makes every pair of identities hash the
// password differently, so no precomputed table serves two pairs, and both
// parties compute it without a message.
func IdentitySalt(idA, idB []byte) []byte {
	dst := make([]byte, 0, len(identitySaltLabel)+16+len(idA)+len(idB))
	dst = append(dst, identitySaltLabel...)
	return appendLengthPrefixed(dst, idA, idB)
}

// hkdfInfo labels the HKDF derivation of HKDF.
const hkdfInfo = "kexlab SPAKE2 w from HKDF-SHA256, no memory-hard function"

// HKDF is NOT a memory-hard function: w = HKDF-SHA256(IKM = password, salt,
// info, L = ScryptOutputSize), one extract and one expand, microseconds per
// guess. It is the configuration the Android PAKE study measured ("SPAKE2
// with HKDF"), registered as "spake2-hkdf" so that its figures can be
// rebuilt; an offline dictionary attack on a stolen w or on a transcript
// an active attacker made costs a few hashes per guess. Use Scrypt (the
// default).
func HKDF(password, salt []byte) ([]byte, error) {
	out, err := hkdf.Key(sha256.New, password, salt, hkdfInfo, ScryptOutputSize)
	if err != nil {
		return nil, fmt.Errorf("%w: HKDF: %v", pakeerr.ErrInvalidParameter, err)
	}
	return out, nil
}
