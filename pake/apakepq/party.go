package apakepq

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"fmt"
	"io"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
	"github.com/kexlab/kexlab/pake/ocake"
)

type state int

const (
	stateStart state = iota
	stateWaiting
	stateDone
	stateFailed
)

// exchange is what both sides hold.
type exchange struct {
	rand  io.Reader
	sid   Session
	state state
	key   []byte
}

// Done reports whether the exchange finished with a session key.
func (e *exchange) Done() bool { return e.state == stateDone }

// SessionKey returns SK once the party is done.
func (e *exchange) SessionKey() ([]byte, error) {
	if e.state != stateDone {
		return nil, fmt.Errorf("%w: no session key yet", pakeerr.ErrState)
	}
	return bytes.Clone(e.key), nil
}

func (e *exchange) readRand(b []byte) error {
	if _, err := io.ReadFull(e.rand, b); err != nil {
		return fmt.Errorf("%w: %v", pakeerr.ErrRandom, err)
	}
	return nil
}

func (e *exchange) confirm(tau, k, nonce, psi []byte) [Message3Size]byte {
	return transcriptHash("confirm", e.sid.ClientID, e.sid.ServerID, e.sid.Context, tau, k, nonce, psi)
}

func sessionKey(tau []byte) []byte {
	k := transcriptHash("session key", tau)
	return k[:]
}

// aead returns AES-256-GCM keyed with H("ae key", τ); the key is used for
// one message only.
func aead(tau []byte) cipher.AEAD {
	k := transcriptHash("ae key", tau)
	return newGCM(k[:])
}

// newGCM returns AES-GCM with 12-byte nonces and 16-byte tags for a 16-,
// 24- or 32-byte key (the only sizes callers pass).
func newGCM(key []byte) cipher.AEAD {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("apakepq: " + err.Error()) // unreachable: fixed key sizes
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		panic("apakepq: " + err.Error()) // unreachable: standard parameters
	}
	return g
}

// Client proves knowledge of the password: Next(nil) returns message 1,
// Next(message 2) returns message 3 and finishes.
type Client struct {
	exchange
	ocake *ocake.Initiator
	dk    *mlkem512.PrivateKey
}

// NewClient re-derives the password's secrets (PBKDF2 with iterations,
// zero meaning DefaultIterations, as at registration) and returns the
// client for s. Randomness is read from rand; nil means crypto/rand.
func NewClient(rand io.Reader, password []byte, s Session, iterations int) (*Client, error) {
	sec, err := deriveSecrets(password, s.ClientID, s.ServerID, iterations)
	if err != nil {
		return nil, err
	}
	return newClient(rand, sec, s)
}

func newClient(rand io.Reader, sec *secrets, s Session) (*Client, error) {
	rand = sysrand.Or(rand)
	alice, err := ocake.NewInitiator(rand, sec.rw, s)
	if err != nil {
		return nil, err
	}
	sid := Session{ClientID: bytes.Clone(s.ClientID), ServerID: bytes.Clone(s.ServerID), Context: bytes.Clone(s.Context)}
	return &Client{exchange: exchange{rand: rand, sid: sid}, ocake: alice, dk: sec.dk}, nil
}

// Next takes nil and returns message 1, then takes message 2 and returns
// message 3; the session key is then ready.
func (c *Client) Next(in []byte) ([]byte, error) {
	var out []byte
	var err error
	switch c.state {
	case stateStart:
		if in != nil {
			return nil, c.fail(fmt.Errorf("%w: the client speaks first", pakeerr.ErrInvalidMessage))
		}
		out, err = c.ocake.Next(nil)
	case stateWaiting:
		out, err = c.finish(in)
	default:
		return nil, fmt.Errorf("%w: client already finished", pakeerr.ErrState)
	}
	if err != nil {
		return nil, c.fail(err)
	}
	c.state++
	return out, nil
}

func (c *Client) finish(in []byte) ([]byte, error) {
	if len(in) != Message2Size {
		return nil, fmt.Errorf("%w: message 2 of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), Message2Size)
	}
	pakeMsg := in[:ocake.Message2Size]
	nonce := in[ocake.Message2Size : ocake.Message2Size+nonceSize]
	psi := in[ocake.Message2Size+nonceSize:]
	if _, err := c.ocake.Next(pakeMsg); err != nil {
		return nil, err
	}
	tau, err := c.ocake.SessionKey()
	if err != nil {
		return nil, err
	}
	ct, err := aead(tau).Open(nil, nonce, psi, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: ψ does not open under the PAKE key", pakeerr.ErrAuthFailed)
	}
	k := make([]byte, mlkem512.SharedKeySize)
	c.dk.DecapsulateTo(k, ct) // len(ct) = CiphertextSize: GCM checked the length
	clearUpperYMM()
	sigma := c.confirm(tau, k, nonce, psi)
	clear(k)
	c.key = sessionKey(tau)
	c.dk = nil
	return sigma[:], nil
}

func (c *Client) fail(err error) error {
	c.state = stateFailed
	c.key = nil
	c.dk = nil
	return err
}

// Server answers from a Record alone: Next(message 1) returns message 2,
// Next(message 3) checks the client's proof, returns nil and finishes.
type Server struct {
	exchange
	ocake  *ocake.Responder
	ek     *mlkem512.PublicKey
	expect []byte
	sk     []byte
}

// NewServer returns the server for s, working from r. Randomness (OCAKE's
// encapsulation seed, then the record's, then the GCM nonce) is read from
// rand; nil means crypto/rand.
func NewServer(rand io.Reader, r *Record, s Session) (*Server, error) {
	if r == nil || r.ek == nil {
		return nil, fmt.Errorf("%w: no record", pakeerr.ErrInvalidParameter)
	}
	rand = sysrand.Or(rand)
	resp, err := ocake.NewResponder(rand, r.rw, s)
	if err != nil {
		return nil, err
	}
	sid := Session{ClientID: bytes.Clone(s.ClientID), ServerID: bytes.Clone(s.ServerID), Context: bytes.Clone(s.Context)}
	return &Server{exchange: exchange{rand: rand, sid: sid}, ocake: resp, ek: r.ek}, nil
}

// Next takes message 1 and returns message 2, then takes message 3 and
// returns nil with the session key ready.
func (s *Server) Next(in []byte) ([]byte, error) {
	var out []byte
	var err error
	switch s.state {
	case stateStart:
		out, err = s.respond(in)
	case stateWaiting:
		err = s.verify(in)
	default:
		return nil, fmt.Errorf("%w: server already finished", pakeerr.ErrState)
	}
	if err != nil {
		s.state = stateFailed
		s.key, s.sk, s.expect = nil, nil, nil
		return nil, err
	}
	s.state++
	return out, nil
}

func (s *Server) respond(in []byte) ([]byte, error) {
	pakeMsg, err := s.ocake.Next(in) // checks in, reads OCAKE's randomness
	if err != nil {
		return nil, err
	}
	tau, err := s.ocake.SessionKey()
	if err != nil {
		return nil, err
	}
	var m [mlkem512.EncapsulationSeedSize]byte
	nonce := make([]byte, nonceSize)
	if err := s.readRand(m[:]); err != nil {
		return nil, err
	}
	if err := s.readRand(nonce); err != nil {
		return nil, err
	}
	ct := make([]byte, mlkem512.CiphertextSize)
	k := make([]byte, mlkem512.SharedKeySize)
	s.ek.EncapsulateTo(ct, k, m[:])
	clearUpperYMM()
	clear(m[:])
	out := make([]byte, 0, Message2Size)
	out = append(out, pakeMsg...)
	out = append(out, nonce...)
	out = aead(tau).Seal(out, nonce, ct, nil)
	sigma := s.confirm(tau, k, nonce, out[ocake.Message2Size+nonceSize:])
	clear(k)
	s.expect = sigma[:]
	s.sk = sessionKey(tau)
	return out, nil
}

func (s *Server) verify(in []byte) error {
	if len(in) != Message3Size {
		return fmt.Errorf("%w: message 3 of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), Message3Size)
	}
	if subtle.ConstantTimeCompare(in, s.expect) != 1 {
		return fmt.Errorf("%w: the client's proof σ does not verify", pakeerr.ErrAuthFailed)
	}
	s.key = s.sk
	return nil
}

// MarshalBinary encodes a server between message 2 and message 3 — the
// expected proof σ and the session key, both secret — so that another
// process can finish the exchange (ResumeServer). Outside that point it
// fails with pakeerr.ErrState. The encoding must be kept confidential and
// used once.
func (s *Server) MarshalBinary() ([]byte, error) {
	if s == nil || s.state != stateWaiting {
		return nil, fmt.Errorf("%w: MarshalBinary outside message 2..message 3", pakeerr.ErrState)
	}
	return append(bytes.Clone(s.expect), s.sk...), nil
}

// ResumeServer restores a server from MarshalBinary's encoding; its Next
// takes message 3. A state of the wrong length fails with
// pakeerr.ErrInvalidParameter.
func ResumeServer(state []byte) (*Server, error) {
	if len(state) != Message3Size+KeySize {
		return nil, fmt.Errorf("%w: server state of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(state), Message3Size+KeySize)
	}
	s := &Server{expect: bytes.Clone(state[:Message3Size]), sk: bytes.Clone(state[Message3Size:])}
	s.state = stateWaiting
	return s, nil
}
