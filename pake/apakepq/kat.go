package apakepq

import (
	"bytes"
	"crypto/pbkdf2"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/internal/kat"
)

// There are no official vectors for this compiled protocol. The
// known-answer tests check the building blocks as apakepq calls them
// against published vectors, and the whole protocol against frozen
// regression transcripts.

//go:embed testdata/mlkem512_wycheproof.json
var mlkemVectors []byte

//go:embed testdata/aes_gcm_wycheproof.json
var gcmVectors []byte

//go:embed testdata/pbkdf2_sha256_rfc7914.json
var pbkdf2Vectors []byte

//go:embed testdata/regression_apakepq.json
var regressionVectors []byte

// mlkemCase is a Wycheproof ML-KEM-512 case: with Seed, key generation
// (ek compared where given) and decapsulation of C; without, encapsulation
// to EK with randomness M.
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

// gcmCase is a Wycheproof AES-GCM case.
type gcmCase struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Key     string   `json:"key"`
	IV      string   `json:"iv"`
	AAD     string   `json:"aad"`
	Msg     string   `json:"msg"`
	CT      string   `json:"ct"`
	Tag     string   `json:"tag"`
	Result  string   `json:"result"`
}

type pbkdf2Case struct {
	P     string `json:"P"`
	S     string `json:"S"`
	C     int    `json:"c"`
	DKLen int    `json:"dkLen"`
	DK    string `json:"DK"`
}

// regression is one frozen run: registration and a login, with the
// randomness each party reads, in order.
type regression struct {
	Name         string `json:"name"`
	Password     string `json:"password"`
	ClientID     string `json:"clientID"`
	ServerID     string `json:"serverID"`
	Context      string `json:"context"`
	Iterations   int    `json:"iterations"`
	ClientRandom string `json:"clientRandom"`
	ServerRandom string `json:"serverRandom"`
	Record       string `json:"record"`
	Message1     string `json:"message1"`
	Message2     string `json:"message2"`
	Message3     string `json:"message3"`
	SessionKey   string `json:"sessionKey"`
}

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

// checkMLKEM runs a case through the circl calls apakepq makes:
// NewKeyFromSeed and DecapsulateTo (client), Unpack and EncapsulateTo
// (server), with the length checks that keep circl from panicking.
func checkMLKEM(tc mlkemCase) error {
	v, err := unhex(tc.Seed, tc.EK, tc.M, tc.C, tc.K)
	if err != nil {
		return err
	}
	seed, ekWant, m, c, kWant := v[0], v[1], v[2], v[3], v[4]
	valid := tc.Result == "valid"
	var k []byte
	if tc.Seed != "" || tc.M == "" {
		if len(seed) != mlkem512.KeySeedSize || len(c) != mlkem512.CiphertextSize {
			if valid {
				return errors.New("valid case has wrong lengths")
			}
			return nil
		}
		ek, dk := mlkem512.NewKeyFromSeed(seed)
		if len(ekWant) > 0 {
			got := make([]byte, mlkem512.PublicKeySize)
			ek.Pack(got)
			clearUpperYMM()
			if !bytes.Equal(got, ekWant) {
				return kat.Mismatch("ek", got, ekWant)
			}
		}
		k = make([]byte, mlkem512.SharedKeySize)
		dk.DecapsulateTo(k, c)
		clearUpperYMM()
	} else {
		var ek mlkem512.PublicKey
		bad := len(ekWant) != mlkem512.PublicKeySize || ek.Unpack(ekWant) != nil
		clearUpperYMM()
		if bad {
			if valid {
				return errors.New("valid key rejected")
			}
			return nil
		}
		if len(m) != mlkem512.EncapsulationSeedSize {
			return errors.New("m of the wrong length")
		}
		ct := make([]byte, mlkem512.CiphertextSize)
		k = make([]byte, mlkem512.SharedKeySize)
		ek.EncapsulateTo(ct, k, m)
		clearUpperYMM()
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

// checkGCM runs a 12-byte-nonce, 16-byte-tag case through newGCM: valid
// cases must seal to ct ‖ tag and open back, invalid ones must not open.
func checkGCM(tc gcmCase) error {
	v, err := unhex(tc.Key, tc.IV, tc.AAD, tc.Msg, tc.CT, tc.Tag)
	if err != nil {
		return err
	}
	key, iv, aad, msg, ct := v[0], v[1], v[2], v[3], append(v[4], v[5]...)
	if len(iv) != nonceSize || len(v[5]) != tagSize {
		return errors.New("not a 12-byte-nonce, 16-byte-tag case")
	}
	g := newGCM(key)
	pt, err := g.Open(nil, iv, ct, aad)
	if tc.Result != "valid" {
		if err == nil {
			return errors.New("invalid ciphertext opened")
		}
		return nil
	}
	if got := g.Seal(nil, iv, msg, aad); !bytes.Equal(got, ct) {
		return kat.Mismatch("ct||tag", got, ct)
	}
	if err != nil || !bytes.Equal(pt, msg) {
		return kat.Mismatch("opened msg", pt, msg)
	}
	return nil
}

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

// runTranscript registers and logs in once with the inputs and randomness
// of r and returns the record, the three messages and the session key. It
// fails if a party reads more or less randomness than r holds or the keys
// differ.
func runTranscript(r regression) ([][]byte, error) {
	v, err := unhex(r.ClientRandom, r.ServerRandom)
	if err != nil {
		return nil, err
	}
	s := Session{ClientID: []byte(r.ClientID), ServerID: []byte(r.ServerID), Context: []byte(r.Context)}
	rec, err := Register([]byte(r.Password), s.ClientID, s.ServerID, r.Iterations)
	if err != nil {
		return nil, err
	}
	rc, rs := bytes.NewReader(v[0]), bytes.NewReader(v[1])
	c, err := NewClient(rc, []byte(r.Password), s, r.Iterations)
	if err != nil {
		return nil, err
	}
	parsed, err := ParseRecord(rec.Bytes())
	if err != nil {
		return nil, err
	}
	sv, err := NewServer(rs, parsed, s)
	if err != nil {
		return nil, err
	}
	m1, err := c.Next(nil)
	if err != nil {
		return nil, err
	}
	m2, err := sv.Next(m1)
	if err != nil {
		return nil, err
	}
	m3, err := c.Next(m2)
	if err != nil {
		return nil, err
	}
	if out, err := sv.Next(m3); err != nil || out != nil {
		return nil, fmt.Errorf("server finish: %v", err)
	}
	kc, _ := c.SessionKey()
	ks, _ := sv.SessionKey()
	if !bytes.Equal(kc, ks) {
		return nil, kat.Mismatch("client key vs server key", kc, ks)
	}
	if rc.Len() != 0 || rs.Len() != 0 {
		return nil, fmt.Errorf("randomness left unread: %d and %d bytes", rc.Len(), rs.Len())
	}
	return [][]byte{rec.Bytes(), m1, m2, m3, kc}, nil
}

// checkRegression replays a frozen transcript.
func checkRegression(r regression) error {
	want, err := unhex(r.Record, r.Message1, r.Message2, r.Message3, r.SessionKey)
	if err != nil {
		return err
	}
	got, err := runTranscript(r)
	if err != nil {
		return err
	}
	for i, name := range []string{"record", "message1", "message2", "message3", "sessionKey"} {
		if !bytes.Equal(got[i], want[i]) {
			return kat.Mismatch(name, got[i], want[i])
		}
	}
	return nil
}

// KnownAnswerTests returns the embedded vectors as tests: a subset of
// Wycheproof's ML-KEM-512 and AES-GCM cases, RFC 7914 §11
// PBKDF2-HMAC-SHA256, and kexlab's regression transcripts (named as such).
// OCAKE's own layer is covered by ocake.KnownAnswerTests.
func KnownAnswerTests() []kat.Test {
	var tests []kat.Test
	add := func(name string, run func() error) { tests = append(tests, kat.Test{Name: name, Run: run}) }
	var mk struct {
		Decaps []mlkemCase `json:"decaps"`
		Encaps []mlkemCase `json:"encaps"`
	}
	var gcm struct {
		Tests []gcmCase `json:"tests"`
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
		{"aes_gcm_wycheproof.json", gcmVectors, &gcm},
		{"pbkdf2_sha256_rfc7914.json", pbkdf2Vectors, &pb},
		{"regression_apakepq.json", regressionVectors, &rg},
	} {
		if err := json.Unmarshal(f.data, f.v); err != nil {
			add("apakepq: "+f.name, func() error { return err })
		}
	}
	for _, tc := range mk.Decaps {
		add(fmt.Sprintf("Wycheproof ML-KEM-512 keygen+decaps tcId %d", tc.TcID), func() error { return checkMLKEM(tc) })
	}
	for _, tc := range mk.Encaps {
		add(fmt.Sprintf("Wycheproof ML-KEM-512 encaps tcId %d", tc.TcID), func() error { return checkMLKEM(tc) })
	}
	for _, tc := range gcm.Tests {
		add(fmt.Sprintf("Wycheproof AES-GCM tcId %d", tc.TcID), func() error { return checkGCM(tc) })
	}
	for i, tc := range pb.Tests {
		add(fmt.Sprintf("RFC 7914 §11 PBKDF2-HMAC-SHA256 #%d (c=%d)", i+1, tc.C), func() error { return checkPBKDF2(tc) })
	}
	for _, r := range rg.Cases {
		add("regression (kexlab-generated, not official): "+r.Name, func() error { return checkRegression(r) })
	}
	return tests
}
