package blockkat

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/internal/testvec"
)

// TestEmbeddedSubsets checks that every embedded Wycheproof case is
// copied unchanged from the full file in ../shared/vectors.
func TestEmbeddedSubsets(t *testing.T) {
	for _, f := range []struct {
		data        []byte
		key, shared string
		min         int
	}{
		{mlkemVectors, "decaps", "wycheproof/mlkem_512_test.json", 8},
		{mlkemVectors, "encaps", "wycheproof/mlkem_512_encaps_test.json", 6},
		{cbcVectors, "tests", "wycheproof/aes_cbc_pkcs5_test.json", 40},
		{gcmVectors, "tests", "wycheproof/aes_gcm_test.json", 10},
	} {
		var shared Wycheproof[map[string]any]
		testvec.JSON(t, f.shared, &shared)
		byID := map[float64]map[string]any{}
		for _, g := range shared.TestGroups {
			for _, c := range g.Tests {
				byID[c["tcId"].(float64)] = c
			}
		}
		var sub map[string]json.RawMessage
		if err := json.Unmarshal(f.data, &sub); err != nil {
			t.Fatal(err)
		}
		if len(sub["source"]) < 100 {
			t.Errorf("%s: the embedded subset has no source note", f.shared)
		}
		var cases []map[string]any
		if err := json.Unmarshal(sub[f.key], &cases); err != nil {
			t.Fatal(err)
		}
		if len(cases) < f.min {
			t.Errorf("%s: %d embedded cases, want at least %d", f.shared, len(cases), f.min)
		}
		for _, c := range cases {
			if !reflect.DeepEqual(byID[c["tcId"].(float64)], c) {
				t.Errorf("%s: embedded tcId %v differs from the shared file", f.shared, c["tcId"])
			}
		}
	}
}

// Independent implementations: the standard library's AES modes and
// circl's ML-KEM-512 called directly, so that the lists are checked apart
// from any scheme's layer.
var (
	refKEM = KEM{
		KeyGenDecaps: func(seed, c []byte) ([]byte, []byte, error) {
			if len(seed) != mlkem512.KeySeedSize || len(c) != mlkem512.CiphertextSize {
				return nil, nil, errors.New("wrong length")
			}
			ek, dk := mlkem512.NewKeyFromSeed(seed)
			b := make([]byte, mlkem512.PublicKeySize)
			ek.Pack(b)
			k := make([]byte, mlkem512.SharedKeySize)
			dk.DecapsulateTo(k, c)
			return b, k, nil
		},
		Encaps: func(b, m []byte) ([]byte, []byte, error) {
			var ek mlkem512.PublicKey
			if len(b) != mlkem512.PublicKeySize || len(m) != mlkem512.EncapsulationSeedSize {
				return nil, nil, errors.New("wrong length")
			}
			if err := ek.Unpack(b); err != nil {
				return nil, nil, err
			}
			c := make([]byte, mlkem512.CiphertextSize)
			k := make([]byte, mlkem512.SharedKeySize)
			ek.EncapsulateTo(c, k, m)
			return c, k, nil
		},
	}
	refCBC = CBC{
		Encrypt: func(key, iv, msg []byte) ([]byte, error) {
			b, err := aes.NewCipher(key)
			if err != nil {
				return nil, err
			}
			n := aes.BlockSize - len(msg)%aes.BlockSize
			buf := append(append([]byte{}, msg...), make([]byte, n)...)
			for i := len(msg); i < len(buf); i++ {
				buf[i] = byte(n)
			}
			cipher.NewCBCEncrypter(b, iv).CryptBlocks(buf, buf)
			return buf, nil
		},
		Decrypt: func(key, iv, ct []byte) ([]byte, error) {
			b, err := aes.NewCipher(key)
			if err != nil {
				return nil, err
			}
			if len(ct) == 0 || len(ct)%aes.BlockSize != 0 {
				return nil, errors.New("bad length")
			}
			buf := make([]byte, len(ct))
			cipher.NewCBCDecrypter(b, iv).CryptBlocks(buf, ct)
			n := int(buf[len(buf)-1])
			if n == 0 || n > aes.BlockSize {
				return nil, errors.New("bad padding")
			}
			for _, p := range buf[len(buf)-n:] {
				if int(p) != n {
					return nil, errors.New("bad padding")
				}
			}
			return buf[:len(buf)-n], nil
		},
	}
	refGCM = GCM(func(key []byte) cipher.AEAD {
		b, err := aes.NewCipher(key)
		if err != nil {
			panic(err)
		}
		g, err := cipher.NewGCM(b)
		if err != nil {
			panic(err)
		}
		return g
	})
)

func TestLists(t *testing.T) {
	for _, l := range []struct {
		name  string
		tests []kat.Test
		want  int
	}{
		{"MLKEM512", MLKEM512(refKEM), 9 + 6},
		{"AESCBCPKCS5", AESCBCPKCS5(refCBC), 71},
		{"AESGCM", AESGCM(refGCM), 10},
		{"PBKDF2SHA256", PBKDF2SHA256(), 2},
	} {
		r := kat.RunAll(l.tests)
		for _, err := range r.Failures {
			t.Errorf("%s: %v", l.name, err)
		}
		if r.Passed != l.want {
			t.Errorf("%s: %d passed, want %d", l.name, r.Passed, l.want)
		}
		names := map[string]bool{}
		for _, k := range l.tests {
			if names[k.Name] {
				t.Errorf("%s: duplicate test name %q", l.name, k.Name)
			}
			names[k.Name] = true
		}
	}
}

// TestDetectCorruption checks that the checkers fail on wrong expected
// values, so that a passing list means something.
func TestDetectCorruption(t *testing.T) {
	if CheckPBKDF2(PBKDF2Case{P: "passwd", S: "salt", C: 1, DKLen: 4, DK: "55ac046f"}) == nil {
		t.Error("corrupted PBKDF2 vector passed")
	}
	var f struct {
		Decaps []MLKEMCase `json:"decaps"`
		Encaps []MLKEMCase `json:"encaps"`
	}
	if err := json.Unmarshal(mlkemVectors, &f); err != nil {
		t.Fatal(err)
	}
	for _, tc := range append(f.Decaps, f.Encaps...) {
		if tc.Result != "valid" {
			continue
		}
		tc.K = "00" + tc.K[2:]
		if refKEM.Check(tc) == nil {
			t.Errorf("ML-KEM tcId %d with a wrong K passed", tc.TcID)
		}
		tc.Result = "invalid"
		if refKEM.Check(tc) == nil {
			t.Errorf("ML-KEM tcId %d marked invalid passed", tc.TcID)
		}
	}
	var c struct{ Tests []CBCCase }
	if err := json.Unmarshal(cbcVectors, &c); err != nil {
		t.Fatal(err)
	}
	for _, tc := range c.Tests {
		if tc.Result == "valid" {
			tc.CT = tc.CT[:len(tc.CT)-2] + "00"
		} else {
			tc.Result = "valid"
		}
		if refCBC.Check(tc) == nil {
			t.Errorf("corrupted CBC tcId %d passed", tc.TcID)
		}
	}
}
