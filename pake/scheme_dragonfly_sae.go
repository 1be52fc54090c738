package pake

import (
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/pake/dragonfly"
	"github.com/kexlab/kexlab/pake/dragonfly/sae"
)

// Message sizes under the seed study's accounting: the 64-octet x || y
// element counted as a 33-octet compressed point.
const (
	dragonflyStudyCommit = dragonfly.ScalarSize + group.CompressedPointSize
	saeStudyCommit       = 2 + sae.ScalarSize + group.CompressedPointSize
)

// DragonflyOptions configures the Dragonfly scheme of NewDragonfly.
type DragonflyOptions struct {
	// InsecureEarlyExit selects the variable-time hunting and pecking that
	// stops at the first success. INSECURE; for measurement only (see
	// dragonfly.Options).
	InsecureEarlyExit bool
}

// NewDragonfly returns Dragonfly (RFC 7664, P-256, HKDF-SHA256) as a Scheme:
// the client is the initiator. ClientID and ServerID are the two identities
// that hunting and pecking hashes with the password; they must differ. The
// scheme registered as "dragonfly" uses the zero options; the one
// registered as "dragonfly-early-exit" the INSECURE early exit, whose
// time tells the password's hunting-and-pecking round (for measurement
// only).
func NewDragonfly(opts DragonflyOptions) Scheme {
	return dragonflyScheme{opts: dragonfly.Options{InsecureEarlyExit: opts.InsecureEarlyExit}}
}

// SAEOptions configures the SAE scheme of NewSAE.
type SAEOptions struct {
	// HuntAndPeck derives PWE by hunting and pecking (§12.4.4.2.2) instead
	// of hash-to-element (§12.4.4.2.3).
	HuntAndPeck bool
	// InsecureEarlyExit, with HuntAndPeck, stops at the first success.
	// INSECURE; for measurement only (see sae.Options).
	InsecureEarlyExit bool
}

// NewSAE returns SAE (IEEE 802.11-2020 §12.4, group 19) as a Scheme: the
// client is the station that commits first, the session key is the PMK.
// The stations' MAC addresses come from ClientID and ServerID
// (sae.MACFromID) and the SSID is Context, at most 32 octets. Each party
// derives PT and PWE when it is created; a real station derives PT once per
// SSID and password. The scheme registered as "sae" uses the zero options:
// hash-to-element.
func NewSAE(opts SAEOptions) Scheme { return saeScheme{opts: opts} }

func init() {
	register(NewDragonfly(DragonflyOptions{}))
	// The variable-time row the Android study compared the constant-time
	// one with (about 4× faster there); registered for measurement only.
	register(NewDragonfly(DragonflyOptions{InsecureEarlyExit: true}))
	register(NewSAE(SAEOptions{}))
}

type dragonflyScheme struct {
	opts dragonfly.Options
}

func (s dragonflyScheme) Info() Info {
	name, suite := "dragonfly", dragonfly.Suite
	if s.opts.InsecureEarlyExit {
		name, suite = "dragonfly-early-exit", "P256-HKDF-SHA256 hunting-and-pecking (INSECURE early exit)"
	}
	return Info{
		Name:            name,
		Suite:           suite,
		Spec:            "RFC 7664",
		KeyConfirmation: true,
		Uses:            []string{"ClientID", "ServerID"},
		Messages: []Message{
			{Name: "commit", From: Client, Size: dragonfly.CommitSize, StudySize: dragonflyStudyCommit},
			{Name: "commit||confirm", From: Server, Size: dragonfly.CommitSize + dragonfly.ConfirmSize, StudySize: dragonflyStudyCommit + dragonfly.ConfirmSize},
			{Name: "confirm", From: Client, Size: dragonfly.ConfirmSize, StudySize: dragonfly.ConfirmSize},
		},
	}
}

// Register returns no record: Dragonfly is balanced.
func (dragonflyScheme) Register(io.Reader, Credentials) ([]byte, error) { return nil, nil }

func (s dragonflyScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	return dragonfly.NewInitiator(rand, c.Password, c.ClientID, c.ServerID, &s.opts)
}

// NewServer ignores record: both sides use the password.
func (s dragonflyScheme) NewServer(rand io.Reader, c Credentials, _ []byte) (Party, error) {
	return dragonfly.NewResponder(rand, c.Password, c.ServerID, c.ClientID, &s.opts)
}

func (dragonflyScheme) KnownAnswerTests() []KnownAnswer { return dragonfly.KnownAnswerTests() }

type saeScheme struct {
	opts SAEOptions
}

func (s saeScheme) Info() Info {
	suite := "SAE group 19 H2E"
	switch {
	case s.opts.HuntAndPeck && s.opts.InsecureEarlyExit:
		suite = "SAE group 19 hunting-and-pecking (INSECURE early exit)"
	case s.opts.HuntAndPeck:
		suite = "SAE group 19 hunting-and-pecking (40 iterations, constant time)"
	}
	uses := []string{"ClientID", "ServerID", "Context"}
	if s.opts.HuntAndPeck {
		uses = uses[:2] // hunting and pecking does not use the SSID
	}
	return Info{
		Name:            "sae",
		Suite:           suite,
		Spec:            "IEEE 802.11-2020 §12.4",
		KeyConfirmation: true,
		Uses:            uses,
		Messages: []Message{
			{Name: "commit", From: Client, Size: sae.CommitSize, StudySize: saeStudyCommit},
			{Name: "commit||confirm", From: Server, Size: sae.CommitSize + sae.ConfirmSize, StudySize: saeStudyCommit + sae.ConfirmSize},
			{Name: "confirm", From: Client, Size: sae.ConfirmSize, StudySize: sae.ConfirmSize},
		},
	}
}

// Register returns no record: SAE is balanced.
func (saeScheme) Register(io.Reader, Credentials) ([]byte, error) { return nil, nil }

// pwe derives the password element for the credentials.
func (s saeScheme) pwe(c Credentials) (*group.Point, error) {
	client, server := sae.MACFromID(c.ClientID), sae.MACFromID(c.ServerID)
	if s.opts.HuntAndPeck {
		return sae.HuntAndPeck(c.Password, client, server, &sae.Options{InsecureEarlyExit: s.opts.InsecureEarlyExit})
	}
	pt, err := sae.DerivePT(c.Context, c.Password, nil)
	if err != nil {
		return nil, err
	}
	return pt.PWE(client, server)
}

func (s saeScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	pwe, err := s.pwe(c)
	if err != nil {
		return nil, err
	}
	return sae.NewInitiator(rand, pwe)
}

// NewServer ignores record: both sides use the password.
func (s saeScheme) NewServer(rand io.Reader, c Credentials, _ []byte) (Party, error) {
	pwe, err := s.pwe(c)
	if err != nil {
		return nil, err
	}
	return sae.NewResponder(rand, pwe)
}

func (saeScheme) KnownAnswerTests() []KnownAnswer { return sae.KnownAnswerTests() }

// Floor returns dragonfly.Unavoidable with the scheme's hunting-and-pecking
// options (pake.Floorer).
func (s dragonflyScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := dragonfly.Unavoidable(rand, &s.opts)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Floor returns sae.Unavoidable with the scheme's PWE derivation
// (pake.Floorer).
func (s saeScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := sae.Unavoidable(rand, s.opts.HuntAndPeck, &sae.Options{InsecureEarlyExit: s.opts.InsecureEarlyExit})
	if err != nil {
		return nil, err
	}
	return f, nil
}
