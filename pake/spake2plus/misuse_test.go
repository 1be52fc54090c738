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

// TestResumeVerifier finishes an exchange on a verifier restored from
// MarshalBinary and refuses states of the wrong phase or length.
func TestResumeVerifier(t *testing.T) {
	w0, w1, L, err := Register([]byte("pw"), []byte("alice"), []byte("bob"), Scrypt(make([]byte, SaltSize)))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := NewProver(nil, nil, []byte("alice"), []byte("bob"), w0, w1)
	v, _ := NewVerifier(nil, nil, []byte("alice"), []byte("bob"), w0, L)
	if _, err := v.MarshalBinary(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("MarshalBinary before Respond: %v", err)
	}
	shareP, _ := p.Start()
	shareV, confirmV, err := v.Respond(shareP)
	if err != nil {
		t.Fatal(err)
	}
	state, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ResumeVerifier(state)
	if err != nil {
		t.Fatal(err)
	}
	confirmP, err := p.Finish(shareV, confirmV)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(confirmP); err != nil {
		t.Fatal(err)
	}
	kp, _ := p.SessionKey()
	kv, _ := r.SessionKey()
	if !bytes.Equal(kp, kv) {
		t.Fatal("keys differ after resuming")
	}
	if _, err := ResumeVerifier(state[1:]); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("short state: %v", err)
	}
	r2, _ := ResumeVerifier(state)
	if err := r2.Finish(make([]byte, ConfirmSize)); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("wrong confirmP on a resumed verifier: %v", err)
	}
}
