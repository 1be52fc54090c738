package regress

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

// TestRandom checks the counter-mode construction block by block.
func TestRandom(t *testing.T) {
	got := Random("label", 40)
	b0 := sha256.Sum256([]byte("kexlab regression label\x00\x00\x00\x00"))
	b1 := sha256.Sum256([]byte("kexlab regression label\x00\x00\x00\x01"))
	if want := append(b0[:], b1[:8]...); !bytes.Equal(got, want) {
		t.Errorf("Random = %x, want %x", got, want)
	}
	if len(Random("label", 0)) != 0 {
		t.Error("Random(_, 0) is not empty")
	}
}
