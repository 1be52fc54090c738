package apakepq

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/internal/blockkat"
	"github.com/kexlab/kexlab/internal/kat"
)

// There are no official vectors for this compiled protocol. The
// known-answer tests check the building blocks as apakepq calls them
// against the published vectors of internal/blockkat, and the whole
// protocol against frozen regression transcripts.

// regressionVectors are transcripts recorded by kexlab itself (regression
// data, not official vectors).
//
//go:embed testdata/regression_apakepq.json
var regressionVectors []byte

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

// kem is the circl calls apakepq makes: NewKeyFromSeed and DecapsulateTo
// (client), Unpack and EncapsulateTo (server), with the length checks that
// keep circl from panicking.
var kem = blockkat.KEM{
	KeyGenDecaps: func(seed, c []byte) ([]byte, []byte, error) {
		if len(seed) != mlkem512.KeySeedSize || len(c) != mlkem512.CiphertextSize {
			return nil, nil, errors.New("input of the wrong length")
		}
		ek, dk := mlkem512.NewKeyFromSeed(seed)
		b := make([]byte, mlkem512.PublicKeySize)
		ek.Pack(b)
		clearUpperYMM()
		k := make([]byte, mlkem512.SharedKeySize)
		dk.DecapsulateTo(k, c)
		clearUpperYMM()
		return b, k, nil
	},
	Encaps: func(b, m []byte) ([]byte, []byte, error) {
		var ek mlkem512.PublicKey
		bad := len(b) != mlkem512.PublicKeySize || ek.Unpack(b) != nil
		clearUpperYMM()
		if bad || len(m) != mlkem512.EncapsulationSeedSize {
			return nil, nil, errors.New("invalid encapsulation key or m")
		}
		c := make([]byte, mlkem512.CiphertextSize)
		k := make([]byte, mlkem512.SharedKeySize)
		ek.EncapsulateTo(c, k, m)
		clearUpperYMM()
		return c, k, nil
	},
}

// runTranscript registers and logs in once with the inputs and randomness
// of r and returns the record, the three messages and the session key. It
// fails if a party reads more or less randomness than r holds or the keys
// differ.
func runTranscript(r regression) ([][]byte, error) {
	v, err := blockkat.Unhex(r.ClientRandom, r.ServerRandom)
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
	msgs, kc, ks, err := kat.Run(c, sv, nil)
	if err != nil {
		return nil, err
	}
	if len(msgs) != 3 {
		return nil, fmt.Errorf("%d messages, want 3", len(msgs))
	}
	if !bytes.Equal(kc, ks) {
		return nil, kat.Mismatch("client key vs server key", kc, ks)
	}
	if rc.Len() != 0 || rs.Len() != 0 {
		return nil, fmt.Errorf("randomness left unread: %d and %d bytes", rc.Len(), rs.Len())
	}
	return [][]byte{rec.Bytes(), msgs[0], msgs[1], msgs[2], kc}, nil
}

// checkRegression replays a frozen transcript.
func checkRegression(r regression) error {
	want, err := blockkat.Unhex(r.Record, r.Message1, r.Message2, r.Message3, r.SessionKey)
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

// KnownAnswerTests returns the embedded vectors as tests: blockkat's
// subsets of Wycheproof's ML-KEM-512 and AES-GCM cases run through the
// calls apakepq makes, RFC 7914 §11 PBKDF2-HMAC-SHA256, and kexlab's
// regression transcripts (named as such). OCAKE's own layer is covered by
// ocake.KnownAnswerTests.
func KnownAnswerTests() []kat.Test {
	tests := blockkat.MLKEM512(kem)
	tests = append(tests, blockkat.AESGCM(newGCM)...)
	tests = append(tests, blockkat.PBKDF2SHA256()...)
	var rg regressionFile
	if bad := blockkat.Decode("apakepq: testdata/regression_apakepq.json", regressionVectors, &rg); bad != nil {
		return append(tests, bad...)
	}
	for _, r := range rg.Cases {
		tests = append(tests, kat.Test{Name: "regression (kexlab-generated, not official): " + r.Name, Run: func() error { return checkRegression(r) }})
	}
	return tests
}
