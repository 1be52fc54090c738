package pake

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/pake/spake2plus"
)

func init() { register(spake2plusScheme{}) }

// spake2plusScheme adapts package spake2plus (RFC 9383,
// P256-SHA256-HKDF-SHA256-HMAC-SHA256) to Scheme.
//
// Registration uses scrypt (N=32768, r=8, p=1) with the salt
// spake2plus.IdentitySalt(ClientID, ServerID), so that the client derives
// w0 and w1 from its password without a message to fetch the salt, and
// the flow keeps the RFC's three messages. The record is
// spake2plus.Record{Salt, W0, L} in its 129-byte encoding; the server
// refuses a record whose salt is not the one these identities give.
type spake2plusScheme struct{}

func (spake2plusScheme) Info() Info {
	return Info{
		Name:            "spake2plus",
		Suite:           spake2plus.Suite,
		Spec:            "RFC 9383",
		Augmented:       true,
		KeyConfirmation: true,
		Uses:            []string{"ClientID", "ServerID", "Context"},
		Messages: []Message{
			{Name: "shareP", From: Client,
				Size:      spake2plus.ShareSize,
				StudySize: 33},
			{Name: "shareV||confirmV", From: Server,
				Size:      spake2plus.ShareSize + spake2plus.ConfirmSize,
				StudySize: 33 + spake2plus.ConfirmSize},
			{Name: "confirmP", From: Client,
				Size:      spake2plus.ConfirmSize,
				StudySize: spake2plus.ConfirmSize},
		},
	}
}

// secrets derives the client's w0 and w1 (and L) from its credentials.
func (spake2plusScheme) secrets(c Credentials) (salt, w0, w1, L []byte, err error) {
	salt = spake2plus.IdentitySalt(c.ClientID, c.ServerID)
	w0, w1, L, err = spake2plus.Register(c.Password, c.ClientID, c.ServerID, spake2plus.Scrypt(salt))
	return salt, w0, w1, L, err
}

func (s spake2plusScheme) Register(_ io.Reader, c Credentials) ([]byte, error) {
	salt, w0, _, L, err := s.secrets(c)
	if err != nil {
		return nil, err
	}
	r := spake2plus.Record{Salt: salt, W0: w0, L: L}
	return r.MarshalBinary()
}

func (s spake2plusScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	f, err := s.PrepareClient(c)
	if err != nil {
		return nil, err
	}
	return f(rand)
}

func (s spake2plusScheme) NewServer(rand io.Reader, c Credentials, record []byte) (Party, error) {
	f, err := s.PrepareServer(c, record)
	if err != nil {
		return nil, err
	}
	return f(rand)
}

// PrepareClient derives w0 and w1 once (pake.Preparer), as RFC 9383 lets
// a prover that keeps them between sessions.
func (s spake2plusScheme) PrepareClient(c Credentials) (PartyFactory, error) {
	_, w0, w1, _, err := s.secrets(c)
	if err != nil {
		return nil, err
	}
	return func(rand io.Reader) (Party, error) {
		return spake2plus.NewProver(rand, c.Context, c.ClientID, c.ServerID, w0, w1)
	}, nil
}

// PrepareServer parses the record once (pake.Preparer).
func (spake2plusScheme) PrepareServer(c Credentials, record []byte) (PartyFactory, error) {
	var r spake2plus.Record
	if err := r.UnmarshalBinary(record); err != nil {
		return nil, err
	}
	if !bytes.Equal(r.Salt, spake2plus.IdentitySalt(c.ClientID, c.ServerID)) {
		return nil, fmt.Errorf("%w: record was registered for other identities", ErrInvalidParameter)
	}
	return func(rand io.Reader) (Party, error) {
		return spake2plus.NewVerifier(rand, c.Context, c.ClientID, c.ServerID, r.W0, r.L)
	}, nil
}

func (spake2plusScheme) KnownAnswerTests() []KnownAnswer { return spake2plus.KnownAnswerTests() }

// Floor returns spake2plus.Unavoidable (pake.Floorer): the client stretches
// its password with the registered scrypt, the server uses its record.
func (spake2plusScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := spake2plus.Unavoidable(rand)
	if err != nil {
		return nil, err
	}
	return f, nil
}
