package ocake

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// fuzzKey is a fixed password key: the fuzz targets never run PBKDF2.
var fuzzKey = bytes.Repeat([]byte{0x42}, PasswordKeySize)

// FuzzResponder feeds arbitrary bytes to Bob as message 1: he must answer
// with a typed error or a well-formed message 2, never panic.
func FuzzResponder(f *testing.F) {
	a, _ := NewInitiator(rand.Reader, fuzzKey, testSession)
	m1, _ := a.Next(nil)
	f.Add(m1)
	f.Add([]byte{})
	f.Add(make([]byte, Message1Size))
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := NewResponder(rand.Reader, fuzzKey, testSession)
		if err != nil {
			t.Fatal(err)
		}
		out, err := b.Next(in)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) && !errors.Is(err, pakeerr.ErrAuthFailed) {
				t.Fatalf("untyped error %v", err)
			}
			if _, err := b.Next(in); !errors.Is(err, pakeerr.ErrState) {
				t.Fatalf("failed responder reused: %v", err)
			}
			return
		}
		if len(out) != Message2Size || !b.Done() {
			t.Fatalf("accepted message 1 but sent %d bytes", len(out))
		}
	})
}

// FuzzInitiator feeds arbitrary bytes to Alice as message 2.
func FuzzInitiator(f *testing.F) {
	a, _ := NewInitiator(rand.Reader, fuzzKey, testSession)
	m1, _ := a.Next(nil)
	b, _ := NewResponder(rand.Reader, fuzzKey, testSession)
	m2, _ := b.Next(m1)
	f.Add(m2)
	f.Add([]byte{})
	f.Add(make([]byte, Message2Size))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, _ := NewInitiator(rand.Reader, fuzzKey, testSession)
		if _, err := a.Next(nil); err != nil {
			t.Fatal(err)
		}
		out, err := a.Next(in)
		if err == nil {
			// Only Bob's Auth for this apk verifies; a fresh apk was
			// sent, so acceptance would be a forgery.
			t.Fatalf("initiator accepted a message 2 it never asked for (out %x)", out)
		}
		if !errors.Is(err, pakeerr.ErrInvalidMessage) && !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

// FuzzPKCS7Unpad checks the constant-time unpadding against a plain
// reference.
func FuzzPKCS7Unpad(f *testing.F) {
	f.Add(bytes.Repeat([]byte{16}, 16))
	f.Add(append(make([]byte, 15), 1))
	f.Add(append(make([]byte, 30), 2, 2))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := pkcs7Unpad(b)
		want, wantOK := referenceUnpad(b)
		if ok != wantOK || !bytes.Equal(got, want) {
			t.Fatalf("pkcs7Unpad(%x) = %x, %v; want %x, %v", b, got, ok, want, wantOK)
		}
	})
}

func referenceUnpad(b []byte) ([]byte, bool) {
	if len(b) == 0 || len(b)%16 != 0 {
		return nil, false
	}
	n := int(b[len(b)-1])
	if n < 1 || n > 16 {
		return nil, false
	}
	for _, c := range b[len(b)-n:] {
		if int(c) != n {
			return nil, false
		}
	}
	return b[:len(b)-n], true
}
