package spix

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/kexlab/kexlab/internal/genkat"
	"github.com/kexlab/kexlab/internal/testvec"
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

type katRecord struct {
	count                  int
	key, nonce, pt, ad, ct []byte
}

func loadKATs(t testing.TB) []katRecord {
	t.Helper()
	recs, err := genkat.Parse(testvec.Read(t, "lwc/SPIX.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []katRecord
	for _, r := range recs {
		k := katRecord{count: r.Count}
		for name, p := range map[string]*[]byte{"Key": &k.key, "Nonce": &k.nonce, "PT": &k.pt, "AD": &k.ad, "CT": &k.ct} {
			v, ok := r.Get(name)
			if !ok {
				t.Fatalf("record %d: no %s", r.Count, name)
			}
			*p = v
		}
		out = append(out, k)
	}
	return out
}

func TestKAT(t *testing.T) {
	kats := loadKATs(t)
	if len(kats) != 1089 {
		t.Fatalf("%d records, want 1089", len(kats))
	}
	for _, k := range kats {
		a, err := New(k.key)
		if err != nil {
			t.Fatal(err)
		}
		ct := a.Seal(nil, k.nonce, k.pt, k.ad)
		if !bytes.Equal(ct, k.ct) {
			t.Errorf("Count %d: Seal = %x, want %x", k.count, ct, k.ct)
			continue
		}
		pt, err := a.Open(nil, k.nonce, k.ct, k.ad)
		if err != nil || !bytes.Equal(pt, k.pt) {
			t.Errorf("Count %d: Open = %x, %v", k.count, pt, err)
		}
	}
}

// TestKATTamper flips one bit of the tag, of the ciphertext body and of the
// associated data of every KAT: Open must fail with ErrOpen and leave no
// plaintext in dst's storage.
func TestKATTamper(t *testing.T) {
	for _, k := range loadKATs(t) {
		a, _ := New(k.key)
		try := func(what string, ct, ad []byte) {
			dst := make([]byte, 0, len(ct))
			got, err := a.Open(dst, k.nonce, ct, ad)
			if !errors.Is(err, ErrOpen) || got != nil {
				t.Errorf("Count %d, %s: Open = %x, %v; want ErrOpen", k.count, what, got, err)
			}
			if spare := dst[:cap(dst)]; !bytes.Equal(spare, make([]byte, len(spare))) {
				t.Errorf("Count %d, %s: plaintext left in dst: %x", k.count, what, spare)
			}
		}
		ct := bytes.Clone(k.ct)
		ct[len(ct)-1] ^= 0x01
		try("tag", ct, k.ad)
		if len(k.pt) > 0 {
			ct = bytes.Clone(k.ct)
			ct[len(k.pt)/2] ^= 0x80
			try("ciphertext", ct, k.ad)
		}
		if len(k.ad) > 0 {
			ad := bytes.Clone(k.ad)
			ad[len(ad)-1] ^= 0x10
			try("ad", k.ct, ad)
		}
	}
}

func TestNewKeySize(t *testing.T) {
	for _, n := range []int{0, 15, 17, 32} {
		if _, err := New(make([]byte, n)); err == nil {
			t.Errorf("New accepted a %d-byte key", n)
		}
	}
}

func TestOpenShort(t *testing.T) {
	a, _ := New(make([]byte, KeySize))
	for n := range TagSize {
		if _, err := a.Open(nil, make([]byte, NonceSize), make([]byte, n), nil); !errors.Is(err, ErrOpen) {
			t.Errorf("Open(%d bytes) = %v, want ErrOpen", n, err)
		}
	}
}

func TestNonceSizePanics(t *testing.T) {
	a, _ := New(make([]byte, KeySize))
	for _, f := range []func(){
		func() { a.Seal(nil, make([]byte, 12), nil, nil) },
		func() { a.Open(nil, make([]byte, 17), make([]byte, TagSize), nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("wrong nonce length did not panic")
				}
			}()
			f()
		}()
	}
}

// TestAliasing checks the cipher.AEAD storage rules: in-place Seal/Open
// (dst = input[:0]), appending to a non-empty dst, and an inexactly
// overlapping dst (not allowed by the contract; handled on a copy).
func TestAliasing(t *testing.T) {
	kats := loadKATs(t)
	k := kats[len(kats)-1] // 32-byte PT, 32-byte AD
	a, _ := New(k.key)

	buf := make([]byte, len(k.pt), len(k.ct))
	copy(buf, k.pt)
	ct := a.Seal(buf[:0], k.nonce, buf, k.ad)
	if !bytes.Equal(ct, k.ct) {
		t.Fatalf("in-place Seal = %x", ct)
	}
	pt, err := a.Open(ct[:0], k.nonce, ct, k.ad)
	if err != nil || !bytes.Equal(pt, k.pt) {
		t.Fatalf("in-place Open = %x, %v", pt, err)
	}

	prefix := []byte("prefix")
	ct = a.Seal(bytes.Clone(prefix), k.nonce, k.pt, k.ad)
	if !bytes.Equal(ct, append(bytes.Clone(prefix), k.ct...)) {
		t.Fatalf("append Seal = %x", ct)
	}
	pt, err = a.Open(bytes.Clone(prefix), k.nonce, ct[len(prefix):], k.ad)
	if err != nil || !bytes.Equal(pt, append(bytes.Clone(prefix), k.pt...)) {
		t.Fatalf("append Open = %x, %v", pt, err)
	}

	for _, shift := range []int{1, 3, 9} {
		big := make([]byte, len(k.ct)+shift)
		copy(big[shift:], k.pt)
		ct = a.Seal(big[:0], k.nonce, big[shift:shift+len(k.pt)], k.ad)
		if !bytes.Equal(ct, k.ct) {
			t.Errorf("overlapping Seal (shift %d) = %x", shift, ct)
		}
		copy(big, k.pt)
		ct = a.Seal(big[shift:shift], k.nonce, big[:len(k.pt)], k.ad)
		if !bytes.Equal(ct, k.ct) {
			t.Errorf("overlapping Seal (shift -%d) = %x", shift, ct)
		}
		big = make([]byte, len(k.ct)+shift)
		copy(big[shift:], k.ct)
		pt, err = a.Open(big[:0], k.nonce, big[shift:], k.ad)
		if err != nil || !bytes.Equal(pt, k.pt) {
			t.Errorf("overlapping Open (shift %d) = %x, %v", shift, pt, err)
		}
	}
}

func FuzzOpen(f *testing.F) {
	f.Add(make([]byte, KeySize), make([]byte, NonceSize), make([]byte, TagSize), []byte{})
	f.Add([]byte{1}, []byte{2}, []byte{3}, []byte{4})
	f.Fuzz(func(t *testing.T, key, nonce, ct, ad []byte) {
		a, err := New(key)
		if err != nil {
			if len(key) == KeySize {
				t.Fatal(err)
			}
			return
		}
		if len(nonce) != NonceSize {
			return // wrong nonce length panics by contract
		}
		pt, err := a.Open(nil, nonce, ct, ad)
		if err != nil {
			if !errors.Is(err, ErrOpen) || pt != nil {
				t.Fatalf("Open = %x, %v", pt, err)
			}
			return
		}
		if got := a.Seal(nil, nonce, pt, ad); !bytes.Equal(got, ct) {
			t.Fatalf("Seal(Open(ct)) = %x, want %x", got, ct)
		}
	})
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(make([]byte, KeySize), make([]byte, NonceSize), []byte("plaintext"), []byte("ad"))
	f.Fuzz(func(t *testing.T, key, nonce, pt, ad []byte) {
		key = append(bytes.Clone(key), make([]byte, KeySize)...)[:KeySize]
		nonce = append(bytes.Clone(nonce), make([]byte, NonceSize)...)[:NonceSize]
		a, err := New(key)
		if err != nil {
			t.Fatal(err)
		}
		ct := a.Seal(nil, nonce, pt, ad)
		if len(ct) != len(pt)+TagSize {
			t.Fatalf("len(ct) = %d", len(ct))
		}
		got, err := a.Open(nil, nonce, ct, ad)
		if err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("Open(Seal(pt)) = %x, %v", got, err)
		}
		ct[len(ct)-1] ^= 1
		if _, err := a.Open(nil, nonce, ct, ad); !errors.Is(err, ErrOpen) {
			t.Fatalf("tampered tag accepted: %v", err)
		}
	})
}

var benchSizes = []int{16, 64, 1024, 8192}

func BenchmarkPermute(b *testing.B) {
	var s [StateSize]byte
	b.SetBytes(StateSize)
	for b.Loop() {
		Permute(&s)
	}
}

func BenchmarkSeal(b *testing.B) {
	a, _ := New(make([]byte, KeySize))
	nonce := make([]byte, NonceSize)
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			pt := make([]byte, n)
			dst := make([]byte, 0, n+TagSize)
			b.SetBytes(int64(n))
			for b.Loop() {
				a.Seal(dst, nonce, pt, nil)
			}
		})
	}
}

// BenchmarkUnavoidable measures the permutation calls that Seal of an
// n-byte plaintext (no associated data) cannot avoid: five full 18-step
// permutations (three at initialization, two at finalization) and
// n/8+1 nine-step ones (each plaintext block plus the padded last one).
// The Seal/Unavoidable ratio at each size is the mode's overhead.
func BenchmarkUnavoidable(b *testing.B) {
	for _, n := range benchSizes {
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

func BenchmarkOpen(b *testing.B) {
	a, _ := New(make([]byte, KeySize))
	nonce := make([]byte, NonceSize)
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ct := a.Seal(nil, nonce, make([]byte, n), nil)
			dst := make([]byte, 0, n)
			b.SetBytes(int64(n))
			for b.Loop() {
				if _, err := a.Open(dst, nonce, ct, nil); err != nil {
					b.Fatal(err)
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
