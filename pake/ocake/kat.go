package ocake

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

// There are no official OCAKE vectors. The known-answer tests check the
// building blocks against published vectors, and the whole protocol
// against frozen regression transcripts.

// mlkemVectors is a subset of Wycheproof's ML-KEM-512 files (see its
// "source" field); the tests run the full files.
//
//go:embed testdata/mlkem512_wycheproof.json
var mlkemVectors []byte

// cbcVectors is a subset of Wycheproof's AES-CBC-PKCS5 file.
//
//go:embed testdata/aes_cbc_pkcs5_wycheproof.json
var cbcVectors []byte

// pbkdf2Vectors is RFC 7914, Section 11, transcribed.
//
//go:embed testdata/pbkdf2_sha256_rfc7914.json
var pbkdf2Vectors []byte

// regressionVectors are transcripts recorded by kexlab itself (regression
// data, not official vectors).
//
//go:embed testdata/regression_ocake.json
var regressionVectors []byte

// mlkemCase is a Wycheproof ML-KEM-512 case. With Seed (mlkem_512_test.json):
// key generation from seed = d ‖ z (ek compared where given), then
// decapsulation of C. With M (mlkem_512_encaps_test.json): encapsulation
// to EK with randomness m. Invalid cases must be rejected.
type mlkemCase struct {
	TcID    int    `json:"tcId"`
	Comment string `json:"comment"`
	Seed    string `json:"seed"`
	EK      string `json:"ek"`
	M       string `json:"m"`
	C       string `json:"c"`
	K       string `json:"K"`
	Result  string `json:"result"`
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

// pbkdf2Case is a PBKDF2-HMAC-SHA256 vector with ASCII password and salt.
type pbkdf2Case struct {
	P     string `json:"P"`
	S     string `json:"S"`
	C     int    `json:"c"`
	DKLen int    `json:"dkLen"`
	DK    string `json:"DK"`
}

// regression is one frozen transcript: the inputs, the randomness each
// party reads (in order) and everything that went on the wire.
type regression struct {
	Name            string `json:"name"`
	Password        string `json:"password"`
	ClientID        string `json:"clientID"`
	ServerID        string `json:"serverID"`
	Context         string `json:"context"`
	Iterations      int    `json:"iterations"`
	InitiatorRandom string `json:"initiatorRandom"`
	ResponderRandom string `json:"responderRandom"`
	PasswordKey     string `json:"passwordKey"`
	Message1        string `json:"message1"`
	Message2        string `json:"message2"`
	SessionKey      string `json:"sessionKey"`
}

// regressionFile is the layout of testdata/regression_ocake.json.
type regressionFile struct {
	Note  string       `json:"note"`
	Suite string       `json:"suite"`
	Cases []regression `json:"cases"`
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

// checkMLKEM runs a case through this package's ML-KEM-512 layer.
func checkMLKEM(tc mlkemCase) error {
	v, err := unhex(tc.Seed, tc.EK, tc.M, tc.C, tc.K)
	if err != nil {
		return err
	}
	seed, ekWant, m, c, kWant := v[0], v[1], v[2], v[3], v[4]
	valid := tc.Result == "valid"
	var k []byte
	if tc.M == "" {
		ek, dk, err := keyFromSeed(seed)
		if err == nil && len(ekWant) > 0 {
			got := packEncapsulationKey(ek)
			if !bytes.Equal(got, ekWant) {
				return kat.Mismatch("ek", got, ekWant)
			}
		}
		if err == nil {
			k, err = decapsulate(dk, c)
		}
		if err != nil {
			return rejected(valid, err)
		}
	} else {
		ek, err := parseEncapsulationKey(ekWant)
		if err != nil {
			return rejected(valid, err)
		}
		var ct []byte
		if ct, k, err = encapsulate(ek, m); err != nil {
			return err
		}
		if valid && !bytes.Equal(ct, c) {
			return kat.Mismatch("c", ct, c)
		}
	}
	if !valid {
		return errors.New("invalid case accepted")
	}
	if !bytes.Equal(k, kWant) {
		return kat.Mismatch("K", k, kWant)
	}
	return nil
}

// rejected is the verdict on an input that was refused with err.
func rejected(valid bool, err error) error {
	if valid {
		return fmt.Errorf("valid case rejected: %v", err)
	}
	return nil
}

// checkCBC runs an AES-CBC-PKCS5 case: valid cases must encrypt to ct and
// decrypt back; invalid ones must fail to decrypt.
func checkCBC(tc cbcCase) error {
	v, err := unhex(tc.Key, tc.IV, tc.Msg, tc.CT)
	if err != nil {
		return err
	}
	key, iv, msg, ct := v[0], v[1], v[2], v[3]
	pt, ok := cbcDecryptRaw(key, iv, ct)
	if ok {
		pt, ok = pkcs7Unpad(pt)
	}
	if tc.Result != "valid" {
		if ok {
			return errors.New("invalid ciphertext accepted")
		}
		return nil
	}
	if got := cbcEncrypt(key, iv, msg); !bytes.Equal(got, ct) {
		return kat.Mismatch("ct", got, ct)
	}
	if !ok || !bytes.Equal(pt, msg) {
		return kat.Mismatch("decrypted msg", pt, msg)
	}
	return nil
}

// checkPBKDF2 runs a PBKDF2-HMAC-SHA256 case through the function
// DeriveKey uses.
func checkPBKDF2(tc pbkdf2Case) error {
	want, err := hex.DecodeString(tc.DK)
	if err != nil {
		return err
	}
	got, err := pbkdf2.Key(sha256.New, tc.P, []byte(tc.S), tc.C, tc.DKLen)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return kat.Mismatch("DK", got, want)
	}
	return nil
}

// checkRegression replays a frozen transcript through the public API.
func checkRegression(r regression) error {
	v, err := unhex(r.InitiatorRandom, r.ResponderRandom, r.PasswordKey, r.Message1, r.Message2, r.SessionKey)
	if err != nil {
		return err
	}
	got, err := runTranscript(r)
	if err != nil {
		return err
	}
	for i, name := range []string{"passwordKey", "message1", "message2", "sessionKey"} {
		if !bytes.Equal(got[i], v[i+2]) {
			return kat.Mismatch(name, got[i], v[i+2])
		}
	}
	return nil
}

// runTranscript runs one exchange with the inputs and randomness of r and
// returns pwKey, message 1, message 2 and the session key. It fails if a
// party reads more or less randomness than r holds, or if the two keys
// differ.
func runTranscript(r regression) ([][]byte, error) {
	v, err := unhex(r.InitiatorRandom, r.ResponderRandom)
	if err != nil {
		return nil, err
	}
	s := Session{[]byte(r.ClientID), []byte(r.ServerID), []byte(r.Context)}
	pwKey, err := DeriveKey([]byte(r.Password), s.ClientID, s.ServerID, r.Iterations)
	if err != nil {
		return nil, err
	}
	ra, rb := bytes.NewReader(v[0]), bytes.NewReader(v[1])
	a, err := NewInitiator(ra, pwKey, s)
	if err != nil {
		return nil, err
	}
	b, err := NewResponder(rb, pwKey, s)
	if err != nil {
		return nil, err
	}
	m1, err := a.Next(nil)
	if err != nil {
		return nil, err
	}
	m2, err := b.Next(m1)
	if err != nil {
		return nil, err
	}
	if out, err := a.Next(m2); err != nil || out != nil {
		return nil, fmt.Errorf("initiator finish: %v", err)
	}
	ka, _ := a.SessionKey()
	kb, _ := b.SessionKey()
	if !bytes.Equal(ka, kb) {
		return nil, kat.Mismatch("initiator key vs responder key", ka, kb)
	}
	if ra.Len() != 0 || rb.Len() != 0 {
		return nil, fmt.Errorf("randomness left unread: %d and %d bytes", ra.Len(), rb.Len())
	}
	return [][]byte{pwKey, m1, m2, ka}, nil
}

// KnownAnswerTests returns the embedded vectors as tests: a subset of
// Wycheproof's ML-KEM-512 and AES-CBC-PKCS5 cases, RFC 7914 §11
// PBKDF2-HMAC-SHA256, and kexlab's regression transcripts (named as such).
func KnownAnswerTests() []kat.Test {
	var tests []kat.Test
	add := func(name string, run func() error) { tests = append(tests, kat.Test{Name: name, Run: run}) }
	var mk struct {
		Decaps []mlkemCase `json:"decaps"`
		Encaps []mlkemCase `json:"encaps"`
	}
	var cbc struct {
		Tests []cbcCase `json:"tests"`
	}
	var pb struct {
		Tests []pbkdf2Case `json:"tests"`
	}
	var rg regressionFile
	for _, f := range []struct {
		name string
		data []byte
		v    any
	}{
		{"mlkem512_wycheproof.json", mlkemVectors, &mk},
		{"aes_cbc_pkcs5_wycheproof.json", cbcVectors, &cbc},
		{"pbkdf2_sha256_rfc7914.json", pbkdf2Vectors, &pb},
		{"regression_ocake.json", regressionVectors, &rg},
	} {
		if err := json.Unmarshal(f.data, f.v); err != nil {
			add("ocake: "+f.name, func() error { return err })
		}
	}
	for _, tc := range mk.Decaps {
		add(fmt.Sprintf("Wycheproof ML-KEM-512 keygen+decaps tcId %d", tc.TcID), func() error { return checkMLKEM(tc) })
	}
	for _, tc := range mk.Encaps {
		add(fmt.Sprintf("Wycheproof ML-KEM-512 encaps tcId %d", tc.TcID), func() error { return checkMLKEM(tc) })
	}
	for _, tc := range cbc.Tests {
		add(fmt.Sprintf("Wycheproof AES-CBC-PKCS5 tcId %d", tc.TcID), func() error { return checkCBC(tc) })
	}
	for i, tc := range pb.Tests {
		add(fmt.Sprintf("RFC 7914 §11 PBKDF2-HMAC-SHA256 #%d (c=%d)", i+1, tc.C), func() error { return checkPBKDF2(tc) })
	}
	for _, r := range rg.Cases {
		add("regression (kexlab-generated, not official): "+r.Name, func() error { return checkRegression(r) })
	}
	return tests
}
