package spake2

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Fixed inputs for the fuzz target: no MHF, and replayed x and y so that
// the honest messages are the same in every iteration.
var (
	fuzzW = bytes.Repeat([]byte{0x5a}, WSize)
	fuzzX = bytes.Repeat([]byte{0x11}, WSize)
	fuzzY = bytes.Repeat([]byte{0x22}, WSize)
)

func fuzzParties(t testing.TB) (*PartyA, *PartyB) {
	a, err := NewA(replay(fuzzX), []byte("A"), []byte("B"), []byte("aad"), fuzzW)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewB(replay(fuzzY), []byte("A"), []byte("B"), []byte("aad"), fuzzW)
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

func isTyped(err error) bool {
	for _, e := range []error{pakeerr.ErrInvalidMessage, pakeerr.ErrAuthFailed, pakeerr.ErrState, pakeerr.ErrInvalidParameter, pakeerr.ErrRandom} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// FuzzSPAKE2Messages feeds arbitrary bytes to each state of both parties:
// A before Start and waiting for pB || cB, B waiting for pA and for cA, and
// both after the end. Nothing may panic; every error must be typed; the
// only accepted pB || cB and cA are the honest ones (anything else would be
// a forged MAC); a B that accepts some pA answers with a well-formed
// message.
func FuzzSPAKE2Messages(f *testing.F) {
	a, b := fuzzParties(f)
	m1, err := a.Next(nil)
	if err != nil {
		f.Fatal(err)
	}
	m2, err := b.Next(m1)
	if err != nil {
		f.Fatal(err)
	}
	m3, err := a.Next(m2)
	if err != nil {
		f.Fatal(err)
	}
	for stage := range uint8(6) {
		for _, m := range [][]byte{nil, {}, {0}, m1, m2, m3} {
			f.Add(stage, m)
		}
	}

	f.Fuzz(func(t *testing.T, stage uint8, msg []byte) {
		a, b := fuzzParties(t)
		var out []byte
		var err error
		switch stage % 6 {
		case 0: // A, before anything
			out, err = a.Next(msg)
			if err == nil && (msg != nil || !bytes.Equal(out, m1)) {
				t.Fatalf("A accepted %x as its first input", msg)
			}
		case 1: // A, waiting for pB || cB
			a.Next(nil)
			out, err = a.Next(msg)
			if err == nil && (!bytes.Equal(msg, m2) || !bytes.Equal(out, m3)) {
				t.Fatalf("A accepted pB || cB = %x", msg)
			}
		case 2: // B, waiting for pA
			out, err = b.Next(msg)
			if err == nil && len(out) != ShareSize+MACSize {
				t.Fatalf("B answered %d bytes", len(out))
			}
			if bytes.Equal(msg, m1) && !bytes.Equal(out, m2) {
				t.Fatalf("B's answer to the honest pA changed")
			}
		case 3: // B, waiting for cA
			b.Next(m1)
			out, err = b.Next(msg)
			if err == nil && (!bytes.Equal(msg, m3) || !b.Done()) {
				t.Fatalf("B accepted cA = %x", msg)
			}
		case 4: // A, done
			a.Next(nil)
			a.Next(m2)
			out, err = a.Next(msg)
			if !errors.Is(err, pakeerr.ErrState) {
				t.Fatalf("finished A: %v", err)
			}
		case 5: // B, done
			b.Next(m1)
			b.Next(m3)
			out, err = b.Next(msg)
			if !errors.Is(err, pakeerr.ErrState) {
				t.Fatalf("finished B: %v", err)
			}
		}
		if err != nil {
			if !isTyped(err) {
				t.Fatalf("untyped error: %v", err)
			}
			if out != nil {
				t.Fatalf("output %x with error %v", out, err)
			}
		}
	})
}
