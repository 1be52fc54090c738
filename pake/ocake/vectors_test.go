package ocake

import (
	"fmt"
	"testing"

	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/internal/testvec"
)

// wycheproof is the common layout of the Wycheproof files used here.
type wycheproof[T any] struct {
	Algorithm  string `json:"algorithm"`
	TestGroups []struct {
		ParameterSet string `json:"parameterSet"`
		KeySize      int    `json:"keySize"`
		Tests        []T    `json:"tests"`
	} `json:"testGroups"`
}

// TestWycheproofMLKEMDecaps runs every case of mlkem_512_test.json: key
// generation from the seed (ek compared where given) and decapsulation,
// including implicit rejection; keys and ciphertexts of the wrong length
// must be rejected.
func TestWycheproofMLKEMDecaps(t *testing.T) {
	var f wycheproof[mlkemCase]
	testvec.JSON(t, "wycheproof/mlkem_512_test.json", &f)
	n := 0
	for _, g := range f.TestGroups {
		if g.ParameterSet != "ML-KEM-512" {
			t.Fatalf("unexpected parameter set %q", g.ParameterSet)
		}
		for _, tc := range g.Tests {
			n++
			if err := checkMLKEM(tc); err != nil {
				t.Errorf("tcId %d (%s, %s): %v", tc.TcID, tc.Comment, tc.Result, err)
			}
		}
	}
	if n != 193 {
		t.Errorf("ran %d cases, the file has 193", n)
	}
}

// TestWycheproofMLKEMEncaps runs every case of mlkem_512_encaps_test.json:
// deterministic encapsulation with the given m, and the FIPS 203 §7.2
// checks that reject unreduced or mis-sized keys.
func TestWycheproofMLKEMEncaps(t *testing.T) {
	var f wycheproof[mlkemCase]
	testvec.JSON(t, "wycheproof/mlkem_512_encaps_test.json", &f)
	n := 0
	for _, g := range f.TestGroups {
		for _, tc := range g.Tests {
			n++
			if err := checkMLKEM(tc); err != nil {
				t.Errorf("tcId %d (%s, %s): %v", tc.TcID, tc.Comment, tc.Result, err)
			}
		}
	}
	if n != 261 {
		t.Errorf("ran %d cases, the file has 261", n)
	}
}

// TestWycheproofCBC runs every case of aes_cbc_pkcs5_test.json (all key
// sizes) through cbcEncrypt, cbcDecryptRaw and the constant-time
// pkcs7Unpad.
func TestWycheproofCBC(t *testing.T) {
	var f wycheproof[cbcCase]
	testvec.JSON(t, "wycheproof/aes_cbc_pkcs5_test.json", &f)
	n := 0
	for _, g := range f.TestGroups {
		for _, tc := range g.Tests {
			n++
			if err := checkCBC(tc); err != nil {
				t.Errorf("tcId %d (%s, %s): %v", tc.TcID, tc.Comment, tc.Result, err)
			}
		}
	}
	if n != 216 {
		t.Errorf("ran %d cases, the file has 216", n)
	}
}

func TestKnownAnswerTests(t *testing.T) {
	tests := KnownAnswerTests()
	names := map[string]bool{}
	for _, k := range tests {
		if names[k.Name] {
			t.Errorf("duplicate test name %q", k.Name)
		}
		names[k.Name] = true
	}
	r := kat.RunAll(tests)
	for _, err := range r.Failures {
		t.Error(err)
	}
	// 14 ML-KEM + 14 CBC + 2 PBKDF2 + the regression cases.
	if r.Passed < 30+2 {
		t.Errorf("only %d known-answer tests passed", r.Passed)
	}
}

// TestKATsDetectCorruption checks that the checkers fail on a wrong
// expected value (so that a passing KAT means something).
func TestKATsDetectCorruption(t *testing.T) {
	tc := pbkdf2Case{P: "passwd", S: "salt", C: 1, DKLen: 4, DK: "55ac046f"}
	if checkPBKDF2(tc) == nil {
		t.Error("corrupted PBKDF2 vector passed")
	}
	var rg regressionFile
	if err := jsonUnmarshal(regressionVectors, &rg); err != nil || len(rg.Cases) == 0 {
		t.Fatalf("regression file: %v (%d cases)", err, len(rg.Cases))
	}
	r := rg.Cases[0]
	r.SessionKey = fmt.Sprintf("%02x", 0xff^mustByte(r.SessionKey)) + r.SessionKey[2:]
	if checkRegression(r) == nil {
		t.Error("corrupted regression transcript passed")
	}
}
