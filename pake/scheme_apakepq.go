package pake

import (
	"io"

	"github.com/kexlab/kexlab/pake/apakepq"
)

// APAKEPQOptions configures the scheme of NewAPAKEPQ.
type APAKEPQOptions struct {
	// Iterations is the PBKDF2-HMAC-SHA256 iteration count used at
	// registration and login; zero selects apakepq.DefaultIterations
	// (100000). Benchmarks may pass 1 to measure the exchange without it.
	Iterations int
}

// NewAPAKEPQ returns the Lyu-Liu-Han aPAKE compiler applied to OCAKE
// (ML-KEM-512, AES-GCM, SHA-256) as a Scheme. Register derives the record
// rw ‖ ek from the password (deterministically: rand is not used); the
// server works from the record alone. ClientID and ServerID salt the
// password hash, Context binds each session. NewClient runs PBKDF2 for
// each client; PrepareClient runs it once per credential. The scheme
// registered as "apakepq" uses the zero options.
func NewAPAKEPQ(opts APAKEPQOptions) Scheme { return apakepqScheme{iterations: opts.Iterations} }

func init() {
	register(NewAPAKEPQ(APAKEPQOptions{}))
	// The Android study's configuration: no password stretching (profile
	// "study" only).
	register(apakepqScheme{iterations: 1, name: "apakepq-nokdf"})
}

type apakepqScheme struct {
	iterations int
	name       string // "" selects "apakepq"
}

func (s apakepqScheme) Info() Info {
	name := "apakepq"
	if s.name != "" {
		name = s.name
	}
	return Info{
		Name:            name,
		Suite:           apakepq.Suite + stretchNote(s.iterations),
		Spec:            "Lyu-Liu-Han, ASIACRYPT 2024",
		Augmented:       true,
		KeyConfirmation: true,
		Uses:            []string{"ClientID", "ServerID", "Context"},
		Messages: []Message{
			{Name: "apk = IV||AES-CBC(ek_e)", From: Client, Size: apakepq.Message1Size, StudySize: apakepq.Message1Size},
			{Name: "c_e||Auth||nonce||psi", From: Server, Size: apakepq.Message2Size, StudySize: apakepq.Message2Size},
			{Name: "sigma", From: Client, Size: apakepq.Message3Size, StudySize: apakepq.Message3Size},
		},
	}
}

// Register returns the record rw ‖ ek.
func (s apakepqScheme) Register(_ io.Reader, c Credentials) ([]byte, error) {
	r, err := apakepq.Register(c.Password, c.ClientID, c.ServerID, s.iterations)
	if err != nil {
		return nil, err
	}
	return r.Bytes(), nil
}

func apakepqSession(c Credentials) apakepq.Session {
	return apakepq.Session{ClientID: c.ClientID, ServerID: c.ServerID, Context: c.Context}
}

func (s apakepqScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	return apakepq.NewClient(rand, c.Password, apakepqSession(c), s.iterations)
}

// NewServer ignores c.Password and works from record.
func (apakepqScheme) NewServer(rand io.Reader, c Credentials, record []byte) (Party, error) {
	r, err := apakepq.ParseRecord(record)
	if err != nil {
		return nil, err
	}
	return apakepq.NewServer(rand, r, apakepqSession(c))
}

func (apakepqScheme) KnownAnswerTests() []KnownAnswer { return apakepq.KnownAnswerTests() }

// PrepareClient runs PBKDF2 once (pake.Preparer).
func (s apakepqScheme) PrepareClient(c Credentials) (PartyFactory, error) {
	sec, err := apakepq.DeriveSecrets(c.Password, c.ClientID, c.ServerID, s.iterations)
	if err != nil {
		return nil, err
	}
	sid := apakepqSession(c)
	return func(rand io.Reader) (Party, error) { return apakepq.NewClientFromSecrets(rand, sec, sid) }, nil
}

// PrepareServer parses the record once (pake.Preparer).
func (apakepqScheme) PrepareServer(c Credentials, record []byte) (PartyFactory, error) {
	r, err := apakepq.ParseRecord(record)
	if err != nil {
		return nil, err
	}
	sid := apakepqSession(c)
	return func(rand io.Reader) (Party, error) { return apakepq.NewServer(rand, r, sid) }, nil
}

// Floor returns apakepq.Unavoidable with the scheme's PBKDF2 iteration
// count (pake.Floorer): the client re-derives its secrets, the server uses
// the record.
func (s apakepqScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := apakepq.Unavoidable(rand, s.iterations)
	if err != nil {
		return nil, err
	}
	return f, nil
}
