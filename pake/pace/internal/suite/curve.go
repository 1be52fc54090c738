package suite

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/group/brainpool"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Point is an element of a curve's group, as the protocol uses it.
type Point interface {
	// Bytes returns the SEC 1 uncompressed encoding (PointSize bytes), or
	// 0x00 for the identity.
	Bytes() []byte
	// BytesX returns the affine x coordinate, an error for the identity.
	BytesX() ([]byte, error)
	Add(q Point) Point // q must be on the same curve
	// Mul returns k·P for a big-endian k of at most 32 bytes, in constant
	// time.
	Mul(k []byte) Point
	IsIdentity() bool
}

// Curve is one of the suite's curves, with ICAO's standardized domain
// parameter ID (§9.5.1).
type Curve struct {
	ID           byte
	baseMul      func(k []byte) Point
	decode       func(b []byte) (Point, error)
	randomScalar func(rand io.Reader) ([]byte, error)
	field        *field
}

// The curves: P-256 (ID 12) on internal/group (filippo.io/nistec) and
// brainpoolP256r1 (ID 13) on internal/group/brainpool.
var (
	P256 = &Curve{
		ID: 12,
		baseMul: func(k []byte) Point {
			return p256Point{group.NewPoint().ScalarBaseMult(group.NewScalar().SetReducedBytes(k))}
		},
		decode: func(b []byte) (Point, error) {
			p, err := group.NewPoint().SetBytes(b)
			if err != nil {
				return nil, err
			}
			return p256Point{p}, nil
		},
		randomScalar: func(rand io.Reader) ([]byte, error) {
			s, err := group.RandomScalar(rand)
			if err != nil {
				return nil, err
			}
			return s.Bytes(), nil
		},
		// SEC 2 v2 §2.4.2.
		field: mustField(
			"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
			"ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
			"5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b"),
	}
	BrainpoolP256r1 = &Curve{
		ID:      13,
		baseMul: func(k []byte) Point { return bpPoint{brainpool.NewGenerator()}.Mul(k) },
		decode: func(b []byte) (Point, error) {
			p, err := brainpool.NewPoint().SetBytes(b)
			if err != nil {
				return nil, err
			}
			return bpPoint{p}, nil
		},
		randomScalar: brainpool.RandomScalar,
		field: func() *field {
			prm := brainpool.Params()
			return newField(prm.P, prm.A, prm.B)
		}(),
	}
)

// BaseMul returns k·G for a big-endian k of at most 32 bytes.
func (c *Curve) BaseMul(k []byte) Point { return c.baseMul(k) }

// RandomScalar returns a uniformly random scalar in [1, n-1] (32 bytes),
// reading 48 bytes from rand; 16 zero bytes followed by x replay x.
func (c *Curve) RandomScalar(rand io.Reader) ([]byte, error) { return c.randomScalar(rand) }

// Decode decodes a peer's point: exactly the 65-byte uncompressed SEC 1
// encoding (ICAO's public key data objects carry uncompressed points,
// §9.4) of a point on the curve other than the identity. Errors wrap
// pakeerr.ErrInvalidMessage and group.ErrIdentity or
// group.ErrInvalidEncoding.
func (c *Curve) Decode(b []byte) (Point, error) {
	if len(b) == 1 && b[0] == 0 {
		return nil, fmt.Errorf("%w: pace: %w", pakeerr.ErrInvalidMessage, group.ErrIdentity)
	}
	if len(b) != PointSize || b[0] != 4 {
		return nil, fmt.Errorf("%w: pace: %w: want a %d-byte uncompressed point", pakeerr.ErrInvalidMessage, group.ErrInvalidEncoding, PointSize)
	}
	p, err := c.decode(b)
	if err != nil {
		return nil, fmt.Errorf("%w: pace: %w", pakeerr.ErrInvalidMessage, err)
	}
	return p, nil
}

// P-256, on internal/group (filippo.io/nistec).

type p256Point struct{ p *group.Point }

func (p p256Point) Bytes() []byte { return p.p.Bytes() }

func (p p256Point) BytesX() ([]byte, error) { return p.p.BytesX() }

func (p p256Point) Add(q Point) Point {
	return p256Point{group.NewPoint().Add(p.p, q.(p256Point).p)}
}

func (p p256Point) Mul(k []byte) Point {
	// SetReducedBytes is constant time and takes any length; the scalars
	// here are below n or 16-byte nonces, so it leaves their value alone.
	return p256Point{group.NewPoint().ScalarMult(group.NewScalar().SetReducedBytes(k), p.p)}
}

func (p p256Point) IsIdentity() bool { return p.p.IsIdentity() == 1 }

// brainpoolP256r1, on internal/group/brainpool.

type bpPoint struct{ p *brainpool.Point }

func (p bpPoint) Bytes() []byte { return p.p.Bytes() }

func (p bpPoint) BytesX() ([]byte, error) { return p.p.BytesX() }

func (p bpPoint) Add(q Point) Point {
	return bpPoint{brainpool.NewPoint().Add(p.p, q.(bpPoint).p)}
}

func (p bpPoint) Mul(k []byte) Point {
	r, err := brainpool.NewPoint().ScalarMult(k, p.p)
	if err != nil {
		// Unreachable: every scalar here has at most 32 bytes. The
		// identity makes the caller abort.
		return bpPoint{brainpool.NewPoint()}
	}
	return bpPoint{r}
}

func (p bpPoint) IsIdentity() bool { return p.p.IsIdentity() == 1 }
