package pake

import (
	"io"

	"github.com/kexlab/kexlab/pake/ocake"
)

// OCAKEOptions configures the OCAKE scheme of NewOCAKE.
type OCAKEOptions struct {
	// Iterations is the PBKDF2-HMAC-SHA256 iteration count of the password
	// key; zero selects ocake.DefaultIterations (100000). Benchmarks may
	// pass 1 to measure the exchange without PBKDF2.
	Iterations int
}

// NewOCAKE returns OCAKE (Beguinet et al., ACNS 2023) with ML-KEM-512 and
// AES-128-CBC as a Scheme: the client is Alice (the initiator), the server
// Bob. ClientID, ServerID and Context form the session identifier; the
// password key is salted with the two identities. NewClient and NewServer
// run PBKDF2 for each party; PrepareClient and PrepareServer run it once
// per credential. The scheme registered as "ocake" uses the zero options. See package ocake for the offline-attack weakness of this
// (evaluated) configuration.
func NewOCAKE(opts OCAKEOptions) Scheme { return ocakeScheme{iterations: opts.Iterations} }

func init() { register(NewOCAKE(OCAKEOptions{})) }

type ocakeScheme struct{ iterations int }

func (ocakeScheme) Info() Info {
	return Info{
		Name:            "ocake",
		Suite:           ocake.Suite,
		Spec:            "Beguinet et al., ACNS 2023",
		KeyConfirmation: true,
		Uses:            []string{"ClientID", "ServerID", "Context"},
		Messages: []Message{
			{Name: "apk = IV||AES-CBC(ek)", From: Client, Size: ocake.Message1Size, StudySize: ocake.Message1Size},
			{Name: "c||Auth", From: Server, Size: ocake.Message2Size, StudySize: ocake.Message2Size},
		},
	}
}

// Register returns no record: OCAKE is balanced.
func (ocakeScheme) Register(io.Reader, Credentials) ([]byte, error) { return nil, nil }

func (s ocakeScheme) session(c Credentials) (ocake.Session, []byte, error) {
	k, err := ocake.DeriveKey(c.Password, c.ClientID, c.ServerID, s.iterations)
	if err != nil {
		return ocake.Session{}, nil, err
	}
	return ocake.Session{ClientID: c.ClientID, ServerID: c.ServerID, Context: c.Context}, k, nil
}

func (s ocakeScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	sid, k, err := s.session(c)
	if err != nil {
		return nil, err
	}
	return ocake.NewInitiator(rand, k, sid)
}

// NewServer ignores record: both sides derive the key from the password.
func (s ocakeScheme) NewServer(rand io.Reader, c Credentials, _ []byte) (Party, error) {
	sid, k, err := s.session(c)
	if err != nil {
		return nil, err
	}
	return ocake.NewResponder(rand, k, sid)
}

func (ocakeScheme) KnownAnswerTests() []KnownAnswer { return ocake.KnownAnswerTests() }

// PrepareClient runs PBKDF2 once (pake.Preparer).
func (s ocakeScheme) PrepareClient(c Credentials) (PartyFactory, error) {
	sid, k, err := s.session(c)
	if err != nil {
		return nil, err
	}
	return func(rand io.Reader) (Party, error) { return ocake.NewInitiator(rand, k, sid) }, nil
}

// PrepareServer runs PBKDF2 once (pake.Preparer); record is ignored.
func (s ocakeScheme) PrepareServer(c Credentials, _ []byte) (PartyFactory, error) {
	sid, k, err := s.session(c)
	if err != nil {
		return nil, err
	}
	return func(rand io.Reader) (Party, error) { return ocake.NewResponder(rand, k, sid) }, nil
}

// Floor returns ocake.Unavoidable with the scheme's PBKDF2 iteration count
// (pake.Floorer).
func (s ocakeScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := ocake.Unavoidable(rand, s.iterations)
	if err != nil {
		return nil, err
	}
	return f, nil
}
