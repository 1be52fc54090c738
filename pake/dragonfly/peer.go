package dragonfly

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

// Peer is one side of the symmetric Dragonfly exchange (RFC 7664 §3.3 and
// §3.4). Both peers send Commit, process the other's commit, send Confirm
// and verify the other's confirm; the order of the two sides' messages does
// not matter. A Peer that returned an error refuses further use.
type Peer struct {
	id, peerID []byte
	pe         *group.Point
	private    *group.Scalar
	own, peer  *core.Commit
	kck, mk    []byte
	verified   bool
	failed     bool
}

// NewPeer derives the password element for the identities ownID and peerID
// (RFC 7664 §3.2.1) and generates this peer's commit (§3.3) with randomness
// from rand (nil: crypto/rand).
func NewPeer(rand io.Reader, password, ownID, peerID []byte, opts *Options) (*Peer, error) {
	pe, err := PasswordElement(password, ownID, peerID, opts)
	if err != nil {
		return nil, err
	}
	return newPeerWithElement(rand, pe, ownID, peerID)
}

// newPeerWithElement starts a peer from an already derived password element.
func newPeerWithElement(rand io.Reader, pe *group.Point, ownID, peerID []byte) (*Peer, error) {
	private, own, err := core.GenerateCommit(rand, pe)
	if err != nil {
		return nil, err
	}
	return &Peer{
		id:      append([]byte(nil), ownID...),
		peerID:  append([]byte(nil), peerID...),
		pe:      pe,
		private: private,
		own:     own,
	}, nil
}

// Commit returns this peer's commit message, scalar || Element (96 bytes).
func (p *Peer) Commit() []byte {
	return append(p.own.ScalarBytes(), p.own.ElementBytes()...)
}

func (p *Peer) fail(err error) error {
	p.failed = true
	return err
}

// ProcessCommit validates the peer's commit (1 < scalar < r, Element on the
// curve, not a reflection of our own commit) and derives
// ss = F(private·(peer-scalar·PE + peer-Element)) and kck | mk =
// KDF-512(ss, "Dragonfly Key Derivation") (RFC 7664 §3.3).
func (p *Peer) ProcessCommit(msg []byte) error {
	_, err := p.processCommit(msg)
	return err
}

// processCommit is ProcessCommit, also returning ss for the known-answer
// tests.
func (p *Peer) processCommit(msg []byte) (ss []byte, err error) {
	if p.failed || p.peer != nil {
		return nil, p.fail(fmt.Errorf("%w: peer failed, or commit already processed", pakeerr.ErrState))
	}
	if len(msg) != CommitSize {
		return nil, p.fail(fmt.Errorf("%w: commit of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(msg), CommitSize))
	}
	peer, err := core.ParseCommit(msg[:ScalarSize], msg[ScalarSize:])
	if err != nil {
		return nil, p.fail(err)
	}
	if err := core.CheckReflection(p.own, peer); err != nil {
		return nil, p.fail(err)
	}
	ss, err = core.SharedSecret(p.private, p.pe, peer)
	if err != nil {
		return nil, p.fail(err)
	}
	keys := kdf(ss, labelKey, 2*KeySize)
	p.peer, p.kck, p.mk = peer, keys[:KeySize], keys[KeySize:]
	return ss, nil
}

// confirm computes H(kck | scalar | peer-scalar | Element | Peer-Element |
// sender-id) for the sender whose commit is first.
func (p *Peer) confirm(first, second *core.Commit, senderID []byte) []byte {
	h := sha256.New()
	h.Write(p.kck)
	h.Write(first.ScalarBytes())
	h.Write(second.ScalarBytes())
	h.Write(first.ElementBytes())
	h.Write(second.ElementBytes())
	h.Write(senderID)
	return h.Sum(nil)
}

// Confirm returns this peer's confirm message (RFC 7664 §3.4):
// SHA-256(kck | scalar | peer-scalar | Element | Peer-Element | own-id).
func (p *Peer) Confirm() ([]byte, error) {
	if p.failed || p.peer == nil {
		return nil, p.fail(fmt.Errorf("%w: confirm before the peer's commit", pakeerr.ErrState))
	}
	return p.confirm(p.own, p.peer, p.id), nil
}

// VerifyConfirm checks the peer's confirm against
// SHA-256(kck | peer-scalar | scalar | Peer-Element | Element | peer-id),
// in constant time. A mismatch (a wrong password) gives
// pakeerr.ErrAuthFailed.
func (p *Peer) VerifyConfirm(msg []byte) error {
	if p.failed || p.peer == nil || p.verified {
		return p.fail(fmt.Errorf("%w: confirm out of order", pakeerr.ErrState))
	}
	if len(msg) != ConfirmSize {
		return p.fail(fmt.Errorf("%w: confirm of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(msg), ConfirmSize))
	}
	want := p.confirm(p.peer, p.own, p.peerID)
	if subtle.ConstantTimeCompare(msg, want) != 1 {
		return p.fail(fmt.Errorf("%w: peer's confirm does not verify", pakeerr.ErrAuthFailed))
	}
	p.verified = true
	return nil
}

// Key returns mk, the shared key, once the peer's confirm has verified.
func (p *Peer) Key() ([]byte, error) {
	if p.failed || !p.verified {
		return nil, fmt.Errorf("%w: key before the peer's confirm verified", pakeerr.ErrState)
	}
	return append([]byte(nil), p.mk...), nil
}

// Party runs Dragonfly as a two-party exchange in which the initiator speaks
// first: commit; commit || confirm; confirm. It implements the Next, Done
// and SessionKey methods of pake.Party; the session key is mk.
type Party struct {
	x *core.Exchange
}

// NewInitiator starts the side that sends the first message.
func NewInitiator(rand io.Reader, password, initiatorID, responderID []byte, opts *Options) (*Party, error) {
	p, err := NewPeer(rand, password, initiatorID, responderID, opts)
	if err != nil {
		return nil, err
	}
	return &Party{core.NewExchange(p, true, CommitSize)}, nil
}

// NewResponder starts the side that answers the initiator's commit.
func NewResponder(rand io.Reader, password, responderID, initiatorID []byte, opts *Options) (*Party, error) {
	p, err := NewPeer(rand, password, responderID, initiatorID, opts)
	if err != nil {
		return nil, err
	}
	return &Party{core.NewExchange(p, false, CommitSize)}, nil
}

// Next consumes the other party's latest message (nil for the initiator's
// first call) and returns the next message, or nil when this party is done.
// After an error the party refuses further use with pakeerr.ErrState.
func (p *Party) Next(in []byte) ([]byte, error) { return p.x.Next(in) }

// Done reports whether the exchange finished with a verified confirm.
func (p *Party) Done() bool { return p.x.Done() }

// SessionKey returns mk once Done, pakeerr.ErrState before.
func (p *Party) SessionKey() ([]byte, error) { return p.x.SessionKey() }
