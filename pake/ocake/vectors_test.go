package ocake

import (
	"fmt"
	"testing"

	"github.com/kexlab/kexlab/internal/blockkat/blockkattest"
	"github.com/kexlab/kexlab/internal/kat"
)

// TestWycheproofMLKEM runs every case of both Wycheproof ML-KEM-512 files
// through this package's ML-KEM-512 layer.
func TestWycheproofMLKEM(t *testing.T) { blockkattest.MLKEM512(t, kem) }

// TestWycheproofCBC runs every case of aes_cbc_pkcs5_test.json (all key
// sizes) through cbcEncrypt, cbcDecryptRaw and the constant-time
// pkcs7Unpad.
func TestWycheproofCBC(t *testing.T) { blockkattest.AESCBCPKCS5(t, cbc) }

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
	// blockkat's 15 ML-KEM, 71 CBC and 2 PBKDF2 cases + the regression cases.
	if r.Passed < 15+71+2+2 {
		t.Errorf("only %d known-answer tests passed", r.Passed)
	}
}

// TestKATsDetectCorruption checks that the regression checker fails on a
// wrong expected value (so that a passing KAT means something; blockkat
// tests its own checkers).
func TestKATsDetectCorruption(t *testing.T) {
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
