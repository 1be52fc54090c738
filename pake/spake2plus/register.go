package spake2plus

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"golang.org/x/crypto/scrypt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// PBKDF is a password-based key derivation function (RFC 9383, Section
// 3.2): it maps input, the encoded password and identities, to outLen
// bytes. It carries its own salt and cost parameters.
type PBKDF func(input []byte, outLen int) ([]byte, error)

// pbkdfHalf is the length of w0s and of w1s: ceil(log2(p)) + 64 bits for
// P-256, so that reducing each modulo p has bias below 2^-64 (RFC 9383,
// Section 3.2).
const pbkdfHalf = 40

// PBKDFOutputSize is the PBKDF output Register takes: w0s || w1s, the
// 80 bytes RFC 9383, Section 3.2 asks for P-256.
const PBKDFOutputSize = 2 * pbkdfHalf

// Scrypt cost parameters: RFC 9383, Section 3.2 recommends (N, r, p) =
// (32768, 8, 1) absent an application profile; kexlab's evaluated
// configuration used them.
const (
	ScryptN = 32768
	ScryptR = 8
	ScryptP = 1
)

// Scrypt returns scrypt (RFC 7914) with N=32768, r=8, p=1 and the given
// salt, as a PBKDF. The prover and the registration must use the same salt.
func Scrypt(salt []byte) PBKDF {
	salt = bytes.Clone(salt)
	return func(input []byte, outLen int) ([]byte, error) {
		return scrypt.Key(input, salt, ScryptN, ScryptR, ScryptP, outLen)
	}
}

// SaltSize is the size of the salt in a Record.
const SaltSize = 32

// IdentitySalt returns a salt fixed by the two identities:
//
//	SHA-256("kexlab SPAKE2+ salt v1" || len(idProver) || idProver ||
//	        len(idVerifier) || idVerifier)
//
// with 8-byte little-endian lengths. Both the prover and the registration
// can compute it, so the prover needs no message to learn its salt; see the
// package documentation for what this gives up against a random salt.
func IdentitySalt(idProver, idVerifier []byte) []byte {
	h := sha256.New()
	h.Write([]byte("kexlab SPAKE2+ salt v1"))
	h.Write(lengthPrefixed(nil, idProver, idVerifier))
	return h.Sum(nil)
}

// Register runs the offline registration of RFC 9383, Section 3.2:
//
//	w0s || w1s = pbkdf(len(pw) || pw || len(idProver) || idProver ||
//	                   len(idVerifier) || idVerifier)
//	w0 = w0s mod p,  w1 = w1s mod p,  L = w1*P
//
// with 40-byte halves w0s and w1s. It returns w0 and w1 (ScalarSize bytes
// each, big-endian), which the prover keeps or rederives, and L (a SEC 1
// uncompressed point), which the verifier stores with w0. An empty
// password, a nil pbkdf, a failing pbkdf or one with the wrong output
// length fail with pakeerr.ErrInvalidParameter, as does the negligible
// case of w0 or w1 equal to zero.
func Register(pw, idProver, idVerifier []byte, pbkdf PBKDF) (w0, w1, L []byte, err error) {
	if len(pw) == 0 {
		return nil, nil, nil, fmt.Errorf("%w: empty password", pakeerr.ErrInvalidParameter)
	}
	if pbkdf == nil {
		return nil, nil, nil, fmt.Errorf("%w: no PBKDF", pakeerr.ErrInvalidParameter)
	}
	input := lengthPrefixed(nil, pw, idProver, idVerifier)
	out, err := pbkdf(input, PBKDFOutputSize)
	clear(input)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: PBKDF: %v", pakeerr.ErrInvalidParameter, err)
	}
	if len(out) != PBKDFOutputSize {
		return nil, nil, nil, fmt.Errorf("%w: PBKDF returned %d bytes, want %d", pakeerr.ErrInvalidParameter, len(out), PBKDFOutputSize)
	}
	s0 := group.NewScalar().SetReducedBytes(out[:pbkdfHalf])
	s1 := group.NewScalar().SetReducedBytes(out[pbkdfHalf:])
	clear(out)
	if s0.IsZero() == 1 || s1.IsZero() == 1 {
		return nil, nil, nil, fmt.Errorf("%w: w0 or w1 is zero", pakeerr.ErrInvalidParameter)
	}
	return s0.Bytes(), s1.Bytes(), group.NewPoint().ScalarBaseMult(s1).Bytes(), nil
}

// RecordSize is the size of an encoded Record: salt || w0 || L.
const RecordSize = SaltSize + ScalarSize + ShareSize

// Record is what the verifier stores for one prover: the PBKDF salt the
// prover needs, and w0 and L from Register. Its encoding (MarshalBinary)
// is the fixed-size concatenation salt (SaltSize bytes) || w0 (ScalarSize
// bytes, big-endian) || L (ShareSize bytes, SEC 1 uncompressed).
type Record struct {
	Salt []byte
	W0   []byte
	L    []byte
}

// errNilRecord answers MarshalBinary and UnmarshalBinary on a nil *Record.
var errNilRecord = fmt.Errorf("%w: nil record", pakeerr.ErrInvalidParameter)

// MarshalBinary encodes r, after checking it as UnmarshalBinary would.
func (r *Record) MarshalBinary() ([]byte, error) {
	if r == nil {
		return nil, errNilRecord
	}
	if len(r.Salt) != SaltSize || len(r.W0) != ScalarSize || len(r.L) != ShareSize {
		return nil, fmt.Errorf("%w: record fields of %d, %d, %d bytes, want %d, %d, %d", pakeerr.ErrInvalidParameter,
			len(r.Salt), len(r.W0), len(r.L), SaltSize, ScalarSize, ShareSize)
	}
	b := make([]byte, 0, RecordSize)
	b = append(append(append(b, r.Salt...), r.W0...), r.L...)
	if err := new(Record).UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return b, nil
}

// UnmarshalBinary decodes a record strictly: exactly RecordSize bytes, w0
// in [1, p-1] in canonical big-endian form, and L an uncompressed P-256
// point other than the identity. Anything else fails with
// pakeerr.ErrInvalidParameter and leaves r unchanged.
func (r *Record) UnmarshalBinary(b []byte) error {
	if r == nil {
		return errNilRecord
	}
	if len(b) != RecordSize {
		return fmt.Errorf("%w: record is %d bytes, want %d", pakeerr.ErrInvalidParameter, len(b), RecordSize)
	}
	salt, w0, l := b[:SaltSize], b[SaltSize:SaltSize+ScalarSize], b[SaltSize+ScalarSize:]
	if _, err := parseScalar("record w0", w0); err != nil {
		return err
	}
	if l[0] != 4 {
		return fmt.Errorf("%w: record L is not an uncompressed point", pakeerr.ErrInvalidParameter)
	}
	if _, err := group.NewPoint().SetBytes(l); err != nil {
		return fmt.Errorf("%w: record L: %v", pakeerr.ErrInvalidParameter, err)
	}
	r.Salt, r.W0, r.L = bytes.Clone(salt), bytes.Clone(w0), bytes.Clone(l)
	return nil
}
