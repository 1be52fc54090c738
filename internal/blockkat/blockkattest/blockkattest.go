// Package blockkattest runs every case of the full Wycheproof files in
// ../shared/vectors (read through internal/testvec) through a scheme's
// layer for a building block, from that scheme's tests. The embedded
// subsets that the kexlab binary runs are in package blockkat.
package blockkattest

import (
	"testing"

	"github.com/kexlab/kexlab/internal/blockkat"
	"github.com/kexlab/kexlab/internal/testvec"
)

// MLKEM512 runs every case of mlkem_512_test.json (key generation from the
// seed, ek compared where given, and decapsulation, including implicit
// rejection; keys and ciphertexts of the wrong length must be rejected)
// and of mlkem_512_encaps_test.json (deterministic encapsulation with the
// given m, and the FIPS 203 §7.2 checks that reject unreduced or mis-sized
// keys) through k.
func MLKEM512(t *testing.T, k blockkat.KEM) {
	for _, file := range []struct {
		rel  string
		want int
	}{
		{"wycheproof/mlkem_512_test.json", 193},
		{"wycheproof/mlkem_512_encaps_test.json", 261},
	} {
		var f blockkat.Wycheproof[blockkat.MLKEMCase]
		testvec.JSON(t, file.rel, &f)
		n := 0
		for _, g := range f.TestGroups {
			if g.ParameterSet != "ML-KEM-512" {
				t.Fatalf("%s: unexpected parameter set %q", file.rel, g.ParameterSet)
			}
			for _, tc := range g.Tests {
				n++
				if err := k.Check(tc); err != nil {
					t.Errorf("%s tcId %d (%s, %s): %v", file.rel, tc.TcID, tc.Comment, tc.Result, err)
				}
			}
		}
		if n != file.want {
			t.Errorf("%s: ran %d cases, the file has %d", file.rel, n, file.want)
		}
	}
}

// AESCBCPKCS5 runs every case of aes_cbc_pkcs5_test.json, all key sizes,
// through c.
func AESCBCPKCS5(t *testing.T, c blockkat.CBC) {
	var f blockkat.Wycheproof[blockkat.CBCCase]
	testvec.JSON(t, "wycheproof/aes_cbc_pkcs5_test.json", &f)
	n := 0
	for _, g := range f.TestGroups {
		for _, tc := range g.Tests {
			n++
			if err := c.Check(tc); err != nil {
				t.Errorf("%d-bit key, tcId %d (%s, %s): %v", g.KeySize, tc.TcID, tc.Comment, tc.Result, err)
			}
		}
	}
	if n != 216 {
		t.Errorf("ran %d cases, the file has 216", n)
	}
}

// AESGCM runs every case of aes_gcm_test.json with a 96-bit nonce and a
// 128-bit tag, for all key sizes, through g; cases with other nonce or tag
// sizes do not apply.
func AESGCM(t *testing.T, g blockkat.GCM) {
	var f blockkat.Wycheproof[blockkat.GCMCase]
	testvec.JSON(t, "wycheproof/aes_gcm_test.json", &f)
	n, n256 := 0, 0
	for _, grp := range f.TestGroups {
		if grp.IVSize != 96 || grp.TagSize != 128 {
			continue
		}
		for _, tc := range grp.Tests {
			n++
			if grp.KeySize == 256 {
				n256++
			}
			if err := g.Check(tc); err != nil {
				t.Errorf("tcId %d (%s %v, %s): %v", tc.TcID, tc.Comment, tc.Flags, tc.Result, err)
			}
		}
	}
	if n < 150 || n256 < 50 {
		t.Errorf("only %d applicable cases (%d with 256-bit keys)", n, n256)
	}
}
