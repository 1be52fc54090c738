package pake

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/pake/pace"
)

// PACEOptions configures the PACE scheme of NewPACE.
type PACEOptions struct {
	// Mapping is pace.GenericMapping (the zero value selects it) or
	// pace.IntegratedMapping.
	Mapping pace.Mapping
	// Iterations is the PBKDF2-HMAC-SHA256 iteration count of K_π; zero
	// selects pace.DefaultIterations (100000). Benchmarks may pass 1 to
	// measure the exchange without PBKDF2.
	Iterations int
}

// NewPACE returns PACE (ICAO Doc 9303-11 §4.4) on P-256 with
// AES-CBC-CMAC-128 as a Scheme, the client being the terminal (PCD) and
// the server the chip (PICC). K_π is PBKDF2-HMAC-SHA256(Password,
// pace.PBKDF2Salt(ServerID), iterations, 16) in place of ICAO's KDF_π:
// PACE has no identities, so only the salt binds one, the chip's, whose
// password it is. Context is not used.
//
// Messages are the values of ICAO's data objects without APDU or TLV
// framing (see package pace for the list and for the Integrated Mapping's
// merged third message): the terminal's request (protocol OID and domain
// parameter ID 12), the encrypted nonce z, the mapping data, the ephemeral
// public keys (65-byte uncompressed points) and the 8-byte tokens. The
// session key is K_enc ‖ K_mac. A wrong password fails at the chip, which
// checks the terminal's token first, with ErrAuthFailed. StudySize counts
// points compressed (33 bytes) and no framing; ICAO encrypts the nonce
// with a zero IV, so no IV travels and none is counted.
func NewPACE(opts PACEOptions) Scheme {
	if opts.Mapping == 0 {
		opts.Mapping = pace.GenericMapping
	}
	return paceScheme{opts}
}

func init() {
	register(NewPACE(PACEOptions{Mapping: pace.GenericMapping}))
	register(NewPACE(PACEOptions{Mapping: pace.IntegratedMapping}))
}

type paceScheme struct{ opts PACEOptions }

func (s paceScheme) Info() Info {
	const (
		pt      = pace.PointSize
		ptStudy = 33
	)
	info := Info{
		Spec:            "ICAO 9303-11 §4.4",
		KeyConfirmation: true,
		Uses:            []string{"ServerID"},
	}
	request := Message{Name: "OID||parameter ID", From: Client, Size: pace.RequestSize, StudySize: pace.RequestSize}
	nonce := Message{Name: "z = E(K_pi, s)", From: Server, Size: pace.NonceSize, StudySize: pace.NonceSize}
	tPCD := Message{Name: "T_PCD", From: Client, Size: pace.TokenSize, StudySize: pace.TokenSize}
	tPICC := Message{Name: "T_PICC", From: Server, Size: pace.TokenSize, StudySize: pace.TokenSize}
	switch s.opts.Mapping {
	case pace.IntegratedMapping:
		info.Name = "pace-im"
		info.Suite = "PACE-ECDH-IM P-256 AES-CBC-CMAC-128 PBKDF2-SHA256"
		info.Messages = []Message{request, nonce,
			{Name: "t||PK_PCD", From: Client, Size: pace.NonceSize + pt, StudySize: pace.NonceSize + ptStudy},
			{Name: "PK_PICC", From: Server, Size: pt, StudySize: ptStudy},
			tPCD, tPICC}
	default:
		info.Name = "pace-gm"
		info.Suite = "PACE-ECDH-GM P-256 AES-CBC-CMAC-128 PBKDF2-SHA256"
		info.Messages = []Message{request, nonce,
			{Name: "PK_Map,PCD", From: Client, Size: pt, StudySize: ptStudy},
			{Name: "PK_Map,PICC", From: Server, Size: pt, StudySize: ptStudy},
			{Name: "PK_PCD", From: Client, Size: pt, StudySize: ptStudy},
			{Name: "PK_PICC", From: Server, Size: pt, StudySize: ptStudy},
			tPCD, tPICC}
	}
	return info
}

func (s paceScheme) config(c Credentials) (pace.Config, error) {
	if len(c.Password) == 0 {
		return pace.Config{}, fmt.Errorf("%w: pace: empty password", ErrInvalidParameter)
	}
	return pace.Config{
		Mapping:     s.opts.Mapping,
		Curve:       pace.P256,
		PasswordKey: pace.PBKDF2PasswordKey(pace.PBKDF2Salt(c.ServerID), s.opts.Iterations),
	}, nil
}

// Register returns no record: PACE is balanced.
func (paceScheme) Register(io.Reader, Credentials) ([]byte, error) { return nil, nil }

func (s paceScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	f, err := s.PrepareClient(c)
	if err != nil {
		return nil, err
	}
	return f(rand)
}

// NewServer ignores record: the chip knows the password.
func (s paceScheme) NewServer(rand io.Reader, c Credentials, _ []byte) (Party, error) {
	f, err := s.PrepareServer(c, nil)
	if err != nil {
		return nil, err
	}
	return f(rand)
}

// prepared derives K_π once and returns a config whose password-to-key
// function hands it out.
func (s paceScheme) prepared(c Credentials) (pace.Config, error) {
	cfg, err := s.config(c)
	if err != nil {
		return cfg, err
	}
	kpi, err := cfg.PasswordKey(c.Password)
	if err != nil {
		return cfg, err
	}
	cfg.PasswordKey = func([]byte) ([]byte, error) { return bytes.Clone(kpi), nil }
	return cfg, nil
}

// PrepareClient runs PBKDF2 once (pake.Preparer).
func (s paceScheme) PrepareClient(c Credentials) (PartyFactory, error) {
	cfg, err := s.prepared(c)
	if err != nil {
		return nil, err
	}
	return func(rand io.Reader) (Party, error) { return pace.NewTerminal(rand, cfg, c.Password) }, nil
}

// PrepareServer runs PBKDF2 once (pake.Preparer); record is ignored.
func (s paceScheme) PrepareServer(c Credentials, _ []byte) (PartyFactory, error) {
	cfg, err := s.prepared(c)
	if err != nil {
		return nil, err
	}
	return func(rand io.Reader) (Party, error) { return pace.NewChip(rand, cfg, c.Password) }, nil
}

// KnownAnswerTests returns the ICAO worked example of the scheme's
// mapping (Appendix G.1 or H.1, on brainpoolP256r1 with ICAO's KDF_π).
func (s paceScheme) KnownAnswerTests() []KnownAnswer {
	return pace.MappingKnownAnswerTests(s.opts.Mapping)
}

// Floor returns pace.Unavoidable with the scheme's mapping and PBKDF2
// iteration count (pake.Floorer).
func (s paceScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := pace.Unavoidable(rand, s.opts.Mapping, s.opts.Iterations)
	if err != nil {
		return nil, err
	}
	return f, nil
}
