package apakepq

import (
	"testing"

	"github.com/kexlab/kexlab/internal/blockkat/blockkattest"
	"github.com/kexlab/kexlab/internal/kat"
)

// TestWycheproofMLKEM runs every case of both Wycheproof ML-KEM-512 files
// through the circl calls apakepq makes.
func TestWycheproofMLKEM(t *testing.T) { blockkattest.MLKEM512(t, kem) }

// TestWycheproofGCM runs every AES-GCM case with the parameters apakepq's
// AE uses (96-bit nonce, 128-bit tag), for all key sizes, through newGCM.
func TestWycheproofGCM(t *testing.T) { blockkattest.AESGCM(t, newGCM) }

func TestKnownAnswerTests(t *testing.T) {
	tests := KnownAnswerTests()
	r := kat.RunAll(tests)
	for _, err := range r.Failures {
		t.Error(err)
	}
	names := map[string]bool{}
	for _, k := range tests {
		if names[k.Name] {
			t.Errorf("duplicate name %q", k.Name)
		}
		names[k.Name] = true
	}
	if r.Passed < 15+10+2+2 {
		t.Errorf("only %d known-answer tests passed", r.Passed)
	}
}

func TestKATsDetectCorruption(t *testing.T) {
	r := regressionInputs()[1]
	r.Record, r.Message1, r.Message2, r.Message3, r.SessionKey = "00", "00", "00", "00", "00"
	if checkRegression(r) == nil {
		t.Error("corrupted regression transcript passed")
	}
}
