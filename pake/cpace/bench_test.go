package cpace

import (
	"crypto/rand"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
)

var benchInputs = Inputs{
	PRS: []byte("correct horse battery staple"),
	CI:  []byte("\x0dclient@kexlab\x0dserver.kexlab"),
	AD:  []byte("AD"),
}

// BenchmarkFullRun is one complete exchange: both parties created, three
// calls to Next, both keys derived.
func BenchmarkFullRun(b *testing.B) {
	for b.Loop() {
		a, err := NewInitiator(rand.Reader, benchInputs)
		if err != nil {
			b.Fatal(err)
		}
		r, err := NewResponder(rand.Reader, benchInputs)
		if err != nil {
			b.Fatal(err)
		}
		ma, _ := a.Next(nil)
		mb, err := r.Next(ma)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Next(mb); err != nil {
			b.Fatal(err)
		}
	}
}

// peerMessage returns a valid message from a fresh party of the other side.
func peerMessage(b *testing.B) []byte {
	a, err := NewInitiator(rand.Reader, benchInputs)
	if err != nil {
		b.Fatal(err)
	}
	m, _ := a.Next(nil)
	return m
}

// BenchmarkInitiator is A's whole share of a run: generator, scalar, Ya,
// then K and ISK from B's (fixed) message.
func BenchmarkInitiator(b *testing.B) {
	mb := peerMessage(b)
	for b.Loop() {
		a, err := NewInitiator(rand.Reader, benchInputs)
		if err != nil {
			b.Fatal(err)
		}
		a.Next(nil)
		if _, err := a.Next(mb); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResponder is B's whole share of a run, answering a fixed
// message from A.
func BenchmarkResponder(b *testing.B) {
	ma := peerMessage(b)
	for b.Loop() {
		r, err := NewResponder(rand.Reader, benchInputs)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Next(ma); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnavoidable is the primitive floor of a full run: for each of
// the two parties one encode_to_curve (the generator), one scalar
// multiplication y*g, one decoding of the peer's point and one scalar
// multiplication y*Y_peer. Compare with BenchmarkFullRun.
func BenchmarkUnavoidable(b *testing.B) {
	gs := generatorString([]byte(DSI), benchInputs.PRS, benchInputs.CI, nil, hashBlockSize)
	y, err := group.RandomScalar(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	peer := peerMessage(b)[:ElementSize]
	for b.Loop() {
		for range 2 {
			g, err := group.EncodeToCurve(gs, []byte(dst))
			if err != nil {
				b.Fatal(err)
			}
			group.NewPoint().ScalarMult(y, g)
			p, err := group.NewPoint().SetBytes(peer)
			if err != nil {
				b.Fatal(err)
			}
			group.NewPoint().ScalarMult(y, p)
		}
	}
}
