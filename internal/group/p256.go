// NIST P-256: scalars modulo the group order n and points on the curve,
// with their SEC 1 encodings. See the package documentation (doc.go).

package group

import (
	"errors"
	"fmt"
	"io"

	"filippo.io/nistec"

	"github.com/kexlab/kexlab/internal/p256scalar"
)

// Errors returned by decoders. They are distinct values so callers can tell
// them apart; all of them mean "reject the input".
var (
	ErrInvalidEncoding = errors.New("group: invalid point encoding")
	ErrIdentity        = errors.New("group: point is the identity")
	ErrInvalidScalar   = errors.New("group: invalid scalar encoding")
)

// Sizes of P-256 encodings (SEC 1 v2, §2.3.3).
const (
	ScalarSize            = 32
	ElementSize           = 32 // one field element / coordinate
	CompressedPointSize   = 1 + ElementSize
	UncompressedPointSize = 1 + 2*ElementSize
)

// p256Order is n, the order of the P-256 base point (SEC 2 §2.4.2).
var p256Order = []byte{
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84,
	0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
}

// Scalar is an integer modulo n, the P-256 group order, held by
// internal/p256scalar in constant-time Montgomery arithmetic (no heap
// allocations; Invert is a constant-time Bernstein–Yang inversion, about a
// twentieth of a ScalarMult). Create scalars with NewScalar; the zero value
// is also 0.
type Scalar struct {
	s p256scalar.Scalar
}

// NewScalar returns the scalar 0.
func NewScalar() *Scalar { return new(Scalar) }

// Set sets s = x and returns s.
func (s *Scalar) Set(x *Scalar) *Scalar {
	s.s.Set(&x.s)
	return s
}

// SetCanonicalBytes sets s to the big-endian 32-byte value b, which must be
// less than n. It is constant time in the value of b.
func (s *Scalar) SetCanonicalBytes(b []byte) (*Scalar, error) {
	if len(b) != ScalarSize {
		return nil, fmt.Errorf("%w: %d bytes, want %d", ErrInvalidScalar, len(b), ScalarSize)
	}
	if _, err := s.s.SetBytes(b); err != nil {
		return nil, fmt.Errorf("%w: not less than the group order", ErrInvalidScalar)
	}
	return s, nil
}

// SetReducedBytes sets s to the big-endian value b reduced modulo n, for b
// of any length (a "wide reduction": reducing 48 or more uniform bytes gives
// a scalar with negligible bias). It is constant time in the value of b; its
// time depends only on len(b).
func (s *Scalar) SetReducedBytes(b []byte) *Scalar {
	s.s.SetReducedBytes(b)
	return s
}

// Bytes returns the 32-byte big-endian encoding of s.
func (s *Scalar) Bytes() []byte { return s.s.Bytes() }

// Add sets s = x + y mod n and returns s.
func (s *Scalar) Add(x, y *Scalar) *Scalar {
	s.s.Add(&x.s, &y.s)
	return s
}

// Sub sets s = x - y mod n and returns s.
func (s *Scalar) Sub(x, y *Scalar) *Scalar {
	s.s.Sub(&x.s, &y.s)
	return s
}

// Mul sets s = x * y mod n and returns s.
func (s *Scalar) Mul(x, y *Scalar) *Scalar {
	s.s.Mul(&x.s, &y.s)
	return s
}

// Negate sets s = -x mod n and returns s.
func (s *Scalar) Negate(x *Scalar) *Scalar {
	s.s.Negate(&x.s)
	return s
}

// Invert sets s = 1/x mod n (0 if x is 0) and returns s, in constant time.
func (s *Scalar) Invert(x *Scalar) *Scalar {
	s.s.Invert(&x.s)
	return s
}

// Equal returns 1 if s == x and 0 otherwise, in constant time.
func (s *Scalar) Equal(x *Scalar) int { return s.s.Equal(&x.s) }

// IsZero returns 1 if s == 0 and 0 otherwise, in constant time.
func (s *Scalar) IsZero() int { return s.s.IsZero() }

// RandomScalar returns a uniformly random non-zero scalar, read from rand as
// 48 bytes and reduced modulo n (bias below 2^-128).
//
// Tests replay a fixed scalar x from a specification by supplying 16 zero
// bytes followed by the 32-byte x: the reduction of that value is x.
func RandomScalar(rand io.Reader) (*Scalar, error) {
	var buf [ScalarSize + 16]byte
	for {
		if _, err := io.ReadFull(rand, buf[:]); err != nil {
			return nil, fmt.Errorf("group: reading randomness: %w", err)
		}
		s := NewScalar().SetReducedBytes(buf[:])
		// Zero has probability ~2^-256; retrying leaks nothing useful.
		if s.IsZero() == 0 {
			return s, nil
		}
	}
}

// Point is a point on P-256. The zero value is not usable; create points
// with NewPoint, NewGenerator or SetBytes.
type Point struct {
	p *nistec.P256Point
}

// NewPoint returns the identity (the point at infinity).
func NewPoint() *Point { return &Point{p: nistec.NewP256Point()} }

// NewGenerator returns the standard base point G.
func NewGenerator() *Point { return &Point{p: nistec.NewP256Point().SetGenerator()} }

// Set sets p = q and returns p.
func (p *Point) Set(q *Point) *Point {
	p.p = nistec.NewP256Point().Set(q.p)
	return p
}

// SetBytes decodes a SEC 1 compressed (33-byte) or uncompressed (65-byte)
// point. It rejects wrong lengths, unknown prefixes, non-canonical
// coordinates (>= p), points off the curve and the identity (whose SEC 1
// encoding is the single byte 0x00) with an error wrapping ErrIdentity or
// ErrInvalidEncoding.
func (p *Point) SetBytes(b []byte) (*Point, error) {
	if len(b) == 1 && b[0] == 0 {
		return nil, ErrIdentity
	}
	if len(b) != CompressedPointSize && len(b) != UncompressedPointSize {
		return nil, fmt.Errorf("%w: %d bytes", ErrInvalidEncoding, len(b))
	}
	q, err := nistec.NewP256Point().SetBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidEncoding, err)
	}
	p.p = q
	return p, nil
}

// Bytes returns the uncompressed SEC 1 encoding (65 bytes), or the single
// byte 0x00 for the identity.
func (p *Point) Bytes() []byte { return p.p.Bytes() }

// BytesCompressed returns the compressed SEC 1 encoding (33 bytes), or the
// single byte 0x00 for the identity.
func (p *Point) BytesCompressed() []byte { return p.p.BytesCompressed() }

// BytesX returns the 32-byte affine x coordinate, or an error for the
// identity.
func (p *Point) BytesX() ([]byte, error) {
	x, err := p.p.BytesX()
	if err != nil {
		return nil, ErrIdentity
	}
	return x, nil
}

// Add sets p = a + b and returns p. It is complete and constant time.
func (p *Point) Add(a, b *Point) *Point {
	p.p = nistec.NewP256Point().Add(a.p, b.p)
	return p
}

// Negate sets p = -a and returns p.
func (p *Point) Negate(a *Point) *Point {
	p.p = nistec.NewP256Point().Negate(a.p)
	return p
}

// Equal returns 1 if p == q and 0 otherwise, in constant time.
func (p *Point) Equal(q *Point) int { return p.p.Equal(q.p) }

// IsIdentity returns 1 if p is the identity and 0 otherwise.
func (p *Point) IsIdentity() int { return p.p.IsInfinity() }

// ScalarMult sets p = s*q and returns p, in constant time.
func (p *Point) ScalarMult(s *Scalar, q *Point) *Point {
	var b [ScalarSize]byte
	defer clear(b[:]) // the secret scalar's bytes
	r, err := nistec.NewP256Point().ScalarMult(q.p, s.s.FillBytes(&b))
	if err != nil {
		panic("group: unreachable: 32-byte scalar rejected: " + err.Error())
	}
	p.p = r
	return p
}

// ScalarBaseMult sets p = s*G and returns p, in constant time.
func (p *Point) ScalarBaseMult(s *Scalar) *Point {
	var b [ScalarSize]byte
	defer clear(b[:])
	r, err := nistec.NewP256Point().ScalarBaseMult(s.s.FillBytes(&b))
	if err != nil {
		panic("group: unreachable: 32-byte scalar rejected: " + err.Error())
	}
	p.p = r
	return p
}
