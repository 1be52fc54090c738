package blockkat

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/kexlab/kexlab/internal/kat"
)

// KEM is the ML-KEM-512 layer of a scheme, as the vectors exercise it.
type KEM struct {
	// KeyGenDecaps runs ML-KEM.KeyGen_internal(d, z) (FIPS 203, Algorithm
	// 16) for seed = d ‖ z and decapsulates c (Algorithm 21) with the
	// result. It returns the encoded encapsulation key (nil if key
	// generation failed) and the shared key, or an error if seed or c is
	// refused.
	KeyGenDecaps func(seed, c []byte) (ek, k []byte, err error)
	// Encaps runs ML-KEM.Encaps_internal(ek, m) (FIPS 203, Algorithm 17),
	// or returns an error if ek fails the checks of FIPS 203 §7.2.
	Encaps func(ek, m []byte) (c, k []byte, err error)
}

// MLKEMCase is a Wycheproof ML-KEM-512 case. With Seed
// (mlkem_512_test.json): key generation from seed = d ‖ z (ek compared
// where given), then decapsulation of C. With M
// (mlkem_512_encaps_test.json): encapsulation to EK with randomness m.
// Invalid cases must be rejected.
type MLKEMCase struct {
	TcID    int    `json:"tcId"`
	Comment string `json:"comment"`
	Seed    string `json:"seed"`
	EK      string `json:"ek"`
	M       string `json:"m"`
	C       string `json:"c"`
	K       string `json:"K"`
	Result  string `json:"result"`
}

// Check runs tc through k.
func (k KEM) Check(tc MLKEMCase) error {
	v, err := Unhex(tc.Seed, tc.EK, tc.M, tc.C, tc.K)
	if err != nil {
		return err
	}
	seed, ekWant, m, c, kWant := v[0], v[1], v[2], v[3], v[4]
	valid := tc.Result == "valid"
	var got []byte
	if tc.Seed != "" || tc.M == "" {
		var ek []byte
		ek, got, err = k.KeyGenDecaps(seed, c)
		if ek != nil && len(ekWant) > 0 && !bytes.Equal(ek, ekWant) {
			return kat.Mismatch("ek", ek, ekWant)
		}
		if err != nil {
			return rejected(valid, err)
		}
	} else {
		var ct []byte
		if ct, got, err = k.Encaps(ekWant, m); err != nil {
			return rejected(valid, err)
		}
		if valid && !bytes.Equal(ct, c) {
			return kat.Mismatch("c", ct, c)
		}
	}
	if !valid {
		return errors.New("invalid case accepted")
	}
	if !bytes.Equal(got, kWant) {
		return kat.Mismatch("K", got, kWant)
	}
	return nil
}

// MLKEM512 returns the embedded subset of Wycheproof's ML-KEM-512 files
// (key generation from seed and decapsulation, and encapsulation), run
// through k.
func MLKEM512(k KEM) []kat.Test {
	var f struct {
		Decaps []MLKEMCase `json:"decaps"`
		Encaps []MLKEMCase `json:"encaps"`
	}
	if bad := Decode("blockkat: testdata/mlkem512_wycheproof.json", mlkemVectors, &f); bad != nil {
		return bad
	}
	var tests []kat.Test
	for _, tc := range f.Decaps {
		tests = append(tests, kat.Test{Name: fmt.Sprintf("Wycheproof ML-KEM-512 keygen+decaps tcId %d", tc.TcID), Run: func() error { return k.Check(tc) }})
	}
	for _, tc := range f.Encaps {
		tests = append(tests, kat.Test{Name: fmt.Sprintf("Wycheproof ML-KEM-512 encaps tcId %d", tc.TcID), Run: func() error { return k.Check(tc) }})
	}
	return tests
}
