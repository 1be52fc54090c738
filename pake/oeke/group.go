package oeke

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/group/modp"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// dhGroup is the Diffie-Hellman group of a suite, in bytes: secrets are
// exponents or scalars, elements are their encodings.
type dhGroup interface {
	// elementSize is the length of an encoded element (X, Y and K).
	elementSize() int
	// secret draws a secret exponent from rand.
	secret(rand io.Reader) ([]byte, error)
	// public returns the encoding of g^secret.
	public(secret []byte) []byte
	// shared decodes and validates a peer's element and returns the
	// encoding of element^secret, or an error wrapping
	// pakeerr.ErrInvalidMessage.
	shared(secret, element []byte) ([]byte, error)
}

// modpGroup is the 3072-bit MODP group of RFC 3526 §4 (g = 2), with
// 256-bit exponents and elements encoded as 384 big-endian bytes.
type modpGroup struct{ g *modp.Group }

func (m modpGroup) elementSize() int { return m.g.Size() }

func (m modpGroup) secret(rand io.Reader) ([]byte, error) {
	return modp.RandomExponent(rand, modp.ExponentSize)
}

func (m modpGroup) public(secret []byte) []byte { return m.g.ExpBase(secret).Bytes() }

// shared rejects an element that is not Size bytes, is 0 or not below p,
// or is 1 or p-1 (the elements of order at most 2; SP 800-56A's partial
// public-key validation).
func (m modpGroup) shared(secret, element []byte) ([]byte, error) {
	e, err := m.g.ParseElement(element)
	if err != nil {
		return nil, err
	}
	if err := e.CheckNonTrivial(); err != nil {
		return nil, err
	}
	return m.g.Exp(e, secret).Bytes(), nil
}

// p256Group is NIST P-256 with elements as 33-byte compressed SEC 1
// points (SEC 1 v2 §2.3.3).
type p256Group struct{}

func (p256Group) elementSize() int { return group.CompressedPointSize }

func (p256Group) secret(rand io.Reader) ([]byte, error) {
	s, err := group.RandomScalar(rand)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", pakeerr.ErrRandom, err)
	}
	return s.Bytes(), nil
}

func scalar(secret []byte) *group.Scalar {
	s, err := group.NewScalar().SetCanonicalBytes(secret)
	if err != nil {
		panic("oeke: unreachable: secret scalar out of range")
	}
	return s
}

func (p256Group) public(secret []byte) []byte {
	return group.NewPoint().ScalarBaseMult(scalar(secret)).BytesCompressed()
}

// shared rejects anything but a compressed encoding of a point on the
// curve other than the identity (P-256 has cofactor 1, so every such point
// generates the group).
func (p256Group) shared(secret, element []byte) ([]byte, error) {
	if len(element) != group.CompressedPointSize {
		return nil, fmt.Errorf("%w: oeke: point of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(element), group.CompressedPointSize)
	}
	q, err := group.NewPoint().SetBytes(element)
	if err != nil {
		return nil, fmt.Errorf("%w: oeke: %w", pakeerr.ErrInvalidMessage, err)
	}
	return group.NewPoint().ScalarMult(scalar(secret), q).BytesCompressed(), nil
}
