package oeke

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

type state int

const (
	stateStart   state = iota
	stateWaiting       // sent message 1 (client) or message 2 (server)
	stateDone
	stateFailed
)

// party is what both sides hold.
type party struct {
	p     *Params
	rand  io.Reader
	sid   Session
	pwKey []byte
	state state
	key   []byte
}

func newParty(random io.Reader, p *Params, pwKey []byte, s Session) (party, error) {
	random = sysrand.Or(random)
	if p == nil {
		return party{}, fmt.Errorf("%w: oeke: no suite", pakeerr.ErrInvalidParameter)
	}
	if len(pwKey) != PasswordKeySize {
		return party{}, fmt.Errorf("%w: oeke: password key of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(pwKey), PasswordKeySize)
	}
	return party{
		p: p, rand: random, pwKey: bytes.Clone(pwKey),
		sid: Session{bytes.Clone(s.ClientID), bytes.Clone(s.ServerID)},
	}, nil
}

func (pt *party) fail(err error) error {
	pt.state = stateFailed
	clear(pt.pwKey)
	pt.key = nil
	return err
}

func (pt *party) finished() error {
	if pt.state == stateDone {
		return fmt.Errorf("%w: oeke: party has finished", pakeerr.ErrState)
	}
	return fmt.Errorf("%w: oeke: party failed earlier", pakeerr.ErrState)
}

// Done reports whether the party has finished with a session key.
func (pt *party) Done() bool { return pt.state == stateDone }

// SessionKey returns sk once Done, and an error wrapping pakeerr.ErrState
// before.
func (pt *party) SessionKey() ([]byte, error) {
	if pt.state != stateDone {
		return nil, fmt.Errorf("%w: oeke: no session key yet", pakeerr.ErrState)
	}
	return bytes.Clone(pt.key), nil
}

// Client is the client (the paper's U), a state machine with the contract
// of pake.Party: Next(nil) returns X; Next(message 2) returns Auth, after
// which the client is done.
type Client struct {
	party
	x, pubX []byte
}

// NewClient starts a client with the password key of p.DeriveKey. It draws
// x from random (crypto/rand if nil) and computes X = g^x.
func NewClient(random io.Reader, p *Params, pwKey []byte, s Session) (*Client, error) {
	pt, err := newParty(random, p, pwKey, s)
	if err != nil {
		return nil, err
	}
	x, err := p.group.secret(pt.rand)
	if err != nil {
		return nil, err
	}
	return &Client{party: pt, x: x, pubX: p.group.public(x)}, nil
}

// Next consumes the server's message (nil for the first call) and returns
// the client's next message. A message 2 of the wrong length fails with
// an error wrapping pakeerr.ErrInvalidMessage; one that does not decrypt
// to a valid element, the sign of a wrong password, with
// pakeerr.ErrAuthFailed. After any error, and once done, Next fails with
// pakeerr.ErrState.
func (c *Client) Next(in []byte) ([]byte, error) {
	switch c.state {
	case stateStart:
		if in != nil {
			return nil, c.fail(fmt.Errorf("%w: oeke: the client speaks first and takes no message", pakeerr.ErrInvalidMessage))
		}
		c.state = stateWaiting
		return bytes.Clone(c.pubX), nil
	case stateWaiting:
		auth, err := c.answer(in)
		if err != nil {
			return nil, c.fail(err)
		}
		c.state = stateDone
		return auth, nil
	default:
		return nil, c.finished()
	}
}

// answer decrypts Y from message 2, computes K = Y^x, and returns Auth.
func (c *Client) answer(in []byte) ([]byte, error) {
	if len(in) != c.p.Message2Size() {
		return nil, fmt.Errorf("%w: oeke: message 2 of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), c.p.Message2Size())
	}
	Y, err := open(c.pwKey, in[:IVSize], in[IVSize:], c.p.ElementSize())
	if err != nil {
		return nil, err
	}
	K, err := c.p.group.shared(c.x, Y)
	if err != nil {
		// A decrypted Y that is not an element: a wrong password (or a
		// modified message), not a malformed message.
		return nil, fmt.Errorf("%w: oeke: decrypted Y: %v", pakeerr.ErrAuthFailed, err)
	}
	auth, sk := c.p.keys(c.sid, c.pubX, Y, K)
	clear(K)
	clear(c.x)
	clear(c.pwKey)
	c.key = sk
	return auth, nil
}

func (c *Client) fail(err error) error {
	clear(c.x)
	return c.party.fail(err)
}

// Server is the server (the paper's S): Next(message 1) returns
// message 2; Next(message 3) checks Auth and returns nil, after which the
// server is done.
type Server struct {
	party
	auth []byte // the Auth the client must send
	sk   []byte
}

// NewServer starts a server with the password key of p.DeriveKey. It will
// draw y and the IV from random (crypto/rand if nil).
func NewServer(random io.Reader, p *Params, pwKey []byte, s Session) (*Server, error) {
	pt, err := newParty(random, p, pwKey, s)
	if err != nil {
		return nil, err
	}
	return &Server{party: pt}, nil
}

// Next consumes the client's message and returns the server's answer, or
// nil once it is done. A malformed message or an invalid X fails with an
// error wrapping pakeerr.ErrInvalidMessage; a wrong Auth with
// pakeerr.ErrAuthFailed. After any error, and once done, Next fails with
// pakeerr.ErrState.
func (s *Server) Next(in []byte) ([]byte, error) {
	switch s.state {
	case stateStart:
		out, err := s.answer(in)
		if err != nil {
			return nil, s.fail(err)
		}
		s.state = stateWaiting
		return out, nil
	case stateWaiting:
		if len(in) != AuthSize {
			return nil, s.fail(fmt.Errorf("%w: oeke: Auth of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), AuthSize))
		}
		if subtle.ConstantTimeCompare(in, s.auth) != 1 {
			return nil, s.fail(fmt.Errorf("%w: oeke: client's Auth does not match", pakeerr.ErrAuthFailed))
		}
		s.key = s.sk
		s.state = stateDone
		return nil, nil
	default:
		return nil, s.finished()
	}
}

// answer checks X, draws y and the IV, and returns IV ‖ Y*.
func (s *Server) answer(X []byte) ([]byte, error) {
	if X == nil {
		return nil, fmt.Errorf("%w: oeke: the server needs the client's message 1", pakeerr.ErrInvalidMessage)
	}
	if len(X) != s.p.Message1Size() {
		return nil, fmt.Errorf("%w: oeke: message 1 of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(X), s.p.Message1Size())
	}
	y, err := s.p.group.secret(s.rand)
	if err != nil {
		return nil, err
	}
	defer clear(y)
	K, err := s.p.group.shared(y, X)
	if err != nil {
		return nil, err
	}
	defer clear(K)
	iv := make([]byte, IVSize)
	if _, err := io.ReadFull(s.rand, iv); err != nil {
		return nil, fmt.Errorf("%w: oeke: %v", pakeerr.ErrRandom, err)
	}
	Y := s.p.group.public(y)
	ct, err := seal(s.pwKey, iv, Y)
	if err != nil {
		return nil, err
	}
	s.auth, s.sk = s.p.keys(s.sid, X, Y, K)
	clear(s.pwKey)
	return append(iv, ct...), nil
}

func (s *Server) fail(err error) error {
	s.auth, s.sk = nil, nil
	return s.party.fail(err)
}
