package spake2plus

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// The RFC vector's ephemeral scalars, so that fuzzing is deterministic.
var (
	tX = mustHex("d1232c8e8693d02368976c174e2088851b8365d0d79a9eee709c6a05a2fad539")
	tY = mustHex("717a72348a182085109c8d3917d6c43d59b224dc6a7fc4f0483232fa6516d8b3")
)

// honestMessages returns the three messages of the RFC vector's exchange.
func honestMessages(tb testing.TB) (m1, m2, m3 []byte) {
	p, err := NewProver(replay(tX), tContext, tIDProver, tIDVerifier, tW0, tW1)
	if err != nil {
		tb.Fatal(err)
	}
	v, err := NewVerifier(replay(tY), tContext, tIDProver, tIDVerifier, tW0, tL)
	if err != nil {
		tb.Fatal(err)
	}
	if m1, err = p.Next(nil); err != nil {
		tb.Fatal(err)
	}
	if m2, err = v.Next(m1); err != nil {
		tb.Fatal(err)
	}
	if m3, err = p.Next(m2); err != nil {
		tb.Fatal(err)
	}
	return m1, m2, m3
}

// typed reports whether err is one of the errors a peer's message may
// cause.
func typed(err error) bool {
	return errors.Is(err, pakeerr.ErrInvalidMessage) || errors.Is(err, pakeerr.ErrAuthFailed)
}

// FuzzVerifier feeds the verifier an arbitrary shareP and confirmP.
func FuzzVerifier(f *testing.F) {
	m1, _, m3 := honestMessages(f)
	f.Add(m1, m3)
	f.Add(m1, []byte{})
	f.Add([]byte{4}, m3)
	f.Fuzz(func(t *testing.T, shareP, confirmP []byte) {
		v, err := NewVerifier(replay(tY), tContext, tIDProver, tIDVerifier, tW0, tL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Next(shareP); err != nil {
			if !typed(err) {
				t.Fatalf("shareP: untyped error %v", err)
			}
			return
		}
		_, err = v.Next(confirmP)
		honest := bytes.Equal(shareP, m1) && bytes.Equal(confirmP, m3)
		switch {
		case honest && err != nil:
			t.Fatalf("honest messages refused: %v", err)
		case !honest && err == nil:
			t.Fatalf("verifier accepted shareP %x with confirmP %x", shareP, confirmP)
		case err != nil && !typed(err):
			t.Fatalf("confirmP: untyped error %v", err)
		}
	})
}

// FuzzProver feeds the prover an arbitrary shareV || confirmV.
func FuzzProver(f *testing.F) {
	_, m2, _ := honestMessages(f)
	f.Add(m2)
	f.Add(m2[:ShareSize])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := NewProver(replay(tX), tContext, tIDProver, tIDVerifier, tW0, tW1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Next(nil); err != nil {
			t.Fatal(err)
		}
		out, err := p.Next(in)
		switch {
		case bytes.Equal(in, m2) && (err != nil || len(out) != ConfirmSize):
			t.Fatalf("honest message refused: %v", err)
		case !bytes.Equal(in, m2) && err == nil:
			t.Fatalf("prover accepted %x", in)
		case err != nil && !typed(err):
			t.Fatalf("untyped error %v", err)
		}
	})
}

// FuzzRecord parses arbitrary records: a record that parses re-encodes to
// the same bytes, and one that does not fails with ErrInvalidParameter.
func FuzzRecord(f *testing.F) {
	f.Add(validRecord())
	f.Add(validRecord()[:RecordSize-1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Record
		if err := r.UnmarshalBinary(b); err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidParameter) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		out, err := r.MarshalBinary()
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("round trip: %x, %v", out, err)
		}
	})
}
