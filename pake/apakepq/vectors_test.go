package apakepq

import (
	"testing"

	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/internal/testvec"
)

type wycheproof[G any] struct {
	TestGroups []G `json:"testGroups"`
}

// TestWycheproofMLKEM runs every case of both Wycheproof ML-KEM-512 files
// through the circl calls apakepq makes.
func TestWycheproofMLKEM(t *testing.T) {
	for file, want := range map[string]int{
		"wycheproof/mlkem_512_test.json":        193,
		"wycheproof/mlkem_512_encaps_test.json": 261,
	} {
		var f wycheproof[struct {
			Tests []mlkemCase `json:"tests"`
		}]
		testvec.JSON(t, file, &f)
		n := 0
		for _, g := range f.TestGroups {
			for _, tc := range g.Tests {
				n++
				if err := checkMLKEM(tc); err != nil {
					t.Errorf("%s tcId %d (%s, %s): %v", file, tc.TcID, tc.Comment, tc.Result, err)
				}
			}
		}
		if n != want {
			t.Errorf("%s: ran %d cases, want %d", file, n, want)
		}
	}
}

// TestWycheproofGCM runs every AES-GCM case with the parameters apakepq's
// AE uses (96-bit nonce, 128-bit tag), for all key sizes; cases with other
// nonce or tag sizes do not apply.
func TestWycheproofGCM(t *testing.T) {
	var f wycheproof[struct {
		IVSize  int       `json:"ivSize"`
		TagSize int       `json:"tagSize"`
		KeySize int       `json:"keySize"`
		Tests   []gcmCase `json:"tests"`
	}]
	testvec.JSON(t, "wycheproof/aes_gcm_test.json", &f)
	n, n256 := 0, 0
	for _, g := range f.TestGroups {
		if g.IVSize != 8*nonceSize || g.TagSize != 8*tagSize {
			continue
		}
		for _, tc := range g.Tests {
			n++
			if g.KeySize == 256 {
				n256++
			}
			if err := checkGCM(tc); err != nil {
				t.Errorf("tcId %d (%s %v, %s): %v", tc.TcID, tc.Comment, tc.Flags, tc.Result, err)
			}
		}
	}
	if n < 150 || n256 < 50 {
		t.Errorf("only %d applicable cases (%d with 256-bit keys)", n, n256)
	}
}

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
	if r.Passed < 7+10+2+2 {
		t.Errorf("only %d known-answer tests passed", r.Passed)
	}
}

func TestKATsDetectCorruption(t *testing.T) {
	if checkPBKDF2(pbkdf2Case{P: "passwd", S: "salt", C: 1, DKLen: 2, DK: "55ad"}) == nil {
		t.Error("corrupted PBKDF2 vector passed")
	}
	r := regressionInputs()[1]
	r.Record, r.Message1, r.Message2, r.Message3, r.SessionKey = "00", "00", "00", "00", "00"
	if checkRegression(r) == nil {
		t.Error("corrupted regression transcript passed")
	}
}
