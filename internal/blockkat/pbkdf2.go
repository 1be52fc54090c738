package blockkat

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/internal/pbkdf2"
)

// PBKDF2Case is a PBKDF2-HMAC-SHA256 vector with ASCII password and salt.
type PBKDF2Case struct {
	P     string `json:"P"`
	S     string `json:"S"`
	C     int    `json:"c"`
	DKLen int    `json:"dkLen"`
	DK    string `json:"DK"`
}

// CheckPBKDF2 runs tc through internal/pbkdf2, the PBKDF2-HMAC-SHA256 the
// schemes' password-key derivations call.
func CheckPBKDF2(tc PBKDF2Case) error {
	want, err := hex.DecodeString(tc.DK)
	if err != nil {
		return err
	}
	if tc.C < 1 || tc.DKLen < 1 {
		return fmt.Errorf("blockkat: PBKDF2 vector with c=%d, dkLen=%d", tc.C, tc.DKLen)
	}
	got := pbkdf2.Key([]byte(tc.P), []byte(tc.S), tc.C, tc.DKLen)
	if !bytes.Equal(got, want) {
		return kat.Mismatch("DK", got, want)
	}
	return nil
}

// PBKDF2SHA256 returns the PBKDF2-HMAC-SHA256 vectors of RFC 7914, Section
// 11.
func PBKDF2SHA256() []kat.Test {
	var f struct {
		Tests []PBKDF2Case `json:"tests"`
	}
	if bad := Decode("blockkat: testdata/pbkdf2_sha256_rfc7914.json", pbkdf2Vectors, &f); bad != nil {
		return bad
	}
	var tests []kat.Test
	for i, tc := range f.Tests {
		tests = append(tests, kat.Test{Name: fmt.Sprintf("RFC 7914 §11 PBKDF2-HMAC-SHA256 #%d (c=%d)", i+1, tc.C), Run: func() error { return CheckPBKDF2(tc) }})
	}
	return tests
}
