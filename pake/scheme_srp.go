package pake

import (
	"crypto"
	_ "crypto/sha1" // SRP-SHA1's hash
	"io"

	"github.com/kexlab/kexlab/pake/srp"
)

func init() {
	register(srpScheme{name: "srp", p: srp.DefaultParams()})
	// The Android study measured SRP-3072 with SHA-1 beside SHA-256.
	sha1, err := srp.NewParams(3072, crypto.SHA1)
	if err != nil {
		panic("pake: SRP-3072 with SHA-1: " + err.Error())
	}
	register(srpScheme{name: "srp-sha1", p: sha1})
}

// srpScheme adapts package srp (SRP-6a, RFC 5054, srp.ProfileRFC5054, the
// profile other SRP libraries speak) to Scheme. The typed API offers every
// RFC 5054 group with SHA-1 or SHA-256; registered are "srp" (3072-bit
// group, SHA-256) and "srp-sha1" (3072-bit group, SHA-1, as the Android
// study measured it).
//
// The identity I is ClientID. SRP-6a's first message is "I, A"; I is what
// the server looks its record up by, so it belongs to the request that
// selects the record, not to the key exchange: here both parties take it
// from Credentials, and message 1 is A alone. Messages (srp.ProfileRFC5054):
// the client sends A, the server len(s)||s||B, both integers without
// leading zero bytes (so Info marks them Variable, at most N's length),
// the client M1, the server M2. Register
// draws a 16-byte salt; the record is len(s)||s||PAD(v) (srp.Record), and
// the server works from it without the password. ServerID and Context are
// not part of SRP-6a and are ignored.
type srpScheme struct {
	name string
	p    *srp.Params
}

func (s srpScheme) Info() Info {
	p := s.p
	n, h := p.ElementSize(), p.HashSize() // 384 and 32 (SHA-1: 20)
	return Info{
		Name:            s.name,
		Suite:           p.Name(),
		Spec:            "RFC 5054",
		Augmented:       true,
		KeyConfirmation: true,
		Uses:            []string{"ClientID"},
		Messages: []Message{
			{Name: "A", From: Client, Size: n, StudySize: n, Variable: true},
			{Name: "s,B", From: Server, Size: 1 + srp.SaltSize + n, StudySize: srp.SaltSize + n, Variable: true},
			{Name: "M1", From: Client, Size: h, StudySize: h},
			{Name: "M2", From: Server, Size: h, StudySize: h},
		},
	}
}

func (s srpScheme) Register(rand io.Reader, c Credentials) ([]byte, error) {
	r, err := srp.Register(rand, s.p, c.ClientID, c.Password)
	if err != nil {
		return nil, err
	}
	return r.MarshalBinary()
}

func (s srpScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	return srp.NewClient(rand, s.p, c.ClientID, c.Password)
}

// NewServer ignores c.Password: the server has only the record.
func (s srpScheme) NewServer(rand io.Reader, c Credentials, record []byte) (Party, error) {
	r, err := srp.ParseRecord(s.p, record)
	if err != nil {
		return nil, err
	}
	return srp.NewServer(rand, s.p, c.ClientID, r)
}

func (srpScheme) KnownAnswerTests() []KnownAnswer { return srp.KnownAnswerTests() }

// Floor returns srp.Unavoidable for the registered parameters
// (pake.Floorer); SRP's x is a plain hash, so Password is nil.
func (s srpScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := srp.Unavoidable(rand, s.p)
	if err != nil {
		return nil, err
	}
	return f, nil
}
