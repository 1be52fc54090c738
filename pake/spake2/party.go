package spake2

import (
	"bytes"
	"crypto/hmac"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// state is where a party is in its exchange.
type state int

const (
	stateStart  state = iota // nothing sent or received
	stateActive              // share sent, waiting for the peer's next message
	stateDone                // finished, session key available
	stateFailed              // an error ended the exchange
)

// session is what both parties hold: the agreed parameters and w.
type session struct {
	rand          io.Reader
	idA, idB, aad []byte
	w             *group.Scalar
	wBytes        []byte
	state         state
	key           []byte
}

func newSession(rand io.Reader, idA, idB, aad, w []byte) (session, error) {
	s, err := parseW(w)
	if err != nil {
		return session{}, err
	}
	return session{
		rand:   sysrand.Or(rand),
		idA:    bytes.Clone(idA),
		idB:    bytes.Clone(idB),
		aad:    bytes.Clone(aad),
		w:      s,
		wBytes: bytes.Clone(w),
	}, nil
}

// fail ends the exchange: the party forgets its secrets and refuses any
// further use. A party that already finished keeps its session key.
func (s *session) fail(err error) error {
	if s.state != stateDone {
		s.state = stateFailed
		s.key = nil
	}
	s.w = nil
	clear(s.wBytes)
	return err
}

// finish records the session key Ke and forgets w.
func (s *session) finish(ke []byte) {
	s.key = bytes.Clone(ke)
	s.state = stateDone
	s.w = nil
	clear(s.wBytes)
}

// Done reports whether the exchange finished and the session key is
// available.
func (s *session) Done() bool { return s.state == stateDone }

// SessionKey returns Ke (KeySize bytes) once the exchange is done, and an
// error wrapping pakeerr.ErrState before.
func (s *session) SessionKey() ([]byte, error) {
	if s.state != stateDone {
		return nil, fmt.Errorf("%w: no session key before the exchange is done", pakeerr.ErrState)
	}
	return bytes.Clone(s.key), nil
}

// randomScalar draws x or y uniformly from [1, p-1].
func (s *session) randomScalar() (*group.Scalar, error) {
	r, err := group.RandomScalar(s.rand)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", pakeerr.ErrRandom, err)
	}
	return r, nil
}

func errState(what string) error {
	return fmt.Errorf("%w: %s", pakeerr.ErrState, what)
}

// PartyA is SPAKE2's A, the client: it sends pA, receives pB || cB, and
// answers with cA.
//
// Drive it either with Start and Finish, or with Next (the uniform
// pake.Party interface). After any error the party is dead and every
// further call fails with pakeerr.ErrState. A finished party refuses
// further messages the same way but keeps its session key.
type PartyA struct {
	session
	x  *group.Scalar
	pA []byte
}

// NewA returns party A for one exchange. idA and idB are the identities A
// and B (empty when absent; RFC 9382, Section 3.3), aad the associated data
// bound into the confirmation keys (Section 4); all three must equal B's. w
// is the password scalar: WSize bytes, big-endian, in [1, p-1] (see
// DeriveW). The ephemeral scalar x is read from rand (crypto/rand.Reader if
// nil) when Start runs.
func NewA(rand io.Reader, idA, idB, aad, w []byte) (*PartyA, error) {
	s, err := newSession(rand, idA, idB, aad, w)
	if err != nil {
		return nil, err
	}
	return &PartyA{session: s}, nil
}

// Start returns A's first message, pA = x*P + w*M, with x drawn uniformly
// from [1, p-1] (RFC 9382, Section 3.3).
func (a *PartyA) Start() (pA []byte, err error) {
	if a.state != stateStart {
		return nil, a.fail(errState("Start called twice or after the end"))
	}
	x, err := a.randomScalar()
	if err != nil {
		return nil, a.fail(err)
	}
	a.x = x
	a.pA = share(x, a.w, bases().m).Bytes()
	if len(a.pA) != ShareSize {
		// x*P = -w*M: probability 2^-256 unless rand is broken.
		return nil, a.fail(fmt.Errorf("%w: pA is the identity", pakeerr.ErrRandom))
	}
	a.state = stateActive
	return bytes.Clone(a.pA), nil
}

// Finish consumes B's message pB and cB and returns A's last message,
// cA = MAC(KcA, TT). It computes K = x*(pB - w*N), the transcript TT and
// the key schedule (RFC 9382, Sections 3.3 and 4), and checks
// cB = MAC(KcB, TT) in constant time. A malformed pB, or one that makes K
// the identity, fails with pakeerr.ErrInvalidMessage, a wrong cB with
// pakeerr.ErrAuthFailed. On success the session key is Ke.
func (a *PartyA) Finish(pB, cB []byte) (cA []byte, err error) {
	if a.state != stateActive {
		return nil, a.fail(errState("Finish called before Start or after the end"))
	}
	if len(cB) != MACSize {
		return nil, a.fail(fmt.Errorf("%w: cB: %d bytes, want %d", pakeerr.ErrInvalidMessage, len(cB), MACSize))
	}
	ks, err := a.derive(pB)
	if err != nil {
		return nil, a.fail(err)
	}
	if !hmac.Equal(cB, ks.cB) {
		return nil, a.fail(fmt.Errorf("%w: cB does not match", pakeerr.ErrAuthFailed))
	}
	a.finish(ks.ke)
	return ks.cA, nil
}

// fail also forgets x.
func (a *PartyA) fail(err error) error {
	a.x = nil
	return a.session.fail(err)
}

// derive computes A's K and the key schedule from pB.
func (a *PartyA) derive(pB []byte) (*keySchedule, error) {
	q, err := parseShare("pB", pB)
	if err != nil {
		return nil, err
	}
	k, err := sharedPoint("pB", a.x, a.w, q, bases().n)
	if err != nil {
		return nil, err
	}
	a.x = nil
	return deriveKeys(transcript(a.idA, a.idB, a.pA, pB, k, a.wBytes), a.aad)
}

// Next implements pake.Party: in is nil on the first call, which returns
// pA; the second call takes pB || cB and returns cA.
func (a *PartyA) Next(in []byte) ([]byte, error) {
	switch a.state {
	case stateStart:
		if in != nil {
			return nil, a.fail(fmt.Errorf("%w: A speaks first; its first Next takes nil", pakeerr.ErrInvalidMessage))
		}
		return a.Start()
	case stateActive:
		if len(in) != ShareSize+MACSize {
			return nil, a.fail(fmt.Errorf("%w: pB || cB: %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), ShareSize+MACSize))
		}
		return a.Finish(in[:ShareSize], in[ShareSize:])
	}
	return nil, a.fail(errState("exchange already over"))
}

// PartyB is SPAKE2's B, the server: it receives pA, answers with
// pB || cB, and checks A's cA.
//
// Drive it either with Respond and Finish, or with Next (the uniform
// pake.Party interface). After any error the party is dead and every
// further call fails with pakeerr.ErrState. A finished party refuses
// further messages the same way but keeps its session key.
type PartyB struct {
	session
	cA []byte // expected from A
	ke []byte // session key once cA checks
}

// NewB returns party B for one exchange; the parameters are those of NewA,
// and must be equal to A's. The ephemeral scalar y is read from rand
// (crypto/rand.Reader if nil) when Respond runs.
func NewB(rand io.Reader, idA, idB, aad, w []byte) (*PartyB, error) {
	s, err := newSession(rand, idA, idB, aad, w)
	if err != nil {
		return nil, err
	}
	return &PartyB{session: s}, nil
}

// Respond consumes A's pA and returns pB = y*P + w*N, with y drawn
// uniformly from [1, p-1], and cB = MAC(KcB, TT) (RFC 9382, Sections 3.3
// and 4). It computes K = y*(pA - w*M), the transcript and the key
// schedule. A malformed pA, or one that makes K the identity, fails with
// pakeerr.ErrInvalidMessage.
func (b *PartyB) Respond(pA []byte) (pB, cB []byte, err error) {
	if b.state != stateStart {
		return nil, nil, b.fail(errState("Respond called twice or after the end"))
	}
	q, err := parseShare("pA", pA)
	if err != nil {
		return nil, nil, b.fail(err)
	}
	y, err := b.randomScalar()
	if err != nil {
		return nil, nil, b.fail(err)
	}
	c := bases()
	pB = share(y, b.w, c.n).Bytes()
	if len(pB) != ShareSize {
		// y*P = -w*N: probability 2^-256 unless rand is broken.
		return nil, nil, b.fail(fmt.Errorf("%w: pB is the identity", pakeerr.ErrRandom))
	}
	k, err := sharedPoint("pA", y, b.w, q, c.m)
	if err != nil {
		return nil, nil, b.fail(err)
	}
	ks, err := deriveKeys(transcript(b.idA, b.idB, pA, pB, k, b.wBytes), b.aad)
	if err != nil {
		return nil, nil, b.fail(err)
	}
	b.cA, b.ke = ks.cA, ks.ke
	b.state = stateActive
	return pB, ks.cB, nil
}

// Finish checks A's confirmation cA = MAC(KcA, TT) in constant time; a
// mismatch fails with pakeerr.ErrAuthFailed. On success the session key is
// Ke.
func (b *PartyB) Finish(cA []byte) error {
	if b.state != stateActive {
		return b.fail(errState("Finish called before Respond or after the end"))
	}
	if len(cA) != MACSize {
		return b.fail(fmt.Errorf("%w: cA: %d bytes, want %d", pakeerr.ErrInvalidMessage, len(cA), MACSize))
	}
	if !hmac.Equal(cA, b.cA) {
		return b.fail(fmt.Errorf("%w: cA does not match", pakeerr.ErrAuthFailed))
	}
	b.finish(b.ke)
	b.cA, b.ke = nil, nil
	return nil
}

// fail also forgets B's pending keys.
func (b *PartyB) fail(err error) error {
	b.cA, b.ke = nil, nil
	return b.session.fail(err)
}

// Next implements pake.Party: the first call takes pA and returns
// pB || cB; the second takes cA and returns nil once the exchange is done.
func (b *PartyB) Next(in []byte) ([]byte, error) {
	switch b.state {
	case stateStart:
		pB, cB, err := b.Respond(in)
		if err != nil {
			return nil, err
		}
		return append(pB, cB...), nil
	case stateActive:
		return nil, b.Finish(in)
	}
	return nil, b.fail(errState("exchange already over"))
}
