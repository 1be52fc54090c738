package spake2plus

import (
	"crypto/rand"
	"testing"
)

// BenchmarkFullRun is one whole exchange through the typed API, w0 and w1
// given (no PBKDF): both parties' construction and all three messages.
func BenchmarkFullRun(b *testing.B) {
	for b.Loop() {
		p, _ := NewProver(rand.Reader, tContext, tIDProver, tIDVerifier, tW0, tW1)
		v, _ := NewVerifier(rand.Reader, tContext, tIDProver, tIDVerifier, tW0, tL)
		if _, _, err := exchange(p, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProver is the prover's side of one exchange: NewProver, Start
// and Finish on the verifier's answer (the RFC vector's, replayed).
func BenchmarkProver(b *testing.B) {
	_, m2, _ := honestMessages(b)
	for b.Loop() {
		p, _ := NewProver(replay(tX), tContext, tIDProver, tIDVerifier, tW0, tW1)
		if _, err := p.Start(); err != nil {
			b.Fatal(err)
		}
		if _, err := p.Finish(m2[:ShareSize], m2[ShareSize:]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifier is the verifier's side of one exchange: NewVerifier,
// Respond and Finish on the prover's messages (the RFC vector's).
func BenchmarkVerifier(b *testing.B) {
	m1, _, m3 := honestMessages(b)
	for b.Loop() {
		v, _ := NewVerifier(replay(tY), tContext, tIDProver, tIDVerifier, tW0, tL)
		if _, _, err := v.Respond(m1); err != nil {
			b.Fatal(err)
		}
		if err := v.Finish(m3); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnavoidable measures Unavoidable's Online, the group operations
// SPAKE2+ cannot do without: the floor for BenchmarkFullRun.
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

// BenchmarkRegister is one registration with the default PBKDF, scrypt
// (N=32768, r=8, p=1), which the uniform adapter's client also runs before
// every exchange.
func BenchmarkRegister(b *testing.B) {
	pbkdf := Scrypt(IdentitySalt(tIDProver, tIDVerifier))
	for b.Loop() {
		if _, _, _, err := Register([]byte("password"), tIDProver, tIDVerifier, pbkdf); err != nil {
			b.Fatal(err)
		}
	}
}
