package core

import (
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Peer is one side of the symmetric commit and confirm exchanges, as
// RFC 7664 §3.3–3.4 and IEEE 802.11-2020 §12.4.5 define them.
type Peer interface {
	Commit() []byte
	ProcessCommit(msg []byte) error
	Confirm() ([]byte, error)
	VerifyConfirm(msg []byte) error
	Key() ([]byte, error)
}

// Exchange runs a Peer as one party of a three-message exchange in which
// the initiator speaks first:
//
//	initiator → responder   commit
//	responder → initiator   commit || confirm
//	initiator → responder   confirm
//
// After any error the exchange is dead and refuses further use.
type Exchange struct {
	peer       Peer
	commitSize int
	initiator  bool
	step       int // messages received so far
	done, dead bool
}

// NewExchange returns the initiator or the responder side for peer, whose
// commit messages are commitSize bytes long.
func NewExchange(peer Peer, initiator bool, commitSize int) *Exchange {
	return &Exchange{peer: peer, initiator: initiator, commitSize: commitSize}
}

// Next consumes the other party's latest message (nil for the initiator's
// first call) and returns the next message, or nil when this party is done.
func (e *Exchange) Next(in []byte) ([]byte, error) {
	if e.dead || e.done {
		return nil, fmt.Errorf("%w: party finished or failed", pakeerr.ErrState)
	}
	out, err := e.next(in)
	if err != nil {
		e.dead = true
		return nil, err
	}
	e.step++
	return out, nil
}

func (e *Exchange) next(in []byte) ([]byte, error) {
	switch {
	case e.initiator && e.step == 0:
		if in != nil {
			return nil, fmt.Errorf("%w: the initiator speaks first", pakeerr.ErrInvalidMessage)
		}
		return e.peer.Commit(), nil
	case e.initiator && e.step == 1:
		if len(in) < e.commitSize {
			return nil, fmt.Errorf("%w: commit || confirm of %d bytes", pakeerr.ErrInvalidMessage, len(in))
		}
		if err := e.peer.ProcessCommit(in[:e.commitSize]); err != nil {
			return nil, err
		}
		if err := e.peer.VerifyConfirm(in[e.commitSize:]); err != nil {
			return nil, err
		}
		c, err := e.peer.Confirm()
		if err != nil {
			return nil, err
		}
		e.done = true
		return c, nil
	case !e.initiator && e.step == 0:
		if err := e.peer.ProcessCommit(in); err != nil {
			return nil, err
		}
		c, err := e.peer.Confirm()
		if err != nil {
			return nil, err
		}
		return append(e.peer.Commit(), c...), nil
	case !e.initiator && e.step == 1:
		if err := e.peer.VerifyConfirm(in); err != nil {
			return nil, err
		}
		e.done = true
		return nil, nil
	}
	return nil, fmt.Errorf("%w: unexpected message", pakeerr.ErrState)
}

// Done reports whether the exchange finished with a verified confirm.
func (e *Exchange) Done() bool { return e.done }

// SessionKey returns the peer's key once Done, pakeerr.ErrState before.
func (e *Exchange) SessionKey() ([]byte, error) {
	if !e.done {
		return nil, fmt.Errorf("%w: exchange not finished", pakeerr.ErrState)
	}
	return e.peer.Key()
}
