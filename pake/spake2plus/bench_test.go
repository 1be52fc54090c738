package spake2plus

import (
	"crypto/rand"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
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

// BenchmarkUnavoidable measures the group operations SPAKE2+ cannot do
// without, the floor for BenchmarkFullRun ("both"):
//
//	prover:   x*P + w0*M (ScalarBaseMult, TableMult, Add), w0*N (TableMult),
//	          x*T and w1*T (2 ScalarMult)
//	verifier: y*P + w0*N (ScalarBaseMult, TableMult, Add), w0*M (TableMult),
//	          y*T and y*L (2 ScalarMult)
func BenchmarkUnavoidable(b *testing.B) {
	c := suiteConstants()
	scalar := func() *group.Scalar {
		s, err := group.RandomScalar(rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	x, y, w0, w1 := scalar(), scalar(), scalar(), scalar()
	q := group.NewPoint().ScalarBaseMult(scalar())
	r := group.NewPoint()
	prover := func() {
		r.Add(r.ScalarBaseMult(x), group.NewPoint().TableMult(w0, c.mTable))
		r.TableMult(w0, c.nTable)
		r.ScalarMult(x, q)
		r.ScalarMult(w1, q)
	}
	verifier := func() {
		r.Add(r.ScalarBaseMult(y), group.NewPoint().TableMult(w0, c.nTable))
		r.TableMult(w0, c.mTable)
		r.ScalarMult(y, q)
		r.ScalarMult(y, q)
	}
	b.Run("prover", func(b *testing.B) {
		for b.Loop() {
			prover()
		}
	})
	b.Run("verifier", func(b *testing.B) {
		for b.Loop() {
			verifier()
		}
	})
	b.Run("both", func(b *testing.B) {
		for b.Loop() {
			prover()
			verifier()
		}
	})
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
