package srp

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group/modp"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Server is the server side of an SRP-6a exchange, working from the
// client's record alone. Next(message 1) returns message 2 (s, B),
// Next(message 3) checks M1 and returns message 4 (M2), after which the
// server is done.
type Server struct {
	party
	p        *Params
	identity []byte
	salt     []byte
	v        *modp.Element
	b        []byte
	pubB     []byte // PAD(B)
	m1, m2   []byte // the M1 the client must send, and the answer
}

// NewServer starts a server for the client with identity I and record r. It
// draws b from random (crypto/rand if nil) and computes B = (k*v + g^b) % N.
func NewServer(random io.Reader, p *Params, identity []byte, r *Record) (*Server, error) {
	if p == nil {
		return nil, errNoParams
	}
	if r == nil {
		return nil, fmt.Errorf("%w: srp: no record", pakeerr.ErrInvalidParameter)
	}
	if err := checkSalt(r.Salt); err != nil {
		return nil, err
	}
	v, _, err := p.parseElement(r.Verifier)
	if err != nil {
		return nil, fmt.Errorf("%w: srp: record verifier: %v", pakeerr.ErrInvalidParameter, err)
	}
	random = sysrand.Or(random)
	b, err := modp.RandomExponent(random, modp.ExponentSize)
	if err != nil {
		return nil, err
	}
	return &Server{
		p:        p,
		identity: bytes.Clone(identity),
		salt:     bytes.Clone(r.Salt),
		v:        v,
		b:        b,
		pubB:     p.publicB(v, b).Bytes(),
	}, nil
}

// Next consumes the client's latest message and returns the server's
// answer, or nil once it is done. A malformed message 1 or 3 fails with an
// error wrapping pakeerr.ErrInvalidMessage, a wrong M1 with
// pakeerr.ErrAuthFailed; after any error, and once done, Next fails with
// pakeerr.ErrState.
func (s *Server) Next(in []byte) ([]byte, error) {
	switch s.state {
	case stateStart:
		m2, err := s.answer(in)
		if err != nil {
			return nil, s.fail(err)
		}
		s.state = stateConfirm
		return m2, nil
	case stateConfirm:
		if len(in) != s.p.HashSize() {
			return nil, s.fail(fmt.Errorf("%w: srp: M1 of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), s.p.HashSize()))
		}
		if subtle.ConstantTimeCompare(in, s.m1) != 1 {
			return nil, s.fail(fmt.Errorf("%w: srp: client's M1 does not match", pakeerr.ErrAuthFailed))
		}
		s.state = stateDone
		return bytes.Clone(s.m2), nil
	default:
		return nil, s.finished()
	}
}

// answer processes message 1, A in 1 to ElementSize bytes, derives K, M1 and M2, and returns
// message 2.
func (s *Server) answer(in []byte) ([]byte, error) {
	if in == nil {
		return nil, fmt.Errorf("%w: srp: the server needs the client's message 1", pakeerr.ErrInvalidMessage)
	}
	A, in, err := s.p.parseElement(in)
	if err != nil {
		return nil, fmt.Errorf("srp: A: %w", err)
	}
	u, err := s.p.u(in, s.pubB)
	if err != nil {
		return nil, err
	}
	S := s.p.serverSecret(A, s.v, s.b, u)
	s.key, s.m1, s.m2 = s.p.confirmation(s.identity, s.salt, in, s.pubB, S)
	clear(S)
	s.forget()
	B := s.p.public(s.pubB)
	out := make([]byte, 0, 1+len(s.salt)+len(B))
	out = append(out, byte(len(s.salt)))
	out = append(out, s.salt...)
	return append(out, B...), nil
}

// forget drops b and the verifier once they are no longer needed.
func (s *Server) forget() {
	clear(s.b)
	s.b, s.v = nil, nil
}

func (s *Server) fail(err error) error {
	s.state = stateFailed
	s.forget()
	s.key, s.m1, s.m2 = nil, nil, nil
	return err
}

// MarshalBinary encodes the server's state between message 2 and message 3
// — the M1 it expects, its M2 and K, each HashSize bytes — so that another
// process can finish the exchange (ResumeServer). The encoding holds the
// session key: keep it secret and short-lived. It fails with an error
// wrapping pakeerr.ErrState in any other state.
func (s *Server) MarshalBinary() ([]byte, error) {
	if s == nil || s.p == nil || s.state != stateConfirm {
		return nil, fmt.Errorf("%w: srp: no exchange waiting for M1", pakeerr.ErrState)
	}
	return append(append(bytes.Clone(s.m1), s.m2...), s.key...), nil
}

// ResumeServer restores a server from MarshalBinary's encoding for p; its
// next Next call takes message 3. A state of the wrong length fails with an
// error wrapping pakeerr.ErrInvalidParameter.
func ResumeServer(p *Params, state []byte) (*Server, error) {
	if p == nil {
		return nil, errNoParams
	}
	h := p.HashSize()
	if len(state) != 3*h {
		return nil, fmt.Errorf("%w: srp: server state of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(state), 3*h)
	}
	s := &Server{p: p, m1: bytes.Clone(state[:h]), m2: bytes.Clone(state[h : 2*h])}
	s.key, s.state = bytes.Clone(state[2*h:]), stateConfirm
	return s, nil
}
