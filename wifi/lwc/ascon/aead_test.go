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

// TestNewKeyError checks that a key of the wrong length is refused with
// pakeerr.ErrInvalidParameter (aeadtest.TestErrors checks the rest).
func TestNewKeyError(t *testing.T) {
	for _, n := range []int{0, 15, 17, 32} {
		if _, err := New(make([]byte, n)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("New with a %d-byte key: err = %v, want ErrInvalidParameter", n, err)
		}
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
