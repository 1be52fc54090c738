// Package oprf implements the OPRF protocol of RFC 9497 in mode modeOPRF
// (0x00) with the ciphersuite P256-SHA256 (RFC 9497 §4.3), as RFC 9807
// (OPAQUE) uses it.
//
// The client blinds its input (Blind, §3.3.1), the server evaluates the
// blinded element with its private key (BlindEvaluate, §3.3.1) and the
// client unblinds the result and hashes it into the PRF output (Finalize,
// §3.3.1). Private keys come from DeriveKeyPair (§3.2.1). Elements are
// serialized as compressed SEC 1 points of ElementSize bytes and
// DeserializeElement rejects anything else, including the identity (§4.3).
//
// Only the OPRF mode is implemented: no VOPRF or POPRF proofs, no batching.
// The arithmetic runs on internal/group (constant-time P-256 from
// filippo.io/nistec, scalars and their inverse on filippo.io/bigmod, RFC
// 9380 hash-to-curve). circl's OPRF is not used because its P-256 scalars
// live in math/big.
package oprf

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Sizes of the P256-SHA256 suite (RFC 9497 §4.3), in bytes.
const (
	ElementSize = group.CompressedPointSize // Ne: a serialized element
	ScalarSize  = group.ScalarSize          // Ns: a serialized scalar
	OutputSize  = sha256.Size               // Nh: the PRF output
)

// MaxInputSize is the longest PRF input: Finalize prefixes it with its
// length as two bytes (RFC 9497 §3.3.1).
const MaxInputSize = 1<<16 - 1

// contextString is "OPRFV1-" || I2OSP(modeOPRF, 1) || "-" || "P256-SHA256"
// (RFC 9497 §3.1).
const contextString = "OPRFV1-\x00-P256-SHA256"

var (
	dstHashToGroup   = []byte("HashToGroup-" + contextString)
	dstDeriveKeyPair = []byte("DeriveKeyPair" + contextString)
)

// DeriveKeyPair is DeriveKeyPair(seed, info) of RFC 9497 §3.2.1. It returns
// the private key skS only; the public key, where needed, is skS·G.
//
// skS = HashToScalar(seed || I2OSP(len(info), 2) || info ||
// I2OSP(counter, 1)) with DST "DeriveKeyPair" || contextString, for the
// first counter that gives a non-zero scalar (a zero has probability
// 2^-256). info must be shorter than 2^16 bytes.
func DeriveKeyPair(seed, info []byte) (*group.Scalar, error) {
	if len(info) > MaxInputSize {
		return nil, fmt.Errorf("%w: oprf: info of %d bytes", pakeerr.ErrInvalidParameter, len(info))
	}
	in := append([]byte(nil), seed...)
	in = binary.BigEndian.AppendUint16(in, uint16(len(info)))
	in = append(append(in, info...), 0)
	for counter := 0; counter < 256; counter++ {
		in[len(in)-1] = byte(counter)
		sk, err := hashToScalar(in, dstDeriveKeyPair)
		if err != nil {
			return nil, err
		}
		if sk.IsZero() == 0 {
			return sk, nil
		}
	}
	return nil, fmt.Errorf("%w: oprf: DeriveKeyPairError", pakeerr.ErrInvalidParameter)
}

// hashToScalar is HashToScalar of RFC 9497 §4.3: hash_to_field of RFC 9380
// §5.2 with expand_message_xmd(SHA-256), L = 48 and one output, reduced
// modulo the group order n.
func hashToScalar(msg, dst []byte) (*group.Scalar, error) {
	u, err := group.ExpandMessageXMD(msg, dst, 48)
	if err != nil {
		return nil, fmt.Errorf("%w: oprf: HashToScalar: %v", pakeerr.ErrInvalidParameter, err)
	}
	return group.NewScalar().SetReducedBytes(u), nil
}

// hashToGroup is HashToGroup(input) (RFC 9497 §4.3): hash_to_curve of
// P256_XMD:SHA-256_SSWU_RO_ (RFC 9380) with DST "HashToGroup-" ||
// contextString. The result is checked not to be the identity (the
// InvalidInputError of Blind, §3.3.1).
func hashToGroup(input []byte) (*group.Point, error) {
	if len(input) > MaxInputSize {
		return nil, fmt.Errorf("%w: oprf: input of %d bytes", pakeerr.ErrInvalidParameter, len(input))
	}
	p, err := group.HashToCurve(input, dstHashToGroup)
	if err != nil {
		return nil, fmt.Errorf("%w: oprf: HashToGroup: %v", pakeerr.ErrInvalidParameter, err)
	}
	if p.IsIdentity() == 1 {
		return nil, fmt.Errorf("%w: oprf: InvalidInputError", pakeerr.ErrInvalidParameter)
	}
	return p, nil
}

// Blind is Blind(input) of RFC 9497 §3.3.1: it draws blind = RandomScalar()
// from rand (48 bytes reduced modulo n, see group.RandomScalar) and returns
// it with blindedElement = SerializeElement(blind·HashToGroup(input)), the
// client's message to the server.
func Blind(rand io.Reader, input []byte) (blind *group.Scalar, blindedElement []byte, err error) {
	p, err := hashToGroup(input)
	if err != nil {
		return nil, nil, err
	}
	blind, err = group.RandomScalar(rand)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: oprf: %v", pakeerr.ErrRandom, err)
	}
	return blind, group.NewPoint().ScalarMult(blind, p).BytesCompressed(), nil
}

// BlindWith is Blind(input) with a given non-zero blind, as in the test
// vectors of RFC 9497 Appendix A: it returns
// SerializeElement(blind·HashToGroup(input)).
func BlindWith(blind *group.Scalar, input []byte) ([]byte, error) {
	if blind.IsZero() == 1 {
		return nil, fmt.Errorf("%w: oprf: zero blind", pakeerr.ErrInvalidParameter)
	}
	p, err := hashToGroup(input)
	if err != nil {
		return nil, err
	}
	return group.NewPoint().ScalarMult(blind, p).BytesCompressed(), nil
}

// BlindEvaluate is BlindEvaluate(skS, blindedElement) of RFC 9497 §3.3.1:
// it returns evaluatedElement = SerializeElement(skS·blindedElement), the
// server's message to the client. blindedElement comes from
// DeserializeElement, so it is not the identity, and for a non-zero skS
// neither is the result.
func BlindEvaluate(skS *group.Scalar, blindedElement *group.Point) []byte {
	return group.NewPoint().ScalarMult(skS, blindedElement).BytesCompressed()
}

// Finalize is Finalize(input, blind, evaluatedElement) of RFC 9497
// §3.3.1: with N = blind^-1·evaluatedElement, it returns the PRF output
//
//	SHA-256(I2OSP(len(input), 2) || input ||
//	        I2OSP(len(SerializeElement(N)), 2) || SerializeElement(N) ||
//	        "Finalize").
//
// input is the one given to Blind (at most MaxInputSize bytes).
func Finalize(input []byte, blind *group.Scalar, evaluatedElement *group.Point) ([]byte, error) {
	if len(input) > MaxInputSize {
		return nil, fmt.Errorf("%w: oprf: input of %d bytes", pakeerr.ErrInvalidParameter, len(input))
	}
	if blind.IsZero() == 1 {
		return nil, fmt.Errorf("%w: oprf: zero blind", pakeerr.ErrInvalidParameter)
	}
	n := group.NewPoint().ScalarMult(group.NewScalar().Invert(blind), evaluatedElement).BytesCompressed()
	h := sha256.New()
	var l [2]byte
	binary.BigEndian.PutUint16(l[:], uint16(len(input)))
	h.Write(l[:])
	h.Write(input)
	binary.BigEndian.PutUint16(l[:], uint16(len(n)))
	h.Write(l[:])
	h.Write(n)
	h.Write([]byte("Finalize"))
	return h.Sum(nil), nil
}

// DeserializeElement is DeserializeElement of RFC 9497 §4.3 for P-256: a
// compressed SEC 1 point of ElementSize bytes, on the curve and not the
// identity (the check that §3.3.1 asks of BlindEvaluate's and Finalize's
// inputs). Errors wrap ErrInvalidMessage.
func DeserializeElement(b []byte) (*group.Point, error) {
	if len(b) != ElementSize {
		return nil, fmt.Errorf("%w: oprf: element of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(b), ElementSize)
	}
	p, err := group.NewPoint().SetBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%w: oprf: element: %v", pakeerr.ErrInvalidMessage, err)
	}
	return p, nil
}
