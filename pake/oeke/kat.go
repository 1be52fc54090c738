package oeke

import (
	"bytes"
	"crypto/pbkdf2"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kexlab/kexlab/internal/kat"
)

// There are no official OEKE vectors. The known-answer tests check the
// building blocks against published vectors (PBKDF2, AES-CBC with PKCS#7)
// and the whole protocol against frozen regression transcripts.

// pbkdf2Vectors is RFC 7914, Section 11, transcribed.
//
//go:embed testdata/pbkdf2_sha256_rfc7914.json
var pbkdf2Vectors []byte

// cbcVectors is a subset of Wycheproof's AES-CBC-PKCS5 file.
//
//go:embed testdata/aes_cbc_pkcs5_wycheproof.json
var cbcVectors []byte

// regressionVectors are transcripts recorded by kexlab itself (regression
// data, not official vectors).
//
//go:embed testdata/regression_oeke.json
var regressionVectors []byte

// pbkdf2Case is a PBKDF2-HMAC-SHA256 vector with ASCII password and salt.
type pbkdf2Case struct {
	P     string `json:"P"`
	S     string `json:"S"`
	C     int    `json:"c"`
	DKLen int    `json:"dkLen"`
	DK    string `json:"DK"`
}

// cbcCase is a case of Wycheproof's aes_cbc_pkcs5_test.json.
type cbcCase struct {
	TcID    int    `json:"tcId"`
	Comment string `json:"comment"`
	Key     string `json:"key"`
	IV      string `json:"iv"`
	Msg     string `json:"msg"`
	CT      string `json:"ct"`
	Result  string `json:"result"`
}

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

// KnownAnswerTests returns the RFC 7914 PBKDF2-HMAC-SHA256 vectors, the
// embedded Wycheproof AES-CBC-PKCS5 cases run through this package's CBC
// layer, and the regression transcripts of both suites.
func KnownAnswerTests() []kat.Test {
	var pb struct{ Tests []pbkdf2Case }
	var cbc struct{ Tests []cbcCase }
	var reg regressionFile
	for _, f := range []struct {
		name string
		data []byte
		v    any
	}{{"pbkdf2_sha256_rfc7914.json", pbkdf2Vectors, &pb}, {"aes_cbc_pkcs5_wycheproof.json", cbcVectors, &cbc}, {"regression_oeke.json", regressionVectors, &reg}} {
		if err := json.Unmarshal(f.data, f.v); err != nil {
			return []kat.Test{{Name: "oeke: testdata/" + f.name, Run: func() error { return err }}}
		}
	}
	var tests []kat.Test
	for i, c := range pb.Tests {
		tests = append(tests, kat.Test{Name: fmt.Sprintf("RFC 7914 §11 PBKDF2-HMAC-SHA256 #%d (c=%d)", i+1, c.C), Run: func() error { return checkPBKDF2(c) }})
	}
	tests = append(tests, kat.Test{Name: fmt.Sprintf("Wycheproof AES-CBC-PKCS5, %d cases", len(cbc.Tests)), Run: func() error {
		var errs []error
		for _, c := range cbc.Tests {
			errs = append(errs, checkCBC(c))
		}
		return errors.Join(errs...)
	}})
	for _, r := range reg.Cases {
		tests = append(tests, kat.Test{Name: "kexlab regression transcript (not an official vector): " + r.Name, Run: func() error { return checkRegression(r) }})
	}
	return tests
}

func unhex(fields ...string) ([][]byte, error) {
	out := make([][]byte, len(fields))
	for i, f := range fields {
		b, err := hex.DecodeString(f)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// checkPBKDF2 runs a case through the PBKDF2 that DeriveKey calls.
func checkPBKDF2(c pbkdf2Case) error {
	want, err := hex.DecodeString(c.DK)
	if err != nil {
		return err
	}
	got, err := pbkdf2.Key(sha256.New, c.P, []byte(c.S), c.C, c.DKLen)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return kat.Mismatch("DK", got, want)
	}
	return nil
}

// checkCBC runs a Wycheproof case through cbcEncrypt and cbcDecrypt: a
// valid case must encrypt to ct and decrypt back; an invalid one (bad
// padding) must be refused.
func checkCBC(c cbcCase) error {
	v, err := unhex(c.Key, c.IV, c.Msg, c.CT)
	if err != nil {
		return err
	}
	key, iv, msg, ct := v[0], v[1], v[2], v[3]
	got, err := cbcDecrypt(key, iv, ct)
	if c.Result != "valid" {
		if err == nil {
			return fmt.Errorf("tcId %d (%s): invalid ciphertext decrypted to %x", c.TcID, c.Comment, got)
		}
		return nil
	}
	if err != nil || !bytes.Equal(got, msg) {
		return fmt.Errorf("tcId %d (%s): decrypt = %x, %v; want %x", c.TcID, c.Comment, got, err, msg)
	}
	if enc, err := cbcEncrypt(key, iv, msg); err != nil || !bytes.Equal(enc, ct) {
		return fmt.Errorf("tcId %d (%s): encrypt = %x, %v; want %x", c.TcID, c.Comment, enc, err, ct)
	}
	return nil
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
	rnd, err := unhex(r.ClientRandom, r.ServerRandom)
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
	if out[1], err = c.Next(nil); err != nil {
		return out, err
	}
	if out[2], err = sv.Next(out[1]); err != nil {
		return out, err
	}
	if out[3], err = c.Next(out[2]); err != nil {
		return out, err
	}
	if m, err := sv.Next(out[3]); m != nil || err != nil {
		return out, fmt.Errorf("server's last Next = %x, %v; want nil, nil", m, err)
	}
	if cr.Len() != 0 || sr.Len() != 0 {
		return out, fmt.Errorf("randomness left unread: client %d, server %d bytes", cr.Len(), sr.Len())
	}
	kc, err1 := c.SessionKey()
	ks, err2 := sv.SessionKey()
	if err := errors.Join(err1, err2); err != nil {
		return out, err
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
	want, err := unhex(r.PasswordKey, r.Message1, r.Message2, r.Message3, r.SessionKey)
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
