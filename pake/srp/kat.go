package srp

import (
	"bytes"
	"crypto"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kexlab/kexlab/internal/kat"
)

// vectorsJSON holds RFC 5054 Appendix B and a handful of srptools vectors,
// copied from the shared vector files (see its "source" field).
//
//go:embed testdata/vectors.json
var vectorsJSON []byte

// vector is one SRP vector in the layout of the shared files: hex strings,
// possibly with spaces and with leading zeros dropped. Keys that differ
// only in case are all tagged, so encoding/json matches them exactly.
type vector struct {
	H    string `json:"H"`
	Size int    `json:"size"`
	N    string `json:"N"`
	G    string `json:"g"`
	I    string `json:"I"`
	P    string `json:"P"`
	Salt string `json:"s"`
	K    string `json:"k"`
	X    string `json:"x"`
	V    string `json:"v"`
	PrvA string `json:"a"`
	PrvB string `json:"b"`
	A    string `json:"A"`
	B    string `json:"B"`
	U    string `json:"u"`
	S    string `json:"S"`
	Key  string `json:"K"` // absent from RFC 5054, like M1 and M2
	M1   string `json:"M1"`
	M2   string `json:"M2"`
}

// vectorFile is the layout of testdata/vectors.json.
type vectorFile struct {
	RFC5054  []vector `json:"rfc5054"`
	SRPTools []vector `json:"srptools"`
}

// KnownAnswerTests checks the RFC 5054 Appendix B vector (k, x, v, A, B,
// u, S) and srptools vectors (also K, M1, M2) by replaying their a and b
// through whole exchanges, in both profiles. srptools hashes H(g) over g's
// one-byte encoding, as ProfilePadded does, so its M1 and M2 are checked
// in that profile only; ProfileRFC5054's H(PAD(g)) is checked against
// pysrp and the RustCrypto srp crate by the interoperability tests.
func KnownAnswerTests() []kat.Test {
	var f vectorFile
	if err := json.Unmarshal(vectorsJSON, &f); err != nil {
		return []kat.Test{{Name: "srp: testdata/vectors.json", Run: func() error { return err }}}
	}
	var tests []kat.Test
	for _, pr := range []Profile{ProfileRFC5054, ProfilePadded} {
		for _, v := range f.RFC5054 {
			tests = append(tests, kat.Test{Name: fmt.Sprintf("RFC 5054 Appendix B (%d, %s, %v)", v.Size, v.H, pr), Run: func() error { return checkVector(v, pr) }})
		}
		for _, v := range f.SRPTools {
			tests = append(tests, kat.Test{Name: fmt.Sprintf("srptools SRP-6a %d %s (%v)", v.Size, v.H, pr), Run: func() error { return checkVector(v, pr) }})
		}
	}
	return tests
}

// decodeHex decodes a vector field, ignoring whitespace.
func decodeHex(s string) ([]byte, error) {
	s = strings.Join(strings.Fields(s), "")
	if len(s)%2 == 1 {
		s = "0" + s
	}
	return hex.DecodeString(s)
}

// sameInt reports whether two big-endian byte strings are the same
// integer (the vectors drop leading zeros; PAD adds them).
func sameInt(a, b []byte) bool {
	return bytes.Equal(bytes.TrimLeft(a, "\x00"), bytes.TrimLeft(b, "\x00"))
}

func vectorParams(v vector, pr Profile) (*Params, error) {
	switch v.H {
	case "sha1":
		return NewProfileParams(v.Size, crypto.SHA1, pr)
	case "sha256":
		return NewProfileParams(v.Size, crypto.SHA256, pr)
	}
	return nil, fmt.Errorf("hash %q not supported", v.H)
}

// replay returns a reader from which RandomExponent draws exactly e, an
// exponent of at most 32 bytes.
func replay(e []byte) *bytes.Reader {
	return bytes.NewReader(append(make([]byte, 32-len(e)), e...))
}

// checkVector recomputes every value of v: the parameters (N, g, k), the
// registration (x, v), then a whole exchange with v's a and b, checking
// each message, u and S of both sides, and K, M1 and M2 where v has them
// (M1 and M2 in ProfilePadded only, see KnownAnswerTests).
func checkVector(v vector, pr Profile) error {
	p, err := vectorParams(v, pr)
	if err != nil {
		return err
	}
	var derr error
	d := func(s string) []byte {
		b, err := decodeHex(s)
		derr = errors.Join(derr, err)
		return b
	}
	N, g, salt, k, xWant, vWant := d(v.N), d(v.G), d(v.Salt), d(v.K), d(v.X), d(v.V)
	a, b, A, B, u, S, K, M1, M2 := d(v.PrvA), d(v.PrvB), d(v.A), d(v.B), d(v.U), d(v.S), d(v.Key), d(v.M1), d(v.M2)
	if derr != nil {
		return derr
	}
	I, P := []byte(v.I), []byte(v.P)
	check := func(name string, got, want []byte) error {
		if !sameInt(got, want) {
			return kat.Mismatch(name, got, want)
		}
		return nil
	}
	verifier, err := p.Verifier(I, P, salt)
	if err != nil {
		return err
	}
	if err := errors.Join(check("N", p.group.P(), N), check("g", p.group.G(), g), check("k", p.k.Bytes(), k),
		check("x", p.x(salt, p.identityHash(I, P)), xWant), check("v", verifier, vWant)); err != nil {
		return err
	}
	if len(a) > 32 || len(b) > 32 {
		return fmt.Errorf("exponents of %d and %d bytes cannot be replayed", len(a), len(b))
	}
	c, err := NewClient(replay(a), p, I, P)
	if err != nil {
		return err
	}
	s, err := NewServer(replay(b), p, I, &Record{Salt: salt, Verifier: verifier})
	if err != nil {
		return err
	}
	m1, err := c.Next(nil)
	if err != nil {
		return err
	}
	m2, err := s.Next(m1)
	if err != nil {
		return err
	}
	gotSalt, gotB, err := parseMessage2(p, m2)
	if err != nil {
		return err
	}
	aElem, padA, err1 := p.parseElement(m1)
	bElem, padB, err2 := p.parseElement(gotB)
	gotU, err3 := p.u(padA, padB)
	if err := errors.Join(err1, err2, err3, check("A", m1, A), check("B", gotB, B), check("s", gotSalt, salt), check("u", gotU, u),
		check("S (client)", p.clientSecret(bElem, xWant, a, u), S),
		check("S (server)", p.serverSecret(aElem, p.group.Reduce(vWant), b, u), S)); err != nil {
		return err
	}
	m3, err := c.Next(m2)
	if err != nil {
		return err
	}
	m4, err := s.Next(m3)
	if err != nil {
		return err
	}
	if out, err := c.Next(m4); out != nil || err != nil {
		return fmt.Errorf("client's last Next = %x, %v; want nil, nil", out, err)
	}
	kc, err1 := c.SessionKey()
	ks, err2 := s.SessionKey()
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	if !bytes.Equal(kc, ks) {
		return kat.Mismatch("server K", ks, kc)
	}
	for _, opt := range []struct {
		name      string
		got, want []byte
	}{{"K", kc, K}, {"M1", m3, M1}, {"M2", m4, M2}} {
		if opt.name != "K" && pr != ProfilePadded {
			continue
		}
		if len(opt.want) > 0 && !bytes.Equal(opt.got, opt.want) {
			return kat.Mismatch(opt.name, opt.got, opt.want)
		}
	}
	return nil
}
