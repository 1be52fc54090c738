package blockkat

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"fmt"

	"github.com/kexlab/kexlab/internal/kat"
)

// CBC is the AES-CBC layer of a scheme, with PKCS#7 padding (NIST SP
// 800-38A §6.2; RFC 5652 §6.3), for 16-, 24- and 32-byte keys.
type CBC struct {
	// Encrypt pads msg and encrypts it under key with the given IV.
	Encrypt func(key, iv, msg []byte) ([]byte, error)
	// Decrypt decrypts ct and removes the padding, or returns an error if
	// the padding is wrong.
	Decrypt func(key, iv, ct []byte) ([]byte, error)
}

// CBCCase is a case of Wycheproof's aes_cbc_pkcs5_test.json.
type CBCCase struct {
	TcID    int    `json:"tcId"`
	Comment string `json:"comment"`
	Key     string `json:"key"`
	IV      string `json:"iv"`
	Msg     string `json:"msg"`
	CT      string `json:"ct"`
	Result  string `json:"result"`
}

// Check runs tc through c: a valid case must encrypt to ct and decrypt
// back; an invalid one (bad padding) must fail to decrypt.
func (c CBC) Check(tc CBCCase) error {
	v, err := Unhex(tc.Key, tc.IV, tc.Msg, tc.CT)
	if err != nil {
		return err
	}
	key, iv, msg, ct := v[0], v[1], v[2], v[3]
	pt, err := c.Decrypt(key, iv, ct)
	if tc.Result != "valid" {
		if err == nil {
			return fmt.Errorf("invalid ciphertext decrypted to %x", pt)
		}
		return nil
	}
	if got, err := c.Encrypt(key, iv, msg); err != nil || !bytes.Equal(got, ct) {
		return fmt.Errorf("encrypt = %x, %v; want %x", got, err, ct)
	}
	if err != nil || !bytes.Equal(pt, msg) {
		return fmt.Errorf("decrypt = %x, %v; want %x", pt, err, msg)
	}
	return nil
}

// AESCBCPKCS5 returns the embedded subset of Wycheproof's AES-CBC-PKCS5
// file (128-bit keys, short messages and every bad-padding case), run
// through c.
func AESCBCPKCS5(c CBC) []kat.Test {
	var f struct {
		Tests []CBCCase `json:"tests"`
	}
	if bad := Decode("blockkat: testdata/aes_cbc_pkcs5_wycheproof.json", cbcVectors, &f); bad != nil {
		return bad
	}
	var tests []kat.Test
	for _, tc := range f.Tests {
		tests = append(tests, kat.Test{Name: fmt.Sprintf("Wycheproof AES-CBC-PKCS5 tcId %d", tc.TcID), Run: func() error { return c.Check(tc) }})
	}
	return tests
}

// GCM is the AES-GCM layer of a scheme: it returns the AEAD for a 16-, 24-
// or 32-byte key, with 12-byte nonces and 16-byte tags (NIST SP 800-38D).
type GCM func(key []byte) cipher.AEAD

// GCMCase is a case of Wycheproof's aes_gcm_test.json.
type GCMCase struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Key     string   `json:"key"`
	IV      string   `json:"iv"`
	AAD     string   `json:"aad"`
	Msg     string   `json:"msg"`
	CT      string   `json:"ct"`
	Tag     string   `json:"tag"`
	Result  string   `json:"result"`
}

// Check runs a 12-byte-nonce, 16-byte-tag case through g: a valid case
// must seal to ct ‖ tag and open back, an invalid one must not open.
func (g GCM) Check(tc GCMCase) error {
	v, err := Unhex(tc.Key, tc.IV, tc.AAD, tc.Msg, tc.CT, tc.Tag)
	if err != nil {
		return err
	}
	key, iv, aad, msg, ct := v[0], v[1], v[2], v[3], append(v[4], v[5]...)
	if len(iv) != 12 || len(v[5]) != 16 {
		return errors.New("not a 12-byte-nonce, 16-byte-tag case")
	}
	switch len(key) {
	case 16, 24, 32:
	default:
		return errors.New("not an AES key size")
	}
	aead := g(key)
	pt, err := aead.Open(nil, iv, ct, aad)
	if tc.Result != "valid" {
		if err == nil {
			return errors.New("invalid ciphertext opened")
		}
		return nil
	}
	if got := aead.Seal(nil, iv, msg, aad); !bytes.Equal(got, ct) {
		return kat.Mismatch("ct||tag", got, ct)
	}
	if err != nil || !bytes.Equal(pt, msg) {
		return kat.Mismatch("opened msg", pt, msg)
	}
	return nil
}

// AESGCM returns the embedded subset of Wycheproof's AES-GCM file
// (256-bit keys, 96-bit nonces, 128-bit tags), run through g.
func AESGCM(g GCM) []kat.Test {
	var f struct {
		Tests []GCMCase `json:"tests"`
	}
	if bad := Decode("blockkat: testdata/aes_gcm_wycheproof.json", gcmVectors, &f); bad != nil {
		return bad
	}
	var tests []kat.Test
	for _, tc := range f.Tests {
		tests = append(tests, kat.Test{Name: fmt.Sprintf("Wycheproof AES-GCM tcId %d", tc.TcID), Run: func() error { return g.Check(tc) }})
	}
	return tests
}
