package sae

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

// Commit is an SAE commit: the Finite Cyclic Group, Scalar and Element
// fields of an SAE Commit message (§12.4.7.4).
type Commit struct {
	c *core.Commit
}

// ParseCommit decodes group (19, little-endian) || scalar || element and
// validates the fields: ErrUnsupportedGroup for another group,
// ErrInvalidScalar unless 1 < scalar < r, ErrInvalidElement unless the
// element is a point on the curve (§12.4.5.4). Trailing elements of the
// frame (password identifier, rejected groups, tokens) are not accepted:
// the frame layer strips them.
func ParseCommit(b []byte) (*Commit, error) {
	if len(b) != CommitSize {
		return nil, fmt.Errorf("%w: commit of %d octets, want %d", pakeerr.ErrInvalidMessage, len(b), CommitSize)
	}
	if binary.LittleEndian.Uint16(b) != Group {
		return nil, ErrUnsupportedGroup
	}
	c, err := core.ParseCommit(b[2:2+ScalarSize], b[2+ScalarSize:])
	if err != nil {
		return nil, err
	}
	return &Commit{c}, nil
}

// Bytes returns group || scalar || element, nil for a nil or zero Commit
// (only ParseCommit and a Session make commits).
func (c *Commit) Bytes() []byte {
	if c == nil || c.c == nil {
		return nil
	}
	b := binary.LittleEndian.AppendUint16(make([]byte, 0, CommitSize), Group)
	b = append(b, c.c.ScalarBytes()...)
	return append(b, c.c.ElementBytes()...)
}

// Scalar returns the commit scalar, 32 octets (nil for a nil or zero
// Commit).
func (c *Commit) Scalar() []byte {
	if c == nil || c.c == nil {
		return nil
	}
	return c.c.ScalarBytes()
}

// Element returns the commit element, x || y (nil for a nil or zero
// Commit).
func (c *Commit) Element() []byte {
	if c == nil || c.c == nil {
		return nil
	}
	return c.c.ElementBytes()
}

// Confirm is an SAE confirm: the Send-Confirm and Confirm fields of an SAE
// Confirm message (§12.4.7.5).
type Confirm struct {
	SendConfirm uint16
	Confirm     [sha256.Size]byte
}

// ParseConfirm decodes send-confirm (little-endian) || confirm.
func ParseConfirm(b []byte) (*Confirm, error) {
	if len(b) != ConfirmSize {
		return nil, fmt.Errorf("%w: confirm of %d octets, want %d", pakeerr.ErrInvalidMessage, len(b), ConfirmSize)
	}
	c := &Confirm{SendConfirm: binary.LittleEndian.Uint16(b)}
	copy(c.Confirm[:], b[2:])
	return c, nil
}

// Bytes returns send-confirm || confirm, nil for a nil Confirm.
func (c *Confirm) Bytes() []byte {
	if c == nil {
		return nil
	}
	b := binary.LittleEndian.AppendUint16(make([]byte, 0, ConfirmSize), c.SendConfirm)
	return append(b, c.Confirm[:]...)
}

// Session is one station's SAE protocol instance for a derived PWE
// (§12.4.5): it makes its commit, processes the peer's, derives KCK, PMK and
// PMKID, and makes and checks confirms. A Session that returned an error
// refuses further use.
type Session struct {
	pwe              *group.Point
	rand             *group.Scalar
	own, peer        *core.Commit
	kck, pmk, pmkid  []byte
	sendConfirm      uint16
	verified, failed bool
}

// NewSession starts a protocol instance on pwe, drawing rand and mask from
// r (in that order, 48 bytes each; nil means crypto/rand) for its commit
// (§12.4.5.2). A nil pwe fails with pakeerr.ErrInvalidParameter.
func NewSession(r io.Reader, pwe *group.Point) (*Session, error) {
	rand, own, err := core.GenerateCommit(r, pwe)
	if err != nil {
		return nil, err
	}
	return &Session{pwe: pwe, rand: rand, own: own}, nil
}

// Commit returns this station's commit message.
func (s *Session) Commit() []byte { return (&Commit{s.own}).Bytes() }

func (s *Session) fail(err error) error {
	s.failed = true
	return err
}

// ProcessCommit parses and validates the peer's commit, rejects a
// reflection of our own commit (ErrReflection; the standard discards such a
// frame silently), and derives
// k = F(rand·(peer-commit-scalar·PWE + PEER-COMMIT-ELEMENT)) and from it KCK,
// PMK and PMKID (§12.4.5.4).
func (s *Session) ProcessCommit(msg []byte) error {
	if s.failed || s.peer != nil {
		return s.fail(fmt.Errorf("%w: peer failed, or commit already processed", pakeerr.ErrState))
	}
	peer, err := ParseCommit(msg)
	if err != nil {
		return s.fail(err)
	}
	if err := core.CheckReflection(s.own, peer.c); err != nil {
		return s.fail(err)
	}
	k, err := core.SharedSecret(s.rand, s.pwe, peer.c)
	if err != nil {
		return s.fail(err)
	}
	s.peer = peer.c
	s.kck, s.pmk, s.pmkid = deriveKeys(k, s.own.Scalar, peer.c.Scalar)
	return nil
}

const labelKeys = "SAE KCK and PMK"

// deriveKeys computes keyseed = HMAC-SHA-256(0^32, k) and
// KCK || PMK = KDF-SHA-256-512(keyseed, "SAE KCK and PMK",
// (commit-scalar + peer-commit-scalar) mod r), PMKID = the first 16 octets
// of that sum (§12.4.5.4).
func deriveKeys(k []byte, own, peer *group.Scalar) (kck, pmk, pmkid []byte) {
	m := hmac.New(sha256.New, make([]byte, sha256.Size))
	m.Write(k)
	return keysFromKeyseed(m.Sum(nil), own, peer)
}

func keysFromKeyseed(keyseed []byte, own, peer *group.Scalar) (kck, pmk, pmkid []byte) {
	sum := group.NewScalar().Add(own, peer).Bytes()
	keys := core.KDFSHA256(keyseed, labelKeys, sum, 8*2*KeySize)
	return keys[:KeySize], keys[KeySize:], sum[:PMKIDSize]
}

// PMKID returns the PMKID once the peer's commit is processed.
func (s *Session) PMKID() ([]byte, error) {
	if s.failed || s.peer == nil {
		return nil, fmt.Errorf("%w: PMKID before the peer's commit", pakeerr.ErrState)
	}
	return append([]byte(nil), s.pmkid...), nil
}

// confirm is CN(KCK, send-confirm, scalar1, element1, scalar2, element2).
func (s *Session) confirm(sc uint16, first, second *core.Commit) [sha256.Size]byte {
	m := hmac.New(sha256.New, s.kck)
	m.Write(binary.LittleEndian.AppendUint16(nil, sc))
	m.Write(first.ScalarBytes())
	m.Write(first.ElementBytes())
	m.Write(second.ScalarBytes())
	m.Write(second.ElementBytes())
	var out [sha256.Size]byte
	m.Sum(out[:0])
	return out
}

// Confirm returns this station's next confirm message (§12.4.5.5): the
// send-confirm counter, incremented first (so the first confirm carries 1,
// as hostapd does), and
// CN(KCK, send-confirm, commit-scalar, COMMIT-ELEMENT, peer-commit-scalar,
// PEER-COMMIT-ELEMENT).
func (s *Session) Confirm() ([]byte, error) {
	if s.failed || s.peer == nil {
		return nil, s.fail(fmt.Errorf("%w: confirm before the peer's commit", pakeerr.ErrState))
	}
	if s.sendConfirm < 0xffff {
		s.sendConfirm++
	}
	c := Confirm{SendConfirm: s.sendConfirm, Confirm: s.confirm(s.sendConfirm, s.own, s.peer)}
	return c.Bytes(), nil
}

// VerifyConfirm checks the peer's confirm against
// CN(KCK, peer-send-confirm, peer-commit-scalar, PEER-COMMIT-ELEMENT,
// commit-scalar, COMMIT-ELEMENT) in constant time (§12.4.5.6). A mismatch
// (a wrong password) gives pakeerr.ErrAuthFailed.
func (s *Session) VerifyConfirm(msg []byte) error {
	if s.failed || s.peer == nil || s.verified {
		return s.fail(fmt.Errorf("%w: confirm out of order", pakeerr.ErrState))
	}
	c, err := ParseConfirm(msg)
	if err != nil {
		return s.fail(err)
	}
	want := s.confirm(c.SendConfirm, s.peer, s.own)
	if !hmac.Equal(c.Confirm[:], want[:]) {
		return s.fail(fmt.Errorf("%w: peer's confirm does not verify", pakeerr.ErrAuthFailed))
	}
	s.verified = true
	return nil
}

// PMK returns the pairwise master key once the peer's confirm verified.
func (s *Session) PMK() ([]byte, error) {
	if s.failed || !s.verified {
		return nil, fmt.Errorf("%w: PMK before the peer's confirm verified", pakeerr.ErrState)
	}
	return append([]byte(nil), s.pmk...), nil
}

// Key returns the PMK; with it a Session is a core.Peer.
func (s *Session) Key() ([]byte, error) { return s.PMK() }

// Party runs SAE as a two-party exchange in which the initiator speaks
// first: commit; commit || confirm; confirm (an SAE exchange in which the
// responder's commit and confirm travel together). It implements the Next,
// Done and SessionKey methods of pake.Party; the session key is the PMK.
type Party struct {
	x *core.Exchange
}

// NewInitiator starts the side that sends the first commit, on pwe.
func NewInitiator(r io.Reader, pwe *group.Point) (*Party, error) {
	s, err := NewSession(r, pwe)
	if err != nil {
		return nil, err
	}
	return &Party{core.NewExchange(s, true, CommitSize)}, nil
}

// NewResponder starts the side that answers the initiator's commit, on pwe.
func NewResponder(r io.Reader, pwe *group.Point) (*Party, error) {
	s, err := NewSession(r, pwe)
	if err != nil {
		return nil, err
	}
	return &Party{core.NewExchange(s, false, CommitSize)}, nil
}

// Next consumes the other party's latest message (nil for the initiator's
// first call) and returns the next message, or nil when this party is done.
// After an error the party refuses further use with pakeerr.ErrState.
func (p *Party) Next(in []byte) ([]byte, error) { return p.x.Next(in) }

// Done reports whether the exchange finished with a verified confirm.
func (p *Party) Done() bool { return p.x.Done() }

// SessionKey returns the PMK once Done, pakeerr.ErrState before.
func (p *Party) SessionKey() ([]byte, error) { return p.x.SessionKey() }
