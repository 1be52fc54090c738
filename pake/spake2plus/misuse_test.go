package spake2plus

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// TestNilRecord: MarshalBinary and UnmarshalBinary on a nil *Record fail
// with ErrInvalidParameter instead of panicking.
func TestNilRecord(t *testing.T) {
	var r *Record
	if _, err := r.MarshalBinary(); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("MarshalBinary of a nil record: %v, want ErrInvalidParameter", err)
	}
	// A well-formed encoding, so that only the nil receiver is wrong.
	pbkdf := func(_ []byte, n int) ([]byte, error) { return bytes.Repeat([]byte{7}, n), nil }
	_, _, L, err := Register([]byte("pw"), tIDProver, tIDVerifier, pbkdf)
	if err != nil {
		t.Fatal(err)
	}
	valid, err := (&Record{Salt: make([]byte, SaltSize), W0: append(make([]byte, ScalarSize-1), 1), L: L}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.UnmarshalBinary(valid); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("UnmarshalBinary into a nil record: %v, want ErrInvalidParameter", err)
	}
}
