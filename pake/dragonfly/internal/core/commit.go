package core

import (
	"errors"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Sizes of the commit fields: a scalar modulo r, and an element encoded as
// its affine coordinates x || y, each len(p) octets (RFC 7664 §3.3;
// IEEE 802.11-2020 §12.4.7.2.4 and §12.4.7.2.5, ECC groups).
const (
	ScalarSize  = group.ScalarSize
	ElementSize = 2 * FieldSize
)

// Errors for a peer's commit. Each wraps pakeerr.ErrInvalidMessage.
var (
	// ErrInvalidScalar: the peer's scalar is not in the range 1 < s < r.
	ErrInvalidScalar = fmt.Errorf("%w: peer scalar not in 1 < s < r", pakeerr.ErrInvalidMessage)
	// ErrInvalidElement: the peer's element is not a point on the curve (a
	// coordinate not below p, or (x, y) off the curve; the identity has no
	// x || y encoding).
	ErrInvalidElement = fmt.Errorf("%w: peer element not a valid point", pakeerr.ErrInvalidMessage)
	// ErrReflection: the peer's commit equals our own, evidence of a
	// reflection attack (RFC 7664 §3.3, IEEE 802.11-2020 §12.4.5.4).
	ErrReflection = fmt.Errorf("%w: peer commit reflects our own", pakeerr.ErrInvalidMessage)
	// ErrIdentityKey: the shared secret K is the point at infinity.
	ErrIdentityKey = fmt.Errorf("%w: shared secret is the identity", pakeerr.ErrInvalidMessage)
)

// PointFromAffine returns the point (x, y), which the caller has computed to
// be on the curve.
func PointFromAffine(x, y *Element) (*group.Point, error) {
	b := make([]byte, 0, 1+ElementSize)
	b = append(b, 4) // SEC 1 uncompressed
	b = append(b, x.Bytes()...)
	b = append(b, y.Bytes()...)
	return group.NewPoint().SetBytes(b)
}

// EncodeElement returns the x || y encoding of a point other than the
// identity.
func EncodeElement(p *group.Point) []byte { return p.Bytes()[1:] }

// DecodeElement parses an x || y encoding. It rejects wrong lengths,
// coordinates not below p and points off the curve with ErrInvalidElement.
func DecodeElement(b []byte) (*group.Point, error) {
	if len(b) != ElementSize {
		return nil, ErrInvalidElement
	}
	p, err := group.NewPoint().SetBytes(append([]byte{4}, b...))
	if err != nil {
		return nil, ErrInvalidElement
	}
	return p, nil
}

// Commit is one side's commit: a scalar and an element, with their
// encodings (computed once: encoding a point costs a field inversion).
type Commit struct {
	Scalar  *group.Scalar
	Element *group.Point
	sb, eb  []byte
}

func newCommit(s *group.Scalar, e *group.Point) *Commit {
	return &Commit{Scalar: s, Element: e, sb: s.Bytes(), eb: EncodeElement(e)}
}

// ScalarBytes returns the scalar as 32 big-endian bytes.
func (c *Commit) ScalarBytes() []byte { return append([]byte(nil), c.sb...) }

// ElementBytes returns the element as x || y.
func (c *Commit) ElementBytes() []byte { return append([]byte(nil), c.eb...) }

// Equal reports whether c and d carry the same scalar and element. Commits
// are public, so it need not be constant time.
func (c *Commit) Equal(d *Commit) bool {
	return c.Scalar.Equal(d.Scalar) == 1 && c.Element.Equal(d.Element) == 1
}

var one = group.NewScalar().SetReducedBytes([]byte{1})

// randomAbove1 returns a uniformly random scalar s with 1 < s < r.
func randomAbove1(rand io.Reader) (*group.Scalar, error) {
	for {
		s, err := group.RandomScalar(rand)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", pakeerr.ErrRandom, err)
		}
		// A rejected value (probability 2^-256) is discarded, so branching on
		// it reveals nothing about the value kept.
		if s.Equal(one) == 0 {
			return s, nil
		}
	}
}

// GenerateCommit chooses private and mask at random with 1 < private,
// mask < r and returns private and the commit scalar = (private + mask) mod r,
// Element = inverse(scalar-op(mask, PE)) = -(mask·PE), drawing again while the
// scalar is less than 2 (RFC 7664 §3.3; IEEE 802.11-2020 §12.4.5.2, where
// private is called rand). Randomness is read as private then mask, 48 bytes
// each (group.RandomScalar); a nil rand means crypto/rand. A nil pe, or the
// identity, fails with pakeerr.ErrInvalidParameter.
func GenerateCommit(rand io.Reader, pe *group.Point) (private *group.Scalar, c *Commit, err error) {
	if pe == nil || pe.IsIdentity() == 1 {
		return nil, nil, fmt.Errorf("%w: no password element", pakeerr.ErrInvalidParameter)
	}
	rand = sysrand.Or(rand)
	for {
		private, err := randomAbove1(rand)
		if err != nil {
			return nil, nil, err
		}
		mask, err := randomAbove1(rand)
		if err != nil {
			return nil, nil, err
		}
		scalar := group.NewScalar().Add(private, mask)
		if scalar.IsZero() == 1 || scalar.Equal(one) == 1 {
			continue // public: the scalar is sent
		}
		element := group.NewPoint().ScalarMult(mask, pe)
		element.Negate(element)
		return private, newCommit(scalar, element), nil
	}
}

// ParseCommit decodes a peer's commit scalar and element and validates them:
// 1 < scalar < r (ErrInvalidScalar) and element a point on the curve
// (ErrInvalidElement) (RFC 7664 §3.3; IEEE 802.11-2020 §12.4.5.4).
func ParseCommit(scalar, element []byte) (*Commit, error) {
	s, err := group.NewScalar().SetCanonicalBytes(scalar)
	if err != nil || s.IsZero() == 1 || s.Equal(one) == 1 {
		return nil, ErrInvalidScalar
	}
	e, err := DecodeElement(element)
	if err != nil {
		return nil, err
	}
	return &Commit{Scalar: s, Element: e, sb: append([]byte(nil), scalar...), eb: append([]byte(nil), element...)}, nil
}

// CheckReflection returns ErrReflection if peer equals own.
func CheckReflection(own, peer *Commit) error {
	if own.Equal(peer) {
		return ErrReflection
	}
	return nil
}

// SharedSecret returns F(K), the x coordinate of
// K = scalar-op(private, element-op(scalar-op(peer-scalar, PE), peer-Element)),
// as 32 bytes, or ErrIdentityKey if K is the identity (RFC 7664 §3.3;
// IEEE 802.11-2020 §12.4.5.4). It costs two variable-base scalar
// multiplications.
func SharedSecret(private *group.Scalar, pe *group.Point, peer *Commit) ([]byte, error) {
	k := group.NewPoint().ScalarMult(peer.Scalar, pe)
	k.Add(k, peer.Element)
	k.ScalarMult(private, k)
	x, err := k.BytesX()
	if errors.Is(err, group.ErrIdentity) {
		return nil, ErrIdentityKey
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", pakeerr.ErrInvalidMessage, err)
	}
	return x, nil
}
