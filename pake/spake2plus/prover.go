package spake2plus

import (
	"bytes"
	"crypto/hmac"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Prover is the party that knows the password (the client). It sends
// shareP, receives shareV || confirmV, and answers with confirmP (RFC 9383,
// Appendix A, "Prover").
//
// Drive it either with Start and Finish, or with Next (the uniform
// pake.Party interface). After any error the Prover is dead and every
// further call fails with pakeerr.ErrState.
type Prover struct {
	party
	w1     *group.Scalar
	x      *group.Scalar
	shareP []byte
}

// NewProver returns a prover for one exchange. context, idProver and
// idVerifier are bound into the transcript TT and must equal the
// verifier's. w0 and w1 are the prover's password-derived scalars (see
// Register): ScalarSize bytes each, big-endian, in [1, p-1]; bad values
// fail with pakeerr.ErrInvalidParameter. The ephemeral scalar x is read
// from rand (crypto/rand.Reader if nil) when Start runs.
func NewProver(rand io.Reader, context, idProver, idVerifier, w0, w1 []byte) (*Prover, error) {
	pt, err := newParty(rand, context, idProver, idVerifier, w0)
	if err != nil {
		return nil, err
	}
	s1, err := parseScalar("w1", w1)
	if err != nil {
		return nil, err
	}
	return &Prover{party: pt, w1: s1}, nil
}

// Start returns the first message, shareP = X = x*P + w0*M, with x drawn
// uniformly from [1, p-1] (RFC 9383, Section 3.3; Appendix A, ProverInit).
func (p *Prover) Start() (shareP []byte, err error) {
	if p.state != stateStart {
		return nil, p.fail(errState("Start called twice or after the end"))
	}
	x, err := group.RandomScalar(p.rand)
	if err != nil {
		return nil, p.fail(fmt.Errorf("%w: %v", pakeerr.ErrRandom, err))
	}
	p.x = x
	p.shareP = share(x, p.w0, suiteConstants().mTable).Bytes()
	p.state = stateActive
	return bytes.Clone(p.shareP), nil
}

// Finish consumes the verifier's shareV and confirmV and returns
// confirmP = MAC(K_confirmP, shareV), the last message (RFC 9383, Sections
// 3.3 and 3.4; Appendix A, ProverFinish). It computes Z = x*(Y - w0*N) and
// V = w1*(Y - w0*N), the transcript and the key schedule, and checks
// confirmV = MAC(K_confirmV, shareP) in constant time. A malformed shareV
// or confirmV fails with pakeerr.ErrInvalidMessage, a wrong confirmV with
// pakeerr.ErrAuthFailed. On success the session key is K_shared.
func (p *Prover) Finish(shareV, confirmV []byte) (confirmP []byte, err error) {
	if p.state != stateActive {
		return nil, p.fail(errState("Finish called before Start or after the end"))
	}
	y, err := parseShare("shareV", shareV)
	if err != nil {
		return nil, p.fail(err)
	}
	if len(confirmV) != ConfirmSize {
		return nil, p.fail(fmt.Errorf("%w: confirmV is %d bytes, want %d", pakeerr.ErrInvalidMessage, len(confirmV), ConfirmSize))
	}
	u, err := unmask("shareV", y, p.w0, suiteConstants().nTable)
	if err != nil {
		return nil, p.fail(err)
	}
	z := group.NewPoint().ScalarMult(p.x, u).Bytes()
	v := group.NewPoint().ScalarMult(p.w1, u).Bytes()
	k := schedule(p.transcript(p.shareP, shareV, z, v))
	defer k.wipe()
	p.x = nil
	if !hmac.Equal(mac(k.confirmV, p.shareP), confirmV) {
		return nil, p.fail(fmt.Errorf("%w: confirmV does not verify", pakeerr.ErrAuthFailed))
	}
	p.key, p.state = k.shared, stateDone
	return mac(k.confirmP, shareV), nil
}

// Next implements pake.Party: the first call takes nil and returns shareP;
// the second takes shareV || confirmV (ShareSize + ConfirmSize bytes) and
// returns confirmP, after which the Prover is done.
func (p *Prover) Next(in []byte) ([]byte, error) {
	switch p.state {
	case stateStart:
		if in != nil {
			return nil, p.fail(fmt.Errorf("%w: the prover speaks first and takes no input", pakeerr.ErrInvalidMessage))
		}
		return p.Start()
	case stateActive:
		if len(in) != ShareSize+ConfirmSize {
			return nil, p.fail(fmt.Errorf("%w: shareV || confirmV is %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), ShareSize+ConfirmSize))
		}
		return p.Finish(in[:ShareSize], in[ShareSize:])
	}
	return nil, p.fail(errState("the exchange is over"))
}
