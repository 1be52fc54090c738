package ascon

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/genkat"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
)

// TestSizes checks the constants against SP 800-232: a 320-bit state
// (§3.1), Ascon-AEAD128 with 128-bit key, nonce and tag and a 128-bit rate
// (§4), the hash functions with a 64-bit rate and Ascon-Hash256 with a
// 256-bit digest (§5).
func TestSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, bits int
	}{
		{"StateSize", StateSize, 320},
		{"Rate", Rate, 128},
		{"KeySize", KeySize, 128},
		{"NonceSize", NonceSize, 128},
		{"TagSize", TagSize, 128},
		{"HashRate", HashRate, 64},
		{"Size", Size, 256},
		{"MaxCustomizationSize", MaxCustomizationSize, 2048},
	} {
		if c.got*8 != c.bits {
			t.Errorf("%s = %d bytes, want %d bits", c.name, c.got, c.bits)
		}
	}
	a, err := New(make([]byte, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	if a.NonceSize() != NonceSize || a.Overhead() != TagSize {
		t.Errorf("NonceSize, Overhead = %d, %d", a.NonceSize(), a.Overhead())
	}
}

func aeadKATs(t *testing.T) []genkat.Record {
	t.Helper()
	recs, err := genkat.Parse(testvec.Read(t, "ascon/asconaead128-LWC_AEAD_KAT_128_128.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1089 {
		t.Fatalf("%d AEAD records, want 1089", len(recs))
	}
	return recs
}

func fields(t *testing.T, r genkat.Record, names ...string) [][]byte {
	t.Helper()
	out := make([][]byte, len(names))
	for i, n := range names {
		v, ok := r.Get(n)
		if !ok {
			t.Fatalf("record %d: no field %s", r.Count, n)
		}
		out[i] = v
	}
	return out
}

// openFails checks that Open rejects ct with ErrOpen and leaves no
// plaintext in dst's spare capacity.
func openFails(t *testing.T, what string, key, nonce, ct, ad []byte) {
	t.Helper()
	a, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	dst := bytes.Repeat([]byte{0xaa}, len(ct)+8)[:0]
	got, err := a.Open(dst, nonce, ct, ad)
	if !errors.Is(err, ErrOpen) || got != nil {
		t.Errorf("%s: Open = %x, %v; want nil, ErrOpen", what, got, err)
	}
	for i, b := range dst[:len(ct)-TagSize] {
		if b != 0 {
			t.Fatalf("%s: byte %d of dst is %#x after a failed Open, want 0", what, i, b)
		}
	}
}

func TestAEADKAT(t *testing.T) {
	for _, r := range aeadKATs(t) {
		f := fields(t, r, "Key", "Nonce", "PT", "AD", "CT")
		key, nonce, pt, ad, ct := f[0], f[1], f[2], f[3], f[4]
		a, err := New(key)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Seal(nil, nonce, pt, ad); !bytes.Equal(got, ct) {
			t.Fatalf("Count %d: Seal = %x, want %x", r.Count, got, ct)
		}
		got, err := a.Open(nil, nonce, ct, ad)
		if err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("Count %d: Open = %x, %v; want %x", r.Count, got, err, pt)
		}

		// One flipped bit of the tag, of the ciphertext body and of the
		// associated data each make Open fail.
		bad := bytes.Clone(ct)
		bad[len(bad)-1-r.Count%TagSize] ^= 1 << (r.Count % 8)
		openFails(t, "flipped tag bit", key, nonce, bad, ad)
		if len(pt) > 0 {
			bad := bytes.Clone(ct)
			bad[r.Count%len(pt)] ^= 0x80 >> (r.Count % 8)
			openFails(t, "flipped ciphertext bit", key, nonce, bad, ad)
		}
		if len(ad) > 0 {
			badAD := bytes.Clone(ad)
			badAD[r.Count%len(ad)] ^= 1 << (r.Count % 8)
			openFails(t, "flipped AD bit", key, nonce, ct, badAD)
		}
	}
}

// TestAEADInPlace seals and opens in place (dst = input[:0]) and appends to
// a non-empty dst.
func TestAEADInPlace(t *testing.T) {
	for _, r := range aeadKATs(t)[:300] {
		f := fields(t, r, "Key", "Nonce", "PT", "AD", "CT")
		key, nonce, pt, ad, ct := f[0], f[1], f[2], f[3], f[4]
		a, _ := New(key)
		buf := make([]byte, len(pt), len(pt)+TagSize)
		copy(buf, pt)
		if got := a.Seal(buf[:0], nonce, buf, ad); !bytes.Equal(got, ct) {
			t.Fatalf("Count %d: in-place Seal = %x, want %x", r.Count, got, ct)
		}
		buf = bytes.Clone(ct)
		if got, err := a.Open(buf[:0], nonce, buf, ad); err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("Count %d: in-place Open = %x, %v", r.Count, got, err)
		}
		prefix := []byte("prefix")
		if got := a.Seal(bytes.Clone(prefix), nonce, pt, ad); !bytes.Equal(got, append(bytes.Clone(prefix), ct...)) {
			t.Fatalf("Count %d: Seal does not append", r.Count)
		}
		if got, err := a.Open(bytes.Clone(prefix), nonce, ct, ad); err != nil || !bytes.Equal(got, append(bytes.Clone(prefix), pt...)) {
			t.Fatalf("Count %d: Open does not append", r.Count)
		}
	}
}

func TestAEADErrors(t *testing.T) {
	for _, n := range []int{0, 15, 17, 32} {
		if _, err := New(make([]byte, n)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("New with a %d-byte key: err = %v, want ErrInvalidParameter", n, err)
		}
	}
	a, _ := New(make([]byte, KeySize))
	nonce := make([]byte, NonceSize)
	for n := range TagSize {
		if got, err := a.Open(nil, nonce, make([]byte, n), nil); got != nil || !errors.Is(err, ErrOpen) {
			t.Errorf("Open of %d bytes = %x, %v; want ErrOpen", n, got, err)
		}
	}
	for _, n := range []int{0, 12, 15, 17} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Seal with a %d-byte nonce did not panic", n)
				}
			}()
			a.Seal(nil, make([]byte, n), nil, nil)
		}()
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Open with a %d-byte nonce did not panic", n)
				}
			}()
			a.Open(nil, make([]byte, n), make([]byte, TagSize), nil)
		}()
	}
}

// TestWycheproof runs every test of the Wycheproof Ascon-AEAD128 file:
// valid tests must seal to ct ∥ tag and open; invalid ones must not open.
func TestWycheproof(t *testing.T) {
	var file struct {
		Algorithm  string
		TestGroups []struct {
			KeySize, IvSize, TagSize int
			Tests                    []struct {
				TcID                       int
				Comment                    string
				Key, Iv, Aad, Msg, Ct, Tag string
				Result                     string
			}
		}
	}
	testvec.JSON(t, "wycheproof/ascon_sp800_232_aead128_test.json", &file)
	if file.Algorithm != "ASCON-AEAD128" {
		t.Fatalf("algorithm %q", file.Algorithm)
	}
	h := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	valid, invalid := 0, 0
	for _, g := range file.TestGroups {
		for _, tc := range g.Tests {
			key, nonce, ad, msg := h(tc.Key), h(tc.Iv), h(tc.Aad), h(tc.Msg)
			ct := append(h(tc.Ct), h(tc.Tag)...)
			if len(key) != KeySize || len(nonce) != NonceSize || len(tc.Tag) != 2*TagSize {
				// Sizes this package does not offer can only be invalid.
				if tc.Result != "invalid" {
					t.Errorf("tcId %d (%s): valid test with unsupported sizes", tc.TcID, tc.Comment)
				}
				invalid++
				continue
			}
			a, err := New(key)
			if err != nil {
				t.Fatal(err)
			}
			switch tc.Result {
			case "valid":
				if got := a.Seal(nil, nonce, msg, ad); !bytes.Equal(got, ct) {
					t.Errorf("tcId %d (%s): Seal = %x, want %x", tc.TcID, tc.Comment, got, ct)
				}
				if got, err := a.Open(nil, nonce, ct, ad); err != nil || !bytes.Equal(got, msg) {
					t.Errorf("tcId %d (%s): Open = %x, %v", tc.TcID, tc.Comment, got, err)
				}
				valid++
			case "invalid":
				if got, err := a.Open(nil, nonce, ct, ad); !errors.Is(err, ErrOpen) || got != nil {
					t.Errorf("tcId %d (%s): Open of an invalid test = %x, %v", tc.TcID, tc.Comment, got, err)
				}
				invalid++
			default:
				t.Errorf("tcId %d: result %q", tc.TcID, tc.Result)
			}
		}
	}
	if valid+invalid != 252 {
		t.Errorf("ran %d valid + %d invalid tests, want 252 in all", valid, invalid)
	}
}
