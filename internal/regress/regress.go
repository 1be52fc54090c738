// Package regress is test support for the regression transcripts of the
// schemes that have no official vectors (ocake, apakepq, oeke): the fixed
// randomness each recorded party reads, and the writing of a regenerated
// transcript file. The transcripts are kexlab's own output, recorded to
// catch changes in behaviour; they are not known answers from a
// specification.
package regress

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"os"
	"testing"
)

// Random returns n bytes of SHA-256 in counter mode over
// "kexlab regression " ‖ label: SHA-256(prefix ‖ label ‖ uint32be(i)) for
// i = 0, 1, ..., truncated to n bytes.
func Random(label string, n int) []byte {
	var out []byte
	for i := uint32(0); len(out) < n; i++ {
		var c [4]byte
		binary.BigEndian.PutUint32(c[:], i)
		h := sha256.Sum256(append([]byte("kexlab regression "+label), c[:]...))
		out = append(out, h[:]...)
	}
	return out[:n]
}

// Write replaces the file at path with v as indented JSON, for a test run
// with -update.
func Write(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("wrote " + path)
}
