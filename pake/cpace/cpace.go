// Package cpace implements CPace, the balanced password-authenticated key
// exchange of draft-irtf-cfrg-cpace (the editor's copy of 23 April 2026,
// whose test vectors are those of the repository's testvectors.json), with
// the cipher suite CPACE-P256_XMD:SHA-256_SSWU_NU_-SHA256 (§5): NIST P-256
// with the RFC 9380 encode_to_curve P256_XMD:SHA-256_SSWU_NU_, and SHA-256.
// Section numbers below are those of that draft.
//
// Both parties share a password-related string PRS and, optionally, a
// channel identifier CI and a session identifier sid. Each computes the
// secret generator
//
//	g = encode_to_curve(generator_string(DSI, PRS, CI, sid, 64), DST)
//
// (§8.1, §8.4.3), samples a scalar y in [1, n-1] and sends one message
//
//	Y || AD    Y = y*g as a 65-byte SEC 1 uncompressed point, AD its
//	           associated data (ADa or ADb, possibly empty), in clear.
//
// The draft leaves the framing of "Ya, ADa" to the application; Y has a
// fixed length in this suite, so the message is the plain concatenation and
// AD is whatever follows the point. Having received the peer's message, a
// party verifies the peer's point, computes K = x(y*Y_peer) with
// scalar_mult_vfy (§8.4.3) and derives the intermediate session key
//
//	ISK = SHA-256(lv_cat(DSI || "_ISK", sid, K) || transcript)
//
// (§7.2) where transcript is transcript_ir(Ya, ADa, Yb, ADb) in the
// initiator-responder setting and transcript_oc(...) (ordered concatenation)
// in the symmetric setting (§6.3). A party aborts, with an error wrapping
// pakeerr.ErrInvalidMessage, if the peer's point is not a valid non-identity
// point (§7.2, §9). There is no key confirmation: a wrong password yields
// different keys, not an error (§10.4); the draft RECOMMENDS deriving
// application keys from ISK with a KDF (§10.3).
//
// Parties also output sid_output = SHA-256("CPaceSidOutput" || transcript)
// (§10.6), a public session identifier for runs with an empty sid.
//
// Party identities known to both sides before the run SHOULD go into CI,
// role-tagged, initiator first (§10.1.1); identities in AD are only
// authenticated if the application checks the peer's AD (Party.PeerAD).
package cpace

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Inputs are one party's CPace inputs (§4.1, §7). PRS is secret; the others
// are public and may be empty. Both parties must use the same PRS, CI and
// sid to agree on a key.
type Inputs struct {
	PRS []byte // password-related string
	CI  []byte // channel identifier; never sent
	SID []byte // session identifier; never sent
	// AD is this party's associated data (ADa for the initiator, ADb for
	// the responder). It is sent in clear and bound into ISK.
	AD []byte
}

// role says which transcript a party builds and in which order it speaks.
type role int

const (
	initiator role = iota // A: speaks first; transcript_ir
	responder             // B: answers A; transcript_ir
	symmetric             // either order; transcript_oc
)

type state int

const (
	stateStart  state = iota // nothing sent or received
	stateSent                // own message sent, waiting for the peer's
	stateDone                // ISK derived
	stateFailed              // an error occurred; the party is dead
)

// Party is one side of a CPace exchange: a state machine driven by Next. It
// implements the same Next/Done/SessionKey contract as pake.Party.
type Party struct {
	role   role
	state  state
	y      *group.Scalar
	msg    []byte // own message Y || AD
	sid    []byte
	isk    []byte
	sidOut []byte
	peerAD []byte
}

// NewInitiator starts party A of the initiator-responder setting. Its first
// Next(nil) returns Ya || ADa; its second Next takes Yb || ADb, derives ISK
// and returns nil.
func NewInitiator(rand io.Reader, in Inputs) (*Party, error) {
	return newParty(rand, initiator, in)
}

// NewResponder starts party B of the initiator-responder setting. Its Next
// takes Ya || ADa, derives ISK and returns Yb || ADb.
func NewResponder(rand io.Reader, in Inputs) (*Party, error) {
	return newParty(rand, responder, in)
}

// NewSymmetric starts a party of the symmetric setting, where either side
// may speak first and the transcript is ordered concatenation (§6.3). Next(nil)
// returns the party's message if it has not sent it yet; Next with the
// peer's message derives ISK and returns the party's message if it was not
// yet sent, nil otherwise. The draft requires ADa and ADb to be unique per
// session in this setting, e.g. by including random data (§10.1.1).
func NewSymmetric(rand io.Reader, in Inputs) (*Party, error) {
	return newParty(rand, symmetric, in)
}

// newParty computes g = calculate_generator(H, PRS, CI, sid), y =
// sample_scalar() and the party's message Y || AD with Y = scalar_mult(y, g)
// (§7.2). Every constructor reads y from rand; a nil rand means
// crypto/rand.
func newParty(rand io.Reader, r role, in Inputs) (*Party, error) {
	rand = sysrand.Or(rand)
	g, err := calculateGenerator(in.PRS, in.CI, in.SID)
	if err != nil {
		return nil, err
	}
	y, err := sampleScalar(rand)
	if err != nil {
		return nil, err
	}
	msg := make([]byte, 0, ElementSize+len(in.AD))
	msg = append(msg, scalarMult(y, g)...)
	msg = append(msg, in.AD...)
	return &Party{
		role: r,
		y:    y,
		msg:  msg,
		sid:  bytes.Clone(in.SID),
	}, nil
}

// Next consumes the peer's message (nil when the party is to speak first)
// and returns the party's next message, or nil once it has nothing more to
// send. A malformed message or an invalid point fails with an error
// wrapping pakeerr.ErrInvalidMessage; after any error, and after the party
// has finished, Next fails with pakeerr.ErrState.
func (p *Party) Next(in []byte) ([]byte, error) {
	switch p.state {
	case stateStart:
		if in == nil {
			if p.role == responder {
				return nil, p.fail(fmt.Errorf("%w: cpace: the responder needs the initiator's message", pakeerr.ErrInvalidMessage))
			}
			p.state = stateSent
			return bytes.Clone(p.msg), nil
		}
		if p.role == initiator {
			return nil, p.fail(fmt.Errorf("%w: cpace: the initiator speaks first and takes no message", pakeerr.ErrInvalidMessage))
		}
		if err := p.finish(in); err != nil {
			return nil, p.fail(err)
		}
		return bytes.Clone(p.msg), nil
	case stateSent:
		if in == nil {
			return nil, p.fail(fmt.Errorf("%w: cpace: missing the peer's message", pakeerr.ErrInvalidMessage))
		}
		if err := p.finish(in); err != nil {
			return nil, p.fail(err)
		}
		return nil, nil
	case stateDone:
		return nil, fmt.Errorf("%w: cpace: party has finished", pakeerr.ErrState)
	default:
		return nil, fmt.Errorf("%w: cpace: party failed earlier", pakeerr.ErrState)
	}
}

// finish processes the peer's message Y || AD: K = scalar_mult_vfy(y, Y),
// abort if invalid, then ISK and sid_output over the transcript (§7.2).
func (p *Party) finish(peer []byte) error {
	peerY, peerAD := splitMessage(peer)
	k, err := scalarMultVfy(p.y, peerY)
	if err != nil {
		return err
	}
	ownY, ownAD := splitMessage(p.msg)
	var t []byte
	switch p.role {
	case initiator:
		t = transcriptIR(ownY, ownAD, peerY, peerAD)
	case responder:
		t = transcriptIR(peerY, peerAD, ownY, ownAD)
	default:
		t = transcriptOC(ownY, ownAD, peerY, peerAD)
	}
	p.isk = intermediateSessionKey(p.sid, k, t)
	p.sidOut = sidOutput(t)
	p.peerAD = bytes.Clone(peerAD)
	clear(k)
	p.y = nil
	p.state = stateDone
	return nil
}

// fail kills the party and returns err.
func (p *Party) fail(err error) error {
	p.state = stateFailed
	p.y = nil
	return err
}

// splitMessage splits a message into the point Y (its first ElementSize
// bytes, or all of a shorter message, which then fails decoding) and AD.
func splitMessage(m []byte) (y, ad []byte) {
	if len(m) < ElementSize {
		return m, nil
	}
	return m[:ElementSize], m[ElementSize:]
}

// Done reports whether the party has derived ISK.
func (p *Party) Done() bool { return p.state == stateDone }

// SessionKey returns ISK, the 32-byte intermediate session key, once Done,
// and an error wrapping pakeerr.ErrState before.
func (p *Party) SessionKey() ([]byte, error) {
	if p.state != stateDone {
		return nil, fmt.Errorf("%w: cpace: no session key yet", pakeerr.ErrState)
	}
	return bytes.Clone(p.isk), nil
}

// SIDOutput returns sid_output (§10.6) once Done. The draft defines it for
// runs with an empty sid, where it is unique for honest parties; both
// parties compute the same value.
func (p *Party) SIDOutput() ([]byte, error) {
	if p.state != stateDone {
		return nil, fmt.Errorf("%w: cpace: no sid_output yet", pakeerr.ErrState)
	}
	return bytes.Clone(p.sidOut), nil
}

// PeerAD returns the associated data the peer sent (ADb for the initiator,
// ADa for the responder) once Done. It is authenticated by ISK: parties
// that derived the same ISK saw the same ADa and ADb. An application that
// puts identities in AD must check the peer's here (§10.1.1).
func (p *Party) PeerAD() ([]byte, error) {
	if p.state != stateDone {
		return nil, fmt.Errorf("%w: cpace: no peer message yet", pakeerr.ErrState)
	}
	return bytes.Clone(p.peerAD), nil
}
