// Package pake is kexlab's uniform interface to password-authenticated key
// exchange. Every scheme (pake/spake2, pake/spake2plus, pake/cpace, ...) has
// its own typed API shaped like its specification; this package adapts each
// one to the same Scheme interface, so that a single loop (Run) drives any
// scheme, and the harness, the server and the conformance suite
// (pake/paketest) treat them alike.
//
// An exchange has two parties. The Client (initiator, prover) always sends
// the first message; the Server (responder, verifier) answers; they
// alternate until both are Done and hold the same session key. Every
// message is exactly the bytes that go on the wire. Augmented schemes first
// Register a record from the client's password; the server then works from
// the record alone and never sees the password.
//
// Errors are typed: test them with errors.Is against ErrInvalidMessage,
// ErrAuthFailed, ErrState, ErrInvalidParameter and ErrRandom. No message,
// however malformed, makes a party panic. A party that returned an error is
// finished and refuses further use with ErrState.
package pake

import (
	"io"

	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// The errors every scheme returns (possibly wrapped with detail).
var (
	ErrInvalidMessage   = pakeerr.ErrInvalidMessage
	ErrAuthFailed       = pakeerr.ErrAuthFailed
	ErrState            = pakeerr.ErrState
	ErrInvalidParameter = pakeerr.ErrInvalidParameter
	ErrRandom           = pakeerr.ErrRandom
)

// Role is one side of an exchange.
type Role int

const (
	// Client is the initiator (SPAKE2's A, SPAKE2+'s prover, CPace's
	// initiator, SRP's client). It sends the first message.
	Client Role = iota
	// Server is the responder (B, the verifier, the host).
	Server
)

func (r Role) String() string {
	switch r {
	case Client:
		return "client"
	case Server:
		return "server"
	}
	return "unknown"
}

// Credentials are what the application gives a party. Identities and
// Context are public; Password is secret. A scheme uses the fields its
// specification has and ignores the rest (Info says which).
type Credentials struct {
	Password []byte
	// ClientID and ServerID are the parties' identities (SPAKE2's A and B,
	// SPAKE2+'s idProver and idVerifier, SRP's I; CPace binds both into
	// its channel identifier CI).
	ClientID, ServerID []byte
	// Context binds the exchange to a protocol context or channel (SPAKE2+'s
	// Context, CPace's CI, a session id).
	Context []byte
}

// Party is one side of a running exchange.
type Party interface {
	// Next consumes the peer's latest message (nil for the client's first
	// call) and returns the next message to send, or nil when this party has
	// nothing more to send. After Next returns an error the party is dead.
	Next(in []byte) (out []byte, err error)
	// Done reports whether the party has finished and holds a session key.
	Done() bool
	// SessionKey returns the session key once Done, ErrState before.
	SessionKey() ([]byte, error)
}

// Message describes one wire message of a scheme.
type Message struct {
	Name string // the spec's name for it, e.g. "pA" or "shareV||confirmV"
	From Role
	// Size is the message's length in bytes under the standard encoding (the
	// one the specification and its vectors use); its longest length when
	// Variable.
	Size int
	// Variable is set when the message may be shorter than Size: SRP's A and
	// B travel as integers without leading zero bytes (about 1 exchange in
	// 256 is one byte shorter).
	Variable bool
	// StudySize is its length under the accounting of the seed study:
	// compressed EC points, AES IV counted, no framing.
	StudySize int
}

// Fits reports whether a message of n bytes has the length m declares.
func (m Message) Fits(n int) bool {
	if m.Variable {
		return n > 0 && n <= m.Size
	}
	return n == m.Size
}

// Info describes a scheme's suite and messages.
type Info struct {
	Name  string // registry name, e.g. "spake2"
	Suite string // e.g. "P256-SHA256-HKDF-HMAC"
	Spec  string // e.g. "RFC 9382"
	// Augmented schemes need Register; their server never sees the password.
	Augmented bool
	// KeyConfirmation: a wrong password makes the exchange fail with
	// ErrAuthFailed instead of ending with different keys.
	KeyConfirmation bool
	// Uses lists the Credentials fields the scheme binds into its transcript
	// ("ClientID", "ServerID", "Context").
	Uses     []string
	Messages []Message
}

// KnownAnswer is one known-answer test compiled into the binary.
type KnownAnswer = kat.Test

// Scheme is a PAKE, ready to start exchanges.
type Scheme interface {
	Info() Info
	// Register derives the server's record from the client's credentials.
	// Balanced schemes return a nil record and no error.
	Register(rand io.Reader, c Credentials) (record []byte, err error)
	// NewClient starts the client side.
	NewClient(rand io.Reader, c Credentials) (Party, error)
	// NewServer starts the server side. Augmented schemes use record and
	// ignore c.Password; balanced schemes use c.Password and ignore record.
	NewServer(rand io.Reader, c Credentials, record []byte) (Party, error)
	// KnownAnswerTests returns the scheme's vectors (from its specification)
	// as tests that run without the source tree.
	KnownAnswerTests() []KnownAnswer
}

// PartyFactory starts one party with credentials fixed in advance.
type PartyFactory func(rand io.Reader) (Party, error)

// Preparer is implemented by schemes whose parties stretch the password
// with a deliberately slow function (scrypt, PBKDF2, a 40-iteration
// hunt) before any message is sent. Prepare* runs that work once and
// returns a factory of parties that reuse its result, as a deployed client
// that keeps its derived secret, or a server that keeps its record, would.
// Each party still draws fresh randomness and runs the whole online
// exchange. The harness uses it to time password stretching apart from
// the exchange; the conformance suite uses it to run thousands of
// exchanges in seconds.
type Preparer interface {
	PrepareClient(c Credentials) (PartyFactory, error)
	PrepareServer(c Credentials, record []byte) (PartyFactory, error)
}
