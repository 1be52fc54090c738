package spake2plus

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// p256P is the P-256 field prime p (SEC 2, Section 2.4.2), big-endian.
var p256P = mustHex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")

// p256N is the P-256 group order n (SEC 2, Section 2.4.2), big-endian.
var p256N = mustHex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

// badShares returns encodings that are not acceptable shares, with mask
// (w0*M or w0*N, which a share must not equal) added to the list.
func badShares(mask []byte) map[string][]byte {
	g := group.NewGenerator()
	gb := g.Bytes()
	offCurve := bytes.Clone(gb)
	offCurve[ShareSize-1] ^= 1
	xIsP := append(append([]byte{4}, p256P...), gb[33:]...)
	compressedPrefix := bytes.Clone(gb)
	compressedPrefix[0] = 2
	hybrid := bytes.Clone(gb)
	hybrid[0] = 6
	return map[string][]byte{
		"empty":                 {},
		"nil":                   nil,
		"identity (0x00)":       {0},
		"zeros":                 make([]byte, ShareSize),
		"0x04 and zeros":        append([]byte{4}, make([]byte, 64)...),
		"off the curve":         offCurve,
		"x = p (non-canonical)": xIsP,
		"compressed generator":  g.BytesCompressed(),
		"0x02 prefix, 65 bytes": compressedPrefix,
		"hybrid prefix 0x06":    hybrid,
		"one byte short":        gb[:ShareSize-1],
		"one byte long":         append(bytes.Clone(gb), 0),
		"cancels the mask":      mask,
	}
}

func wTimes(w0 []byte, hexPoint string) []byte {
	s, err := group.NewScalar().SetCanonicalBytes(w0)
	if err != nil {
		panic(err)
	}
	return group.NewPoint().ScalarMult(s, mustPoint(hexPoint)).Bytes()
}

func TestInvalidShareP(t *testing.T) {
	for name, share := range badShares(wTimes(tW0, mHex)) {
		_, v := newPair(t, tW0, tW1, tL)
		if _, _, err := v.Respond(share); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("shareP %s: got %v, want ErrInvalidMessage", name, err)
		}
		if _, err := v.Next(nil); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("shareP %s: verifier still usable after failing: %v", name, err)
		}
	}
}

func TestInvalidShareV(t *testing.T) {
	for name, share := range badShares(wTimes(tW0, nHex)) {
		p, _ := newPair(t, tW0, tW1, tL)
		if _, err := p.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Finish(share, make([]byte, ConfirmSize)); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("shareV %s: got %v, want ErrInvalidMessage", name, err)
		}
		if _, err := p.Next(nil); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("shareV %s: prover still usable after failing: %v", name, err)
		}
	}
}

func TestInvalidMessageLengths(t *testing.T) {
	// Through Next: shareV || confirmV must be exactly 97 bytes.
	for _, n := range []int{0, 1, ShareSize, ShareSize + ConfirmSize - 1, ShareSize + ConfirmSize + 1} {
		p, _ := newPair(t, tW0, tW1, tL)
		if _, err := p.Next(nil); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Next(make([]byte, n)); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("prover given %d bytes: got %v, want ErrInvalidMessage", n, err)
		}
	}
	// confirmV and confirmP of the wrong length.
	p, v := newPair(t, tW0, tW1, tL)
	shareP, _ := p.Start()
	shareV, confirmV, err := v.Respond(shareP)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Finish(shareV, confirmV[:ConfirmSize-1]); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("short confirmV: got %v, want ErrInvalidMessage", err)
	}
	if err := v.Finish(make([]byte, ConfirmSize+1)); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("long confirmP: got %v, want ErrInvalidMessage", err)
	}
}

func TestState(t *testing.T) {
	p, v := newPair(t, tW0, tW1, tL)
	if _, err := p.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("prover SessionKey before the exchange: %v", err)
	}
	if _, err := v.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("verifier SessionKey before the exchange: %v", err)
	}
	if err := v.Finish(make([]byte, ConfirmSize)); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("verifier Finish before Respond: %v", err)
	}
	if _, err := p.Finish(make([]byte, ShareSize), make([]byte, ConfirmSize)); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("prover Finish before Start: %v", err)
	}

	// The prover's first Next takes nil.
	p, _ = newPair(t, tW0, tW1, tL)
	if _, err := p.Next([]byte{}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("prover Next(non-nil) first: %v", err)
	}
	// Start twice.
	p, _ = newPair(t, tW0, tW1, tL)
	p.Start()
	if _, err := p.Start(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("Start twice: %v", err)
	}

	// A full run through Next; afterwards both refuse input but keep
	// their keys.
	p, v = newPair(t, tW0, tW1, tL)
	m1, err := p.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := v.Next(m1)
	if err != nil {
		t.Fatal(err)
	}
	if len(m2) != ShareSize+ConfirmSize {
		t.Fatalf("shareV || confirmV is %d bytes", len(m2))
	}
	if _, err := v.Next(m1); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("verifier given shareP twice: %v", err)
	}
	p2, v2 := newPair(t, tW0, tW1, tL)
	m1, _ = p2.Next(nil)
	m2, _ = v2.Next(m1)
	m3, err := p2.Next(m2)
	if err != nil || !p2.Done() || len(m3) != ConfirmSize {
		t.Fatalf("prover's last Next: %d bytes, done=%v, %v", len(m3), p2.Done(), err)
	}
	if out, err := v2.Next(m3); err != nil || out != nil || !v2.Done() {
		t.Fatalf("verifier's last Next: %x, done=%v, %v", out, v2.Done(), err)
	}
	kp, _ := p2.SessionKey()
	kv, _ := v2.SessionKey()
	if _, err := p2.Next(m2); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("prover Next after the end: %v", err)
	}
	if _, err := v2.Next(m3); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("verifier Next after the end: %v", err)
	}
	kp2, err1 := p2.SessionKey()
	kv2, err2 := v2.SessionKey()
	if err1 != nil || err2 != nil || !bytes.Equal(kp, kp2) || !bytes.Equal(kv, kv2) || !bytes.Equal(kp, kv) {
		t.Errorf("session keys changed after misuse: %v %v", err1, err2)
	}
}

func TestNewPartyParameters(t *testing.T) {
	zero := make([]byte, ScalarSize)
	nMinus1 := bytes.Clone(p256N)
	nMinus1[ScalarSize-1]--
	for name, w := range map[string][]byte{
		"zero":     zero,
		"n":        p256N,
		"all ones": bytes.Repeat([]byte{0xff}, ScalarSize),
		"short":    tW0[1:],
		"long":     append([]byte{0}, tW0...),
		"nil":      nil,
	} {
		if _, err := NewProver(nil, nil, nil, nil, w, tW1); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("prover w0 %s: %v", name, err)
		}
		if _, err := NewProver(nil, nil, nil, nil, tW0, w); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("prover w1 %s: %v", name, err)
		}
		if _, err := NewVerifier(nil, nil, nil, nil, w, tL); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("verifier w0 %s: %v", name, err)
		}
	}
	if _, err := NewProver(nil, nil, nil, nil, nMinus1, nMinus1); err != nil {
		t.Errorf("w0 = w1 = n-1 refused: %v", err)
	}
	for name, L := range badShares(nil) {
		if name == "compressed generator" {
			continue // L may be given compressed
		}
		if _, err := NewVerifier(nil, nil, nil, nil, tW0, L); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("verifier L %s: %v", name, err)
		}
	}
	// A compressed L works like the uncompressed one.
	l, _ := group.NewPoint().SetBytes(tL)
	p, _ := NewProver(rand.Reader, tContext, tIDProver, tIDVerifier, tW0, tW1)
	v, err := NewVerifier(rand.Reader, tContext, tIDProver, tIDVerifier, tW0, l.BytesCompressed())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := exchange(p, v); err != nil {
		t.Errorf("compressed L: %v", err)
	}
}

// failingReader fails every read.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func TestRandomFailure(t *testing.T) {
	p, _ := NewProver(failingReader{}, nil, nil, nil, tW0, tW1)
	if _, err := p.Start(); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("prover: %v, want ErrRandom", err)
	}
	v, _ := NewVerifier(failingReader{}, nil, nil, nil, tW0, tL)
	good, _ := NewProver(rand.Reader, nil, nil, nil, tW0, tW1)
	shareP, _ := good.Start()
	if _, _, err := v.Respond(shareP); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("verifier: %v, want ErrRandom", err)
	}
}
