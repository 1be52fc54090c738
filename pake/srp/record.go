package srp

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Record is what the server stores for a client, besides its identity I:
// the salt s and the verifier v = g^x % N (RFC 5054 §2.4). It holds no
// password, but an attacker who steals it can run a dictionary attack
// against it, at the cost of one x and one exponentiation per guess.
type Record struct {
	Salt     []byte // 1 to 255 bytes
	Verifier []byte // v, big-endian in 1 to ElementSize bytes (Register makes PAD(v))
}

// Register draws a SaltSize-byte salt whose first byte is not zero from
// random (crypto/rand if nil) and returns the record for identity I and a
// non-empty password. (A leading zero byte of the salt would be dropped by
// the libraries that keep the salt as an integer; see the package doc.)
func Register(random io.Reader, p *Params, identity, password []byte) (*Record, error) {
	if p == nil {
		return nil, errNoParams
	}
	random = sysrand.Or(random)
	salt := make([]byte, SaltSize)
	if _, err := io.ReadFull(random, salt); err != nil {
		return nil, fmt.Errorf("%w: srp: %v", pakeerr.ErrRandom, err)
	}
	if salt[0] == 0 { // public: may branch. 1, not a redraw: a reader that gives zeros would loop
		salt[0] = 1
	}
	v, err := p.Verifier(identity, password, salt)
	if err != nil {
		return nil, err
	}
	return &Record{Salt: salt, Verifier: v}, nil
}

// MarshalBinary encodes the record as len(s) (one byte) | s | PAD(v).
func (r *Record) MarshalBinary() ([]byte, error) {
	if err := checkSalt(r.Salt); err != nil {
		return nil, err
	}
	out := make([]byte, 0, 1+len(r.Salt)+len(r.Verifier))
	out = append(out, byte(len(r.Salt)))
	out = append(out, r.Salt...)
	return append(out, r.Verifier...), nil
}

// ParseRecord decodes MarshalBinary's encoding for the parameter set p. It
// rejects an empty salt, a verifier that is empty or longer than
// ElementSize bytes, and a verifier that is 0 or not below N, with an
// error wrapping pakeerr.ErrInvalidParameter. A verifier shorter than N
// (as other SRP libraries store it) is accepted as it is.
func ParseRecord(p *Params, b []byte) (*Record, error) {
	if p == nil {
		return nil, errNoParams
	}
	if len(b) < 3 || int(b[0]) == 0 || len(b) < 2+int(b[0]) || len(b) > 1+int(b[0])+p.ElementSize() {
		return nil, fmt.Errorf("%w: srp: record of %d bytes does not parse", pakeerr.ErrInvalidParameter, len(b))
	}
	n := 1 + int(b[0]) // int: 1+b[0] in byte arithmetic wraps at 255
	r := &Record{Salt: bytes.Clone(b[1:n]), Verifier: bytes.Clone(b[n:])}
	if _, _, err := p.parseElement(r.Verifier); err != nil {
		return nil, fmt.Errorf("%w: srp: record verifier: %v", pakeerr.ErrInvalidParameter, err)
	}
	return r, nil
}
