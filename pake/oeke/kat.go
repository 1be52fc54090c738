package oeke

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/kexlab/kexlab/internal/blockkat"
	"github.com/kexlab/kexlab/internal/kat"
)

// There are no official OEKE vectors. The known-answer tests check the
// building blocks (PBKDF2, and AES-CBC with PKCS#7 through this package's
// cbcEncrypt and cbcDecrypt) against the published vectors of
// internal/blockkat, and the whole protocol against frozen regression
// transcripts.

// regressionVectors are transcripts recorded by kexlab itself (regression
// data, not official vectors).
//
//go:embed testdata/regression_oeke.json
var regressionVectors []byte

// regression is one frozen transcript: the inputs, the randomness each
// party reads (in order) and everything that went on the wire.
type regression struct {
	Name         string `json:"name"`
	Suite        string `json:"suite"`
	Password     string `json:"password"`
	ClientID     string `json:"clientID"`
	ServerID     string `json:"serverID"`
	Iterations   int    `json:"iterations"`
	ClientRandom string `json:"clientRandom"`
	ServerRandom string `json:"serverRandom"`
	PasswordKey  string `json:"passwordKey"`
	Message1     string `json:"message1"`
	Message2     string `json:"message2"`
	Message3     string `json:"message3"`
	SessionKey   string `json:"sessionKey"`
}

// regressionFile is the layout of testdata/regression_oeke.json.
type regressionFile struct {
	Note  string       `json:"note"`
	Cases []regression `json:"cases"`
}

// cbc is this package's AES-CBC layer.
var cbc = blockkat.CBC{Encrypt: cbcEncrypt, Decrypt: cbcDecrypt}

// KnownAnswerTests returns blockkat's RFC 7914 PBKDF2-HMAC-SHA256 vectors
// and Wycheproof AES-CBC-PKCS5 cases, the latter run through this
// package's CBC layer, and the regression transcripts of both suites.
func KnownAnswerTests() []kat.Test {
	tests := blockkat.PBKDF2SHA256()
	tests = append(tests, blockkat.AESCBCPKCS5(cbc)...)
	var reg regressionFile
	if bad := blockkat.Decode("oeke: testdata/regression_oeke.json", regressionVectors, &reg); bad != nil {
		return append(tests, bad...)
	}
	for _, r := range reg.Cases {
		tests = append(tests, kat.Test{Name: "kexlab regression transcript (not an official vector): " + r.Name, Run: func() error { return checkRegression(r) }})
	}
	return tests
}

func suiteByName(name string) (*Params, error) {
	for _, p := range []*Params{MODP3072(), P256()} {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown suite %q", name)
}

// runTranscript runs one exchange with the case's inputs and randomness and
// returns pwKey, the three messages and the session key.
func runTranscript(r regression) ([5][]byte, error) {
	var out [5][]byte
	p, err := suiteByName(r.Suite)
	if err != nil {
		return out, err
	}
	rnd, err := blockkat.Unhex(r.ClientRandom, r.ServerRandom)
	if err != nil {
		return out, err
	}
	s := Session{ClientID: []byte(r.ClientID), ServerID: []byte(r.ServerID)}
	k, err := p.DeriveKey([]byte(r.Password), s, r.Iterations)
	if err != nil {
		return out, err
	}
	cr, sr := bytes.NewReader(rnd[0]), bytes.NewReader(rnd[1])
	c, err := NewClient(cr, p, k, s)
	if err != nil {
		return out, err
	}
	sv, err := NewServer(sr, p, k, s)
	if err != nil {
		return out, err
	}
	out[0] = k
	msgs, kc, ks, err := kat.Run(c, sv, nil)
	if err != nil {
		return out, err
	}
	if len(msgs) != 3 {
		return out, fmt.Errorf("%d messages, want 3", len(msgs))
	}
	copy(out[1:4], msgs)
	if cr.Len() != 0 || sr.Len() != 0 {
		return out, fmt.Errorf("randomness left unread: client %d, server %d bytes", cr.Len(), sr.Len())
	}
	if !bytes.Equal(kc, ks) {
		return out, kat.Mismatch("server sk", ks, kc)
	}
	out[4] = kc
	return out, nil
}

// checkRegression replays a transcript and compares every output.
func checkRegression(r regression) error {
	got, err := runTranscript(r)
	if err != nil {
		return err
	}
	want, err := blockkat.Unhex(r.PasswordKey, r.Message1, r.Message2, r.Message3, r.SessionKey)
	if err != nil {
		return err
	}
	for i, name := range []string{"pwKey", "message 1", "message 2", "message 3", "sk"} {
		if !bytes.Equal(got[i], want[i]) {
			return kat.Mismatch(name, got[i], want[i])
		}
	}
	return nil
}
