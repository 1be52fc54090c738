package pake

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/pake/cpace"
)

func init() { register(cpaceScheme{}) }

// cpaceScheme adapts package cpace (draft-irtf-cfrg-cpace,
// CPACE-P256_XMD:SHA-256_SSWU_NU_-SHA256) to Scheme in the
// initiator-responder setting: the client is the initiator A, the server
// the responder B. Messages: A sends Ya||ADa, B answers Yb||ADb, and both
// hold ISK; there is no key confirmation, so a wrong password ends the run
// with different keys.
//
// Inputs, from Credentials:
//   - PRS = Password (an empty password is refused).
//   - CI = lv_cat(ClientID, ServerID, Context). Both parties know both
//     identities before the run, and for identities available to both at
//     protocol start the draft says they SHOULD be integrated into CI,
//     with the encoding associating each identity with its role, initiator
//     first (§10.1.1): the position in lv_cat does that, exactly as the
//     draft's vector CI = lv_cat(b"A_initiator", b"B_responder"). In CI
//     they stay confidential and need no check after the run.
//   - ADa = ADb = empty. With identities in CI there is nothing else to
//     send, so each message is exactly the 65-byte uncompressed point, and
//     Info can state fixed sizes (an identity in AD would make the message
//     length depend on the credentials).
//   - sid = empty. The draft allows it (§4.1) and its analysis [BGHJ24]
//     covers runs without a pre-agreed sid; the simplest alternative, a
//     random sid chosen and sent by the client, would add 16 bytes without
//     the security of an sid both sides contribute to, which needs an extra
//     round. cpace.Party.SIDOutput gives the §10.6 session identifier.
type cpaceScheme struct{}

func (cpaceScheme) Info() Info {
	return Info{
		Name:            "cpace",
		Suite:           cpace.Suite,
		Spec:            "draft-irtf-cfrg-cpace",
		KeyConfirmation: false,
		Uses:            []string{"ClientID", "ServerID", "Context"},
		Messages: []Message{
			{Name: "Ya,ADa", From: Client, Size: cpace.ElementSize, StudySize: 33},
			{Name: "Yb,ADb", From: Server, Size: cpace.ElementSize, StudySize: 33},
		},
	}
}

// cpaceInputs maps Credentials to CPace's inputs, as described above.
func cpaceInputs(c Credentials) (cpace.Inputs, error) {
	if len(c.Password) == 0 {
		return cpace.Inputs{}, fmt.Errorf("%w: cpace: empty password", ErrInvalidParameter)
	}
	return cpace.Inputs{
		PRS: c.Password,
		CI:  cpace.LVCat(c.ClientID, c.ServerID, c.Context),
	}, nil
}

func (cpaceScheme) Register(io.Reader, Credentials) ([]byte, error) { return nil, nil }

func (cpaceScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	in, err := cpaceInputs(c)
	if err != nil {
		return nil, err
	}
	return cpace.NewInitiator(rand, in)
}

func (cpaceScheme) NewServer(rand io.Reader, c Credentials, _ []byte) (Party, error) {
	in, err := cpaceInputs(c)
	if err != nil {
		return nil, err
	}
	return cpace.NewResponder(rand, in)
}

func (cpaceScheme) KnownAnswerTests() []KnownAnswer { return cpace.KnownAnswerTests() }

// Floor returns cpace.Unavoidable (pake.Floorer); CPace has no password
// processing beyond its generator, so Password is nil.
func (cpaceScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := cpace.Unavoidable(rand)
	if err != nil {
		return nil, err
	}
	return f, nil
}
