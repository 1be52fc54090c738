package ocake

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"

	"github.com/kexlab/kexlab/internal/blockkat"
	"github.com/kexlab/kexlab/internal/kat"
)

// There are no official OCAKE vectors. The known-answer tests check the
// building blocks, through this package's layer, against the published
// vectors of internal/blockkat, and the whole protocol against frozen
// regression transcripts.

// regressionVectors are transcripts recorded by kexlab itself (regression
// data, not official vectors).
//
//go:embed testdata/regression_ocake.json
var regressionVectors []byte

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

// kem is this package's ML-KEM-512 layer, as blockkat exercises it.
var kem = blockkat.KEM{
	KeyGenDecaps: func(seed, c []byte) ([]byte, []byte, error) {
		ek, dk, err := keyFromSeed(seed)
		if err != nil {
			return nil, nil, err
		}
		k, err := decapsulate(dk, c)
		return packEncapsulationKey(ek), k, err
	},
	Encaps: func(b, m []byte) ([]byte, []byte, error) {
		ek, err := parseEncapsulationKey(b)
		if err != nil {
			return nil, nil, err
		}
		return encapsulate(ek, m)
	},
}

// cbc is this package's AES-CBC layer: cbcEncrypt, cbcDecryptRaw and the
// constant-time pkcs7Unpad.
var cbc = blockkat.CBC{
	Encrypt: func(key, iv, msg []byte) ([]byte, error) { return cbcEncrypt(key, iv, msg), nil },
	Decrypt: func(key, iv, ct []byte) ([]byte, error) {
		pt, ok := cbcDecryptRaw(key, iv, ct)
		if ok {
			pt, ok = pkcs7Unpad(pt)
		}
		if !ok {
			return nil, errors.New("bad ciphertext or padding")
		}
		return pt, nil
	},
}

// checkRegression replays a frozen transcript through the public API.
func checkRegression(r regression) error {
	v, err := blockkat.Unhex(r.InitiatorRandom, r.ResponderRandom, r.PasswordKey, r.Message1, r.Message2, r.SessionKey)
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
	v, err := blockkat.Unhex(r.InitiatorRandom, r.ResponderRandom)
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
	msgs, ka, kb, err := kat.Run(a, b, nil)
	if err != nil {
		return nil, err
	}
	if len(msgs) != 2 {
		return nil, fmt.Errorf("%d messages, want 2", len(msgs))
	}
	if !bytes.Equal(ka, kb) {
		return nil, kat.Mismatch("initiator key vs responder key", ka, kb)
	}
	if ra.Len() != 0 || rb.Len() != 0 {
		return nil, fmt.Errorf("randomness left unread: %d and %d bytes", ra.Len(), rb.Len())
	}
	return [][]byte{pwKey, msgs[0], msgs[1], ka}, nil
}

// KnownAnswerTests returns the embedded vectors as tests: blockkat's
// subsets of Wycheproof's ML-KEM-512 and AES-CBC-PKCS5 cases run through
// this package's layer, RFC 7914 §11 PBKDF2-HMAC-SHA256, and kexlab's
// regression transcripts (named as such).
func KnownAnswerTests() []kat.Test {
	tests := blockkat.MLKEM512(kem)
	tests = append(tests, blockkat.AESCBCPKCS5(cbc)...)
	tests = append(tests, blockkat.PBKDF2SHA256()...)
	var rg regressionFile
	if bad := blockkat.Decode("ocake: testdata/regression_ocake.json", regressionVectors, &rg); bad != nil {
		return append(tests, bad...)
	}
	for _, r := range rg.Cases {
		tests = append(tests, kat.Test{Name: "regression (kexlab-generated, not official): " + r.Name, Run: func() error { return checkRegression(r) }})
	}
	return tests
}
