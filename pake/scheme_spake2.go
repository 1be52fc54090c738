package pake

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/pake/spake2"
)

// SPAKE2Options configures the SPAKE2 scheme of NewSPAKE2.
type SPAKE2Options struct {
	// MHF derives the password scalar w = MHF(pw) mod p (RFC 9382,
	// Section 3.2) from Credentials.Password, with the salt
	// spake2.IdentitySalt(ClientID, ServerID). Nil selects spake2.Scrypt
	// (N=32768, r=8, p=1). Benchmarks may pass a cheap function to measure
	// the exchange without the MHF, whose cost spake2's BenchmarkMHF shows.
	MHF spake2.MHF
}

// NewSPAKE2 returns SPAKE2 (RFC 9382, P256-SHA256-HKDF-HMAC) as a Scheme:
// the client is A, the server B. ClientID and ServerID are the identities
// A and B, Context is the associated data AAD bound into the confirmation
// keys. Each party derives w from the password with opts.MHF when it is
// created. The scheme registered as "spake2" uses the zero options.
func NewSPAKE2(opts SPAKE2Options) Scheme {
	return spake2Scheme{mhf: opts.MHF}
}

func init() {
	register(NewSPAKE2(SPAKE2Options{}))
	// The Android study's configuration: w from HKDF, no memory-hard
	// function (profile "study" only; see spake2.HKDF).
	register(spake2Scheme{mhf: spake2.HKDF, name: "spake2-hkdf",
		suite: spake2.Suite + ", w = HKDF-SHA256(pw) (NO memory-hard function)"})
}

type spake2Scheme struct {
	mhf         spake2.MHF
	name, suite string // "" selects "spake2" and spake2.Suite
}

func (s spake2Scheme) Info() Info {
	name, suite := "spake2", spake2.Suite
	if s.name != "" {
		name, suite = s.name, s.suite
	}
	return Info{
		Name:            name,
		Suite:           suite,
		Spec:            "RFC 9382",
		KeyConfirmation: true,
		Uses:            []string{"ClientID", "ServerID", "Context"},
		Messages: []Message{
			{Name: "pA", From: Client, Size: spake2.ShareSize, StudySize: 33},
			{Name: "pB||cB", From: Server, Size: spake2.ShareSize + spake2.MACSize, StudySize: 33 + spake2.MACSize},
			{Name: "cA", From: Client, Size: spake2.MACSize, StudySize: spake2.MACSize},
		},
	}
}

// Register returns no record: SPAKE2 is balanced.
func (spake2Scheme) Register(io.Reader, Credentials) ([]byte, error) { return nil, nil }

// w derives the password scalar from c.
func (s spake2Scheme) w(c Credentials) ([]byte, error) {
	if len(c.Password) == 0 {
		return nil, fmt.Errorf("%w: empty password", ErrInvalidParameter)
	}
	return spake2.DeriveW(s.mhf, c.Password, spake2.IdentitySalt(c.ClientID, c.ServerID))
}

func (s spake2Scheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	f, err := s.PrepareClient(c)
	if err != nil {
		return nil, err
	}
	return f(rand)
}

// NewServer ignores record: both sides derive w from the password.
func (s spake2Scheme) NewServer(rand io.Reader, c Credentials, _ []byte) (Party, error) {
	f, err := s.PrepareServer(c, nil)
	if err != nil {
		return nil, err
	}
	return f(rand)
}

// PrepareClient derives w once (pake.Preparer).
func (s spake2Scheme) PrepareClient(c Credentials) (PartyFactory, error) {
	w, err := s.w(c)
	if err != nil {
		return nil, err
	}
	return func(rand io.Reader) (Party, error) {
		return spake2.NewA(rand, c.ClientID, c.ServerID, c.Context, w)
	}, nil
}

// PrepareServer derives w once (pake.Preparer); record is ignored.
func (s spake2Scheme) PrepareServer(c Credentials, _ []byte) (PartyFactory, error) {
	w, err := s.w(c)
	if err != nil {
		return nil, err
	}
	return func(rand io.Reader) (Party, error) {
		return spake2.NewB(rand, c.ClientID, c.ServerID, c.Context, w)
	}, nil
}

func (spake2Scheme) KnownAnswerTests() []KnownAnswer { return spake2.KnownAnswerTests() }

// Floor returns spake2.Unavoidable with the scheme's MHF (pake.Floorer).
func (s spake2Scheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := spake2.Unavoidable(rand, s.mhf)
	if err != nil {
		return nil, err
	}
	return f, nil
}
