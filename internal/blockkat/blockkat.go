// Package blockkat holds known-answer tests of the building blocks that
// schemes without official vectors rely on: ML-KEM-512 (FIPS 203), AES-CBC
// with PKCS#7 padding (NIST SP 800-38A §6.2, RFC 5652 §6.3), AES-GCM (NIST
// SP 800-38D) and PBKDF2-HMAC-SHA256 (RFC 8018 §5.2).
//
// The vectors are embedded once, here: subsets of C2SP/wycheproof's files
// (each file's "source" field names the commit; the cases are copied
// unchanged) and RFC 7914 §11, transcribed. A scheme passes its own layer
// for a primitive (a [KEM], [CBC] or [GCM]) so that the vectors run through
// the code the scheme calls, and appends the lists to its own regression
// transcripts in KnownAnswerTests.
package blockkat

import (
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/kexlab/kexlab/internal/kat"
)

//go:embed testdata/mlkem512_wycheproof.json
var mlkemVectors []byte

//go:embed testdata/aes_cbc_pkcs5_wycheproof.json
var cbcVectors []byte

//go:embed testdata/aes_gcm_wycheproof.json
var gcmVectors []byte

//go:embed testdata/pbkdf2_sha256_rfc7914.json
var pbkdf2Vectors []byte

// Wycheproof is the layout of a C2SP/wycheproof testvectors_v1 file whose
// cases decode into T.
type Wycheproof[T any] struct {
	Algorithm  string `json:"algorithm"`
	TestGroups []struct {
		ParameterSet string `json:"parameterSet"`
		KeySize      int    `json:"keySize"`
		IVSize       int    `json:"ivSize"`
		TagSize      int    `json:"tagSize"`
		Tests        []T    `json:"tests"`
	} `json:"testGroups"`
}

// Unhex decodes each of fields from hex.
func Unhex(fields ...string) ([][]byte, error) {
	out := make([][]byte, len(fields))
	for i, f := range fields {
		b, err := hex.DecodeString(f)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// Decode unmarshals the embedded JSON data into v. On failure it returns a
// single test, named after file, that reports the error, so that a broken
// file shows up in a known-answer run instead of silently giving no tests.
func Decode(file string, data []byte, v any) []kat.Test {
	if err := json.Unmarshal(data, v); err != nil {
		return []kat.Test{{Name: file, Run: func() error { return err }}}
	}
	return nil
}

// rejected is the verdict on a case whose input was refused with err.
func rejected(valid bool, err error) error {
	if valid {
		return fmt.Errorf("valid case rejected: %v", err)
	}
	return nil
}
