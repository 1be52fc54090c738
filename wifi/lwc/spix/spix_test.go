package spix

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/kexlab/kexlab/internal/genkat"
	"github.com/kexlab/kexlab/wifi/lwc/internal/aeadtest"
)

// TestSizes checks the constants against the Spix specification §2.2:
// 256-bit state, 64-bit rate, 128-bit key, nonce and tag.
func TestSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, bits int
	}{
		{"state", StateSize, 256},
		{"rate", Rate, 64},
		{"key", KeySize, 128},
		{"nonce", NonceSize, 128},
		{"tag", TagSize, 128},
	} {
		if c.got*8 != c.bits {
			t.Errorf("%s: %d bits, want %d", c.name, c.got*8, c.bits)
		}
	}
	a, err := New(make([]byte, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	if a.NonceSize() != NonceSize || a.Overhead() != TagSize {
		t.Errorf("NonceSize %d Overhead %d", a.NonceSize(), a.Overhead())
	}
}

// TestPermute checks the 18-step sLiSCP-light-256 on the all-zero state
// against the test vector of the SpoC submission (the same permutation; the
// value is transcribed in testdata/sliscp256.txt with its source).
func TestPermute(t *testing.T) {
	want := readHexFile(t, "testdata/sliscp256.txt")
	var s [StateSize]byte
	Permute(&s)
	if !bytes.Equal(s[:], want) {
		t.Errorf("Permute(0) = %x, want %x", s, want)
	}
}

func readHexFile(t *testing.T, name string) []byte {
	t.Helper()
	recs, err := genkat.Parse(mustRead(t, name))
	if err != nil || len(recs) != 1 {
		t.Fatalf("%s: %v (%d records)", name, err, len(recs))
	}
	out, ok := recs[0].Get("Out")
	if !ok {
		t.Fatalf("%s: no Out field", name)
	}
	return out
}

// TestAliasing checks the cipher.AEAD storage rules: in-place Seal/Open
// (dst = input[:0]), appending to a non-empty dst, and an inexactly
// overlapping dst (not allowed by the contract; handled on a copy).
func TestAliasing(t *testing.T) {
	kats := aeadtest.ReadKATs(t, "lwc/SPIX.txt", 1089)
	k := kats[len(kats)-1] // 32-byte PT, 32-byte AD
	a, _ := New(k.Key)

	buf := make([]byte, len(k.PT), len(k.CT))
	copy(buf, k.PT)
	ct := a.Seal(buf[:0], k.Nonce, buf, k.AD)
	if !bytes.Equal(ct, k.CT) {
		t.Fatalf("in-place Seal = %x", ct)
	}
	pt, err := a.Open(ct[:0], k.Nonce, ct, k.AD)
	if err != nil || !bytes.Equal(pt, k.PT) {
		t.Fatalf("in-place Open = %x, %v", pt, err)
	}

	prefix := []byte("prefix")
	ct = a.Seal(bytes.Clone(prefix), k.Nonce, k.PT, k.AD)
	if !bytes.Equal(ct, append(bytes.Clone(prefix), k.CT...)) {
		t.Fatalf("append Seal = %x", ct)
	}
	pt, err = a.Open(bytes.Clone(prefix), k.Nonce, ct[len(prefix):], k.AD)
	if err != nil || !bytes.Equal(pt, append(bytes.Clone(prefix), k.PT...)) {
		t.Fatalf("append Open = %x, %v", pt, err)
	}

	for _, shift := range []int{1, 3, 9} {
		big := make([]byte, len(k.CT)+shift)
		copy(big[shift:], k.PT)
		ct = a.Seal(big[:0], k.Nonce, big[shift:shift+len(k.PT)], k.AD)
		if !bytes.Equal(ct, k.CT) {
			t.Errorf("overlapping Seal (shift %d) = %x", shift, ct)
		}
		copy(big, k.PT)
		ct = a.Seal(big[shift:shift], k.Nonce, big[:len(k.PT)], k.AD)
		if !bytes.Equal(ct, k.CT) {
			t.Errorf("overlapping Seal (shift -%d) = %x", shift, ct)
		}
		big = make([]byte, len(k.CT)+shift)
		copy(big[shift:], k.CT)
		pt, err = a.Open(big[:0], k.Nonce, big[shift:], k.AD)
		if err != nil || !bytes.Equal(pt, k.PT) {
			t.Errorf("overlapping Open (shift %d) = %x, %v", shift, pt, err)
		}
	}
}

func BenchmarkPermute(b *testing.B) {
	var s [StateSize]byte
	b.SetBytes(StateSize)
	for b.Loop() {
		Permute(&s)
	}
}

// BenchmarkUnavoidable measures the permutation calls that Seal of an
// n-byte plaintext (no associated data) cannot avoid: five full 18-step
// permutations (three at initialization, two at finalization) and
// n/8+1 nine-step ones (each plaintext block plus the padded last one).
// The Seal/Unavoidable ratio at each size is the mode's overhead.
func BenchmarkUnavoidable(b *testing.B) {
	for _, n := range aeadtest.Sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var s state
			b.SetBytes(int64(n))
			for b.Loop() {
				for range 5 {
					s.permute(fullSteps)
				}
				for range n/Rate + 1 {
					s.permute(reducedSteps)
				}
			}
		})
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
