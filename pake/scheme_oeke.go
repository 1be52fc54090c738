package pake

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/pake/oeke"
)

// OEKEOptions configures the OEKE schemes of NewOEKE.
type OEKEOptions struct {
	// P256 selects the P-256 suite (registered as "oeke-p256"); the
	// default is the 3072-bit MODP suite ("oeke-modp3072").
	P256 bool
	// Iterations is the PBKDF2-HMAC-SHA256 iteration count of the password
	// key; zero selects oeke.DefaultIterations (100000). Benchmarks may
	// pass 1 to measure the exchange without PBKDF2.
	Iterations int
}

// NewOEKE returns OEKE (Bresson, Chevassut and Pointcheval, ACM CCS 2003)
// with AES-128-CBC in place of the ideal cipher as a Scheme. The client is
// the paper's U, the server S; ClientID and ServerID are the identities U
// and S that the hashes bind and that salt the password key (they are not
// sent). Messages: the client sends X, the server IV||E_pw(Y), the client
// Auth; only the client confirms its key, so a wrong password fails at the
// client (a bad decryption) or at the server (Auth) with ErrAuthFailed.
// Each party made by NewClient or NewServer runs PBKDF2 when it is
// created; pake.Preparer runs it once per credential. The schemes
// registered as "oeke-modp3072" and "oeke-p256" use the default iteration
// count. See package oeke for the offline (partition) attack this
// configuration allows.
func NewOEKE(opts OEKEOptions) Scheme {
	s := oekeScheme{name: "oeke-modp3072", params: oeke.MODP3072(), iterations: opts.Iterations}
	if opts.P256 {
		s.name, s.params = "oeke-p256", oeke.P256()
	}
	return s
}

var _ Preparer = oekeScheme{}

func init() {
	register(NewOEKE(OEKEOptions{}))
	register(NewOEKE(OEKEOptions{P256: true}))
	// The Android study's configurations: no password stretching (one
	// PBKDF2 iteration is a single HMAC-SHA256); profile "study" only.
	for _, p256 := range []bool{false, true} {
		s := NewOEKE(OEKEOptions{P256: p256, Iterations: 1}).(oekeScheme)
		s.name += "-nokdf"
		register(s)
	}
}

type oekeScheme struct {
	name       string
	params     *oeke.Params
	iterations int
}

func (s oekeScheme) Info() Info {
	p := s.params
	return Info{
		Name:            s.name,
		Suite:           p.Name() + stretchNote(s.iterations),
		Spec:            "Bresson, Chevassut, Pointcheval, ACM CCS 2003 (OEKE)",
		KeyConfirmation: true,
		Uses:            []string{"ClientID", "ServerID"},
		Messages: []Message{
			{Name: "X", From: Client, Size: p.Message1Size(), StudySize: p.Message1Size()},
			{Name: "IV||E_pw(Y)", From: Server, Size: p.Message2Size(), StudySize: p.Message2Size()},
			{Name: "Auth", From: Client, Size: p.Message3Size(), StudySize: p.Message3Size()},
		},
	}
}

// Register returns no record: OEKE is balanced.
func (oekeScheme) Register(io.Reader, Credentials) ([]byte, error) { return nil, nil }

func (s oekeScheme) session(c Credentials) (oeke.Session, []byte, error) {
	sid := oeke.Session{ClientID: c.ClientID, ServerID: c.ServerID}
	k, err := s.params.DeriveKey(c.Password, sid, s.iterations)
	if err != nil {
		return oeke.Session{}, nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return sid, k, nil
}

func (s oekeScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	sid, k, err := s.session(c)
	if err != nil {
		return nil, err
	}
	return oeke.NewClient(rand, s.params, k, sid)
}

// NewServer ignores record: both sides derive the key from the password.
func (s oekeScheme) NewServer(rand io.Reader, c Credentials, _ []byte) (Party, error) {
	sid, k, err := s.session(c)
	if err != nil {
		return nil, err
	}
	return oeke.NewServer(rand, s.params, k, sid)
}

func (oekeScheme) KnownAnswerTests() []KnownAnswer { return oeke.KnownAnswerTests() }

// PrepareClient runs PBKDF2 once (pake.Preparer); each party copies the key.
func (s oekeScheme) PrepareClient(c Credentials) (PartyFactory, error) {
	sid, k, err := s.session(c)
	if err != nil {
		return nil, err
	}
	return func(rand io.Reader) (Party, error) { return oeke.NewClient(rand, s.params, k, sid) }, nil
}

// PrepareServer runs PBKDF2 once (pake.Preparer); record is ignored.
func (s oekeScheme) PrepareServer(c Credentials, _ []byte) (PartyFactory, error) {
	sid, k, err := s.session(c)
	if err != nil {
		return nil, err
	}
	return func(rand io.Reader) (Party, error) { return oeke.NewServer(rand, s.params, k, sid) }, nil
}

// Floor returns oeke.Unavoidable with the scheme's suite and PBKDF2
// iteration count (pake.Floorer).
func (s oekeScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := oeke.Unavoidable(rand, s.params, s.iterations)
	if err != nil {
		return nil, err
	}
	return f, nil
}
