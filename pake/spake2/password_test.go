package spake2

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"io"
	"math/big"
	"testing"

	"golang.org/x/crypto/hkdf"
	"golang.org/x/crypto/scrypt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// cheapMHF stands for a real MHF in tests: SHA-512(salt || password).
func cheapMHF(password, salt []byte) ([]byte, error) {
	h := sha512.New()
	h.Write(salt)
	h.Write(password)
	return h.Sum(nil), nil
}

// reduceOracle returns b mod p with math/big, as 32 bytes.
func reduceOracle(b []byte) []byte {
	return new(big.Int).Mod(new(big.Int).SetBytes(b), p256Order).FillBytes(make([]byte, 32))
}

func TestDeriveW(t *testing.T) {
	pw, salt := []byte("hunter2"), []byte("salt")
	w, err := DeriveW(cheapMHF, pw, salt)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cheapMHF(pw, salt)
	if want := reduceOracle(out); !bytes.Equal(w, want) {
		t.Errorf("DeriveW = %x, want %x", w, want)
	}

	short := func([]byte, []byte) ([]byte, error) { return make([]byte, MinMHFOutputSize-1), nil }
	if _, err := DeriveW(short, pw, salt); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("short MHF output: %v", err)
	}
	zero := func([]byte, []byte) ([]byte, error) { return make([]byte, 48), nil }
	if _, err := DeriveW(zero, pw, salt); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("MHF output reducing to zero: %v", err)
	}
	boom := errors.New("boom")
	failing := func([]byte, []byte) ([]byte, error) { return nil, boom }
	if _, err := DeriveW(failing, pw, salt); !errors.Is(err, boom) {
		t.Errorf("failing MHF: %v", err)
	}
}

// TestDeriveWScrypt checks the default MHF against x/crypto/scrypt with the
// documented parameters. One scrypt evaluation (~0.1 s).
func TestDeriveWScrypt(t *testing.T) {
	pw, salt := []byte("correct horse"), IdentitySalt([]byte("A"), []byte("B"))
	w, err := DeriveW(nil, pw, salt)
	if err != nil {
		t.Fatal(err)
	}
	out, err := scrypt.Key(pw, salt, 32768, 8, 1, 48)
	if err != nil {
		t.Fatal(err)
	}
	if want := reduceOracle(out); !bytes.Equal(w, want) {
		t.Errorf("DeriveW(nil) = %x, want %x", w, want)
	}
}

func TestIdentitySalt(t *testing.T) {
	got := IdentitySalt([]byte("client"), nil)
	want := append([]byte("kexlab SPAKE2 P256-SHA256-HKDF-HMAC w v1"),
		6, 0, 0, 0, 0, 0, 0, 0, 'c', 'l', 'i', 'e', 'n', 't',
		0, 0, 0, 0, 0, 0, 0, 0)
	if !bytes.Equal(got, want) {
		t.Errorf("IdentitySalt = %q, want %q", got, want)
	}
	if bytes.Equal(IdentitySalt([]byte("ab"), []byte("c")), IdentitySalt([]byte("a"), []byte("bc"))) {
		t.Error("IdentitySalt is ambiguous")
	}
}

// HKDF (the study's configuration) is HKDF-SHA256 with the package's info
// label and 48 bytes of output, as x/crypto/hkdf computes it.
func TestHKDFMatchesXCrypto(t *testing.T) {
	pw, salt := []byte("correct horse"), IdentitySalt([]byte("A"), []byte("B"))
	got, err := HKDF(pw, salt)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, ScryptOutputSize)
	if _, err := io.ReadFull(hkdf.New(sha256.New, pw, salt, []byte(hkdfInfo)), want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("HKDF = %x, x/crypto/hkdf %x", got, want)
	}
	if name, _ := mhfName(HKDF); name != "HKDF-SHA256 (no memory-hard function)" {
		t.Errorf("floor name %q", name)
	}
}
