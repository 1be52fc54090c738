package cpace

import (
	"crypto/rand"
	"testing"
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

// BenchmarkUnavoidable is Unavoidable's Online, the primitive floor of a
// full run. Compare with BenchmarkFullRun.
func BenchmarkUnavoidable(b *testing.B) {
	f, err := Unavoidable(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := f.Online(); err != nil {
			b.Fatal(err)
		}
	}
}
