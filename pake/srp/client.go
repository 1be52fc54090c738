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

// Client is the client side of an SRP-6a exchange, a state machine driven
// by Next with the contract of pake.Party: Next(nil) returns message 1
// (enc(A)), Next(message 2) returns message 3 (M1), Next(message 4)
// checks M2 and returns nil, after which the client is done.
type Client struct {
	party
	p        *Params
	identity []byte
	inner    []byte // H(I | ":" | P), until message 2
	a        []byte
	pubA     []byte // PAD(A)
	m2       []byte // the M2 the server must send
}

// NewClient starts a client with identity I and a non-empty password. It
// draws a from random (crypto/rand if nil) and computes A = g^a % N.
func NewClient(random io.Reader, p *Params, identity, password []byte) (*Client, error) {
	if len(password) == 0 {
		return nil, errEmptyPassword
	}
	c, err := NewClientWithoutPassword(random, p, identity)
	if err != nil {
		return nil, err
	}
	return c, c.SetPassword(password)
}

// NewClientWithoutPassword starts a client whose password is given later
// by SetPassword, before message 2 is consumed: A does not depend on the
// password, so a login can send A before it knows the parameters with
// which the password is stretched (the PAKE service sends them with
// message 2).
func NewClientWithoutPassword(random io.Reader, p *Params, identity []byte) (*Client, error) {
	if p == nil {
		return nil, errNoParams
	}
	a, err := modp.RandomExponent(sysrand.Or(random), modp.ExponentSize)
	if err != nil {
		return nil, err
	}
	return &Client{
		p:        p,
		identity: bytes.Clone(identity),
		a:        a,
		pubA:     p.group.ExpBase(a).Bytes(),
	}, nil
}

// SetPassword sets the client's non-empty password once, before message 2
// is consumed; otherwise it fails with an error wrapping pakeerr.ErrState.
func (c *Client) SetPassword(password []byte) error {
	if len(password) == 0 {
		return errEmptyPassword
	}
	if c == nil || c.p == nil || c.inner != nil || c.state > stateSent {
		return fmt.Errorf("%w: srp: the password is set once, before message 2", pakeerr.ErrState)
	}
	c.inner = c.p.identityHash(c.identity, password)
	return nil
}

// Next consumes the server's latest message (nil for the first call) and
// returns the client's next message, or nil once it is done. A malformed
// message 2 fails with an error wrapping pakeerr.ErrInvalidMessage, a
// wrong M2 with pakeerr.ErrAuthFailed; after any error, and once done,
// Next fails with pakeerr.ErrState.
func (c *Client) Next(in []byte) ([]byte, error) {
	switch c.state {
	case stateStart:
		if in != nil {
			return nil, c.fail(fmt.Errorf("%w: srp: the client speaks first and takes no message", pakeerr.ErrInvalidMessage))
		}
		c.state = stateSent
		return bytes.Clone(c.p.public(c.pubA)), nil
	case stateSent:
		m1, err := c.answer(in)
		if err != nil {
			return nil, c.fail(err)
		}
		c.state = stateConfirm
		return m1, nil
	case stateConfirm:
		if len(in) != c.p.HashSize() {
			return nil, c.fail(fmt.Errorf("%w: srp: M2 of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), c.p.HashSize()))
		}
		if subtle.ConstantTimeCompare(in, c.m2) != 1 {
			return nil, c.fail(fmt.Errorf("%w: srp: server's M2 does not match", pakeerr.ErrAuthFailed))
		}
		c.state = stateDone
		return nil, nil
	default:
		return nil, c.finished()
	}
}

// answer processes message 2, s and B, and returns M1.
func (c *Client) answer(in []byte) ([]byte, error) {
	if c.inner == nil {
		return nil, fmt.Errorf("%w: srp: no password (SetPassword)", pakeerr.ErrState)
	}
	salt, bBytes, err := parseMessage2(c.p, in)
	if err != nil {
		return nil, err
	}
	B, bBytes, err := c.p.parseElement(bBytes)
	if err != nil {
		return nil, fmt.Errorf("srp: B: %w", err)
	}
	u, err := c.p.u(c.pubA, bBytes)
	if err != nil {
		return nil, err
	}
	x := c.p.x(salt, c.inner)
	S := c.p.clientSecret(B, x, c.a, u)
	K, M1, M2 := c.p.confirmation(c.identity, salt, c.pubA, bBytes, S)
	clear(x)
	clear(S)
	c.forget()
	c.key, c.m2 = K, M2
	return M1, nil
}

// parseMessage2 splits len(s) | s | B, where B has 1 to ElementSize bytes.
func parseMessage2(p *Params, in []byte) (salt, B []byte, err error) {
	if len(in) < 3 || in[0] == 0 || len(in) < 2+int(in[0]) || len(in) > 1+int(in[0])+p.ElementSize() {
		return nil, nil, fmt.Errorf("%w: srp: message 2 of %d bytes does not parse", pakeerr.ErrInvalidMessage, len(in))
	}
	n := 1 + int(in[0]) // int: 1+in[0] in byte arithmetic wraps at 255
	return in[1:n], in[n:], nil
}

// forget drops the client's long-term and ephemeral secrets.
func (c *Client) forget() {
	clear(c.inner)
	clear(c.a)
	c.inner, c.a = nil, nil
}

func (c *Client) fail(err error) error {
	c.state = stateFailed
	c.forget()
	c.key, c.m2 = nil, nil
	return err
}
