package spake2plus

import (
	"bytes"
	"crypto/hmac"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Verifier is the party that holds the registration record (w0, L) and
// never the password (the server). It receives shareP, answers with
// shareV || confirmV, and checks the prover's confirmP (RFC 9383,
// Appendix A, "Verifier").
//
// Drive it either with Respond and Finish, or with Next (the uniform
// pake.Party interface). After any error the Verifier is dead and every
// further call fails with pakeerr.ErrState.
type Verifier struct {
	party
	l              *group.Point
	expectConfirmP []byte
}

// NewVerifier returns a verifier for one exchange. context, idProver and
// idVerifier are bound into the transcript TT and must equal the prover's.
// w0 (ScalarSize bytes, big-endian, in [1, p-1]) and L = w1*P (a SEC 1
// point, not the identity) are the registration record; bad values fail
// with pakeerr.ErrInvalidParameter. The ephemeral scalar y is read from
// rand (crypto/rand.Reader if nil) when Respond runs.
func NewVerifier(rand io.Reader, context, idProver, idVerifier, w0, L []byte) (*Verifier, error) {
	pt, err := newParty(rand, context, idProver, idVerifier, w0)
	if err != nil {
		return nil, err
	}
	l, err := group.NewPoint().SetBytes(L)
	if err != nil {
		return nil, fmt.Errorf("%w: L: %v", pakeerr.ErrInvalidParameter, err)
	}
	return &Verifier{party: pt, l: l}, nil
}

// Respond consumes the prover's shareP and returns shareV = Y = y*P + w0*N,
// with y drawn uniformly from [1, p-1], and confirmV = MAC(K_confirmV,
// shareP) (RFC 9383, Sections 3.3 and 3.4; Appendix A, VerifierFinish). It
// computes Z = y*(X - w0*M) and V = y*L, the transcript and the key
// schedule. A malformed shareP fails with pakeerr.ErrInvalidMessage.
func (v *Verifier) Respond(shareP []byte) (shareV, confirmV []byte, err error) {
	if v.state != stateStart {
		return nil, nil, v.fail(errState("Respond called twice or after the end"))
	}
	x, err := parseShare("shareP", shareP)
	if err != nil {
		return nil, nil, v.fail(err)
	}
	c := suiteConstants()
	u, err := unmask("shareP", x, v.w0, c.mTable)
	if err != nil {
		return nil, nil, v.fail(err)
	}
	y, err := group.RandomScalar(v.rand)
	if err != nil {
		return nil, nil, v.fail(fmt.Errorf("%w: %v", pakeerr.ErrRandom, err))
	}
	shareV = share(y, v.w0, c.nTable).Bytes()
	z := group.NewPoint().ScalarMult(y, u).Bytes()
	vv := group.NewPoint().ScalarMult(y, v.l).Bytes()
	k := schedule(v.transcript(shareP, shareV, z, vv))
	defer k.wipe()
	v.expectConfirmP = mac(k.confirmP, shareV)
	v.key, v.state = k.shared, stateActive // released by Finish
	return shareV, mac(k.confirmV, shareP), nil
}

// Finish checks the prover's confirmP = MAC(K_confirmP, shareV) in
// constant time (RFC 9383, Section 3.4). A confirmP of the wrong length
// fails with pakeerr.ErrInvalidMessage, a wrong one with
// pakeerr.ErrAuthFailed. On success the session key is K_shared.
func (v *Verifier) Finish(confirmP []byte) error {
	if v.state != stateActive {
		return v.fail(errState("Finish called before Respond or after the end"))
	}
	if len(confirmP) != ConfirmSize {
		return v.fail(fmt.Errorf("%w: confirmP is %d bytes, want %d", pakeerr.ErrInvalidMessage, len(confirmP), ConfirmSize))
	}
	if !hmac.Equal(v.expectConfirmP, confirmP) {
		return v.fail(fmt.Errorf("%w: confirmP does not verify", pakeerr.ErrAuthFailed))
	}
	v.state = stateDone
	return nil
}

// Next implements pake.Party: the first call takes shareP and returns
// shareV || confirmV; the second takes confirmP and returns nil, after
// which the Verifier is done.
func (v *Verifier) Next(in []byte) ([]byte, error) {
	switch v.state {
	case stateStart:
		shareV, confirmV, err := v.Respond(in)
		if err != nil {
			return nil, err
		}
		return append(shareV, confirmV...), nil
	case stateActive:
		return nil, v.Finish(in)
	}
	return nil, v.fail(errState("the exchange is over"))
}

// MarshalBinary encodes the verifier's state between Respond and Finish —
// the confirmP it expects and K_shared, ConfirmSize + 32 bytes — so that
// another process can finish the exchange (ResumeVerifier). The encoding
// holds the session key: keep it secret and short-lived. In any other
// state it fails with pakeerr.ErrState.
func (v *Verifier) MarshalBinary() ([]byte, error) {
	if v == nil || v.state != stateActive {
		return nil, errState("MarshalBinary outside Respond..Finish")
	}
	return append(bytes.Clone(v.expectConfirmP), v.key...), nil
}

// ResumeVerifier restores a verifier from MarshalBinary's encoding; its
// Finish (or Next) takes confirmP. A state of the wrong length fails with
// pakeerr.ErrInvalidParameter.
func ResumeVerifier(state []byte) (*Verifier, error) {
	if len(state) != ConfirmSize+KeySize {
		return nil, fmt.Errorf("%w: verifier state of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(state), ConfirmSize+KeySize)
	}
	v := &Verifier{expectConfirmP: bytes.Clone(state[:ConfirmSize])}
	v.key, v.state = bytes.Clone(state[ConfirmSize:]), stateActive
	return v, nil
}
