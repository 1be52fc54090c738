// Package aeadtest holds the tests every lightweight AEAD of wifi/lwc must
// pass, written once: the NIST genkat known answers (Seal, Open, in place,
// after a prefix, and rejection of any tampering without releasing
// plaintext), the error cases of the cipher.AEAD contract, two fuzz bodies
// and the Seal/Open benchmarks. Each cipher package calls them from its own
// tests with a [Cipher].
package aeadtest

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"strconv"
	"testing"

	"github.com/kexlab/kexlab/internal/genkat"
	"github.com/kexlab/kexlab/internal/testvec"
)

// Cipher describes the AEAD under test.
type Cipher struct {
	New                         func(key []byte) (cipher.AEAD, error)
	ErrOpen                     error // what Open returns for a bad tag
	KeySize, NonceSize, TagSize int
}

// KAT is one genkat AEAD record.
type KAT struct {
	Count                  int
	Key, Nonce, PT, AD, CT []byte
}

// ReadKATs reads the AEAD records of file (under ../shared/vectors) and
// checks that there are want of them.
func ReadKATs(t testing.TB, file string, want int) []KAT {
	t.Helper()
	recs, err := genkat.Parse(testvec.Read(t, file))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != want {
		t.Fatalf("%s: %d records, want %d", file, len(recs), want)
	}
	out := make([]KAT, 0, len(recs))
	for _, r := range recs {
		v := KAT{Count: r.Count}
		for _, f := range []struct {
			name string
			dst  *[]byte
		}{{"Key", &v.Key}, {"Nonce", &v.Nonce}, {"PT", &v.PT}, {"AD", &v.AD}, {"CT", &v.CT}} {
			b, ok := r.Get(f.name)
			if !ok {
				t.Fatalf("%s record %d: no %s", file, r.Count, f.name)
			}
			*f.dst = b
		}
		out = append(out, v)
	}
	return out
}

// TestKATs runs every record of file: Seal gives CT and Open gives PT back
// (after a prefix in dst and in place, as cipher.AEAD documents), and one
// flipped bit of the tag, of the ciphertext or of the associated data makes
// Open fail with c.ErrOpen, returning nil and leaving zeros where the
// plaintext would have gone.
func TestKATs(t *testing.T, c Cipher, file string, want int) {
	for _, v := range ReadKATs(t, file, want) {
		a, err := c.New(v.Key)
		if err != nil {
			t.Fatal(err)
		}
		prefix := []byte("prefix")
		ct := a.Seal(bytes.Clone(prefix), v.Nonce, v.PT, v.AD)
		if !bytes.Equal(ct[:len(prefix)], prefix) || !bytes.Equal(ct[len(prefix):], v.CT) {
			t.Fatalf("record %d: Seal = %X, want %X", v.Count, ct[len(prefix):], v.CT)
		}
		pt, err := a.Open(bytes.Clone(prefix), v.Nonce, v.CT, v.AD)
		if err != nil || !bytes.Equal(pt[:len(prefix)], prefix) || !bytes.Equal(pt[len(prefix):], v.PT) {
			t.Fatalf("record %d: Open = %X, %v; want %X", v.Count, pt, err, v.PT)
		}
		buf := make([]byte, len(v.CT))
		copy(buf, v.PT)
		if ct := a.Seal(buf[:0], v.Nonce, buf[:len(v.PT)], v.AD); !bytes.Equal(ct, v.CT) {
			t.Fatalf("record %d: in-place Seal = %X, want %X", v.Count, ct, v.CT)
		}
		if pt, err := a.Open(buf[:0], v.Nonce, buf, v.AD); err != nil || !bytes.Equal(pt, v.PT) {
			t.Fatalf("record %d: in-place Open = %X, %v; want %X", v.Count, pt, err, v.PT)
		}

		bad := bytes.Clone(v.CT)
		bad[len(bad)-1-v.Count%c.TagSize] ^= 1 << (v.Count % 8)
		openFails(t, a, c, v, "tag", bad, v.AD)
		if len(v.PT) > 0 {
			bad := bytes.Clone(v.CT)
			bad[v.Count%len(v.PT)] ^= 0x80 >> (v.Count % 8)
			openFails(t, a, c, v, "ciphertext", bad, v.AD)
		}
		if len(v.AD) > 0 {
			bad := bytes.Clone(v.AD)
			bad[v.Count%len(v.AD)] ^= 1 << (v.Count % 8)
			openFails(t, a, c, v, "associated data", v.CT, bad)
		}
	}
}

// openFails checks that Open rejects ct with c.ErrOpen, returns nil and
// leaves zeros, not plaintext, in dst's spare capacity (filled with 0xaa
// before the call).
func openFails(t *testing.T, a cipher.AEAD, c Cipher, v KAT, what string, ct, ad []byte) {
	t.Helper()
	dst := bytes.Repeat([]byte{0xaa}, len(ct))[:0]
	pt, err := a.Open(dst, v.Nonce, ct, ad)
	if !errors.Is(err, c.ErrOpen) || pt != nil {
		t.Fatalf("record %d: Open with a flipped %s bit = %X, %v; want ErrOpen", v.Count, what, pt, err)
	}
	if n := len(ct) - c.TagSize; !bytes.Equal(dst[:n], make([]byte, n)) {
		t.Fatalf("record %d: Open with a flipped %s bit left %X in dst", v.Count, what, dst[:n])
	}
}

// TestErrors checks the error cases: New refuses keys of other lengths,
// Open refuses ciphertexts shorter than the tag, and Seal and Open panic on
// a nonce of the wrong length (the cipher.AEAD contract).
func TestErrors(t *testing.T, c Cipher) {
	for _, n := range []int{0, c.KeySize - 1, c.KeySize + 1, 2 * c.KeySize} {
		if a, err := c.New(make([]byte, n)); err == nil || a != nil {
			t.Errorf("New with a %d-byte key: %v, %v; want an error", n, a, err)
		}
	}
	a, err := c.New(make([]byte, c.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	if a.NonceSize() != c.NonceSize || a.Overhead() != c.TagSize {
		t.Errorf("NonceSize() = %d, Overhead() = %d", a.NonceSize(), a.Overhead())
	}
	nonce := make([]byte, c.NonceSize)
	for n := range c.TagSize {
		if pt, err := a.Open(nil, nonce, make([]byte, n), nil); !errors.Is(err, c.ErrOpen) || pt != nil {
			t.Errorf("Open of %d bytes: %X, %v; want ErrOpen", n, pt, err)
		}
	}
	panics := func(what string, f func()) {
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	for _, n := range []int{0, 12, c.NonceSize - 1, c.NonceSize + 1} {
		panics("Seal with a "+strconv.Itoa(n)+"-byte nonce", func() { a.Seal(nil, make([]byte, n), nil, nil) })
		panics("Open with a "+strconv.Itoa(n)+"-byte nonce", func() { a.Open(nil, make([]byte, n), make([]byte, c.TagSize), nil) })
	}
}

// capLen truncates fuzz inputs to 1 KiB so each iteration stays within
// microseconds; longer inputs exercise no further code paths.
func capLen(b []byte) []byte { return b[:min(len(b), 1024)] }

// fit pads or cuts b to n bytes.
func fit(b []byte, n int) []byte { return append(bytes.Clone(b), make([]byte, n)...)[:n] }

// FuzzOpen feeds arbitrary keys, nonces, ciphertexts and associated data
// to New and Open: they never panic, and Open either fails with ErrOpen or
// returns a plaintext that Seal maps back to the same ciphertext.
func FuzzOpen(f *testing.F, c Cipher) {
	f.Add(make([]byte, c.KeySize), make([]byte, c.NonceSize), make([]byte, c.TagSize+5), []byte("ad"))
	f.Add([]byte("short"), []byte("n"), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, key, nonce, ct, ad []byte) {
		ct, ad = capLen(ct), capLen(ad)
		a, err := c.New(key)
		if err != nil {
			if len(key) == c.KeySize {
				t.Fatalf("New rejected a %d-byte key: %v", len(key), err)
			}
			return
		}
		nonce = fit(nonce, c.NonceSize) // a wrong length panics by the contract
		pt, err := a.Open(nil, nonce, ct, ad)
		if err != nil {
			if !errors.Is(err, c.ErrOpen) || pt != nil {
				t.Fatalf("Open = %x, %v", pt, err)
			}
			return
		}
		if got := a.Seal(nil, nonce, pt, ad); !bytes.Equal(got, ct) {
			t.Fatalf("Seal(Open(ct)) = %x, want %x", got, ct)
		}
	})
}

// FuzzSealOpen checks that Open inverts Seal for arbitrary inputs, also in
// place, and that a ciphertext with any one bit flipped is rejected.
func FuzzSealOpen(f *testing.F, c Cipher) {
	f.Add(make([]byte, c.KeySize), make([]byte, c.NonceSize), []byte("hello"), []byte("ad"), uint16(3))
	f.Fuzz(func(t *testing.T, key, nonce, pt, ad []byte, flip uint16) {
		pt, ad = capLen(pt), capLen(ad)
		a, err := c.New(fit(key, c.KeySize))
		if err != nil {
			t.Fatal(err)
		}
		nonce = fit(nonce, c.NonceSize)
		ct := a.Seal(nil, nonce, pt, ad)
		if len(ct) != len(pt)+c.TagSize {
			t.Fatalf("len(Seal) = %d, want %d", len(ct), len(pt)+c.TagSize)
		}
		if got, err := a.Open(nil, nonce, ct, ad); err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("Open(Seal(pt)) = %x, %v; want %x", got, err, pt)
		}
		buf := append(bytes.Clone(pt), make([]byte, c.TagSize)...)
		if in := a.Seal(buf[:0], nonce, buf[:len(pt)], ad); !bytes.Equal(in, ct) {
			t.Fatalf("in-place Seal = %x, want %x", in, ct)
		}
		if in, err := a.Open(buf[:0], nonce, buf, ad); err != nil || !bytes.Equal(in, pt) {
			t.Fatalf("in-place Open = %x, %v; want %x", in, err, pt)
		}
		bit := int(flip) % (8 * len(ct))
		ct[bit/8] ^= 1 << (bit % 8)
		if got, err := a.Open(nil, nonce, ct, ad); !errors.Is(err, c.ErrOpen) || got != nil {
			t.Fatalf("Open with bit %d flipped = %x, %v; want ErrOpen", bit, got, err)
		}
	})
}

// Sizes are the message lengths of the benchmarks.
var Sizes = []int{16, 64, 1024, 8192}

// BenchmarkSeal seals messages of each of Sizes (no associated data).
func BenchmarkSeal(b *testing.B, c Cipher) {
	a, err := c.New(make([]byte, c.KeySize))
	if err != nil {
		b.Fatal(err)
	}
	nonce := make([]byte, c.NonceSize)
	for _, n := range Sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			pt := make([]byte, n)
			out := make([]byte, 0, n+c.TagSize)
			b.SetBytes(int64(n))
			for b.Loop() {
				out = a.Seal(out[:0], nonce, pt, nil)
			}
		})
	}
}

// BenchmarkOpen opens ciphertexts of each of Sizes.
func BenchmarkOpen(b *testing.B, c Cipher) {
	a, err := c.New(make([]byte, c.KeySize))
	if err != nil {
		b.Fatal(err)
	}
	nonce := make([]byte, c.NonceSize)
	for _, n := range Sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ct := a.Seal(nil, nonce, make([]byte, n), nil)
			out := make([]byte, 0, n)
			b.SetBytes(int64(n))
			for b.Loop() {
				var err error
				if out, err = a.Open(out[:0], nonce, ct, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
