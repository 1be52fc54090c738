package spake2

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/kexlab/kexlab/internal/group"
)

// The benchmarks take w as given (no MHF) except BenchmarkMHF, which
// measures the default MHF alone. BenchmarkFullRun / BenchmarkUnavoidable
// is the scheme's overhead over its unavoidable group operations.

func benchW(b *testing.B) []byte {
	w, err := group.RandomScalar(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	return w.Bytes()
}

var benchIDA, benchIDB, benchAAD = []byte("client@kexlab"), []byte("server.kexlab"), []byte("kexlab bench")

// BenchmarkFullRun is one whole exchange through the typed API: both
// parties, fresh randomness, w given.
func BenchmarkFullRun(b *testing.B) {
	w := benchW(b)
	for b.Loop() {
		pa, err := NewA(nil, benchIDA, benchIDB, benchAAD, w)
		if err != nil {
			b.Fatal(err)
		}
		pb, err := NewB(nil, benchIDA, benchIDB, benchAAD, w)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, _, _, err := exchange(pa, pb); err != nil {
			b.Fatal(err)
		}
	}
}

// benchMessages returns fixed x and y and the messages of the exchange they
// give, so that one party can be measured against recorded messages.
func benchMessages(b *testing.B, w []byte) (x, y, pA, pB, cB, cA []byte) {
	xs, _ := group.RandomScalar(rand.Reader)
	ys, _ := group.RandomScalar(rand.Reader)
	x, y = xs.Bytes(), ys.Bytes()
	pa, _ := NewA(replay(x), benchIDA, benchIDB, benchAAD, w)
	pb, _ := NewB(replay(y), benchIDA, benchIDB, benchAAD, w)
	pA, pB, cB, cA, err := exchange(pa, pb)
	if err != nil {
		b.Fatal(err)
	}
	return x, y, pA, pB, cB, cA
}

// BenchmarkPartyA is A's side of one exchange: NewA, Start, Finish.
func BenchmarkPartyA(b *testing.B) {
	w := benchW(b)
	x, _, _, pB, cB, _ := benchMessages(b, w)
	for b.Loop() {
		pa, _ := NewA(replay(x), benchIDA, benchIDB, benchAAD, w)
		if _, err := pa.Start(); err != nil {
			b.Fatal(err)
		}
		if _, err := pa.Finish(pB, cB); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPartyB is B's side of one exchange: NewB, Respond, Finish.
func BenchmarkPartyB(b *testing.B) {
	w := benchW(b)
	_, y, pA, _, _, cA := benchMessages(b, w)
	for b.Loop() {
		pb, _ := NewB(replay(y), benchIDA, benchIDB, benchAAD, w)
		if _, _, err := pb.Respond(pA); err != nil {
			b.Fatal(err)
		}
		if err := pb.Finish(cA); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStep measures each step of the typed API on its own.
func BenchmarkStep(b *testing.B) {
	w := benchW(b)
	x, y, pA, pB, cB, cA := benchMessages(b, w)
	b.Run("A.Start", func(b *testing.B) {
		for b.Loop() {
			pa, _ := NewA(replay(x), benchIDA, benchIDB, benchAAD, w)
			if _, err := pa.Start(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("B.Respond", func(b *testing.B) {
		for b.Loop() {
			pb, _ := NewB(replay(y), benchIDA, benchIDB, benchAAD, w)
			if _, _, err := pb.Respond(pA); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The Finish steps start from a party put in its waiting state
	// directly, without the scalar multiplications of Start or Respond.
	xs, _ := group.NewScalar().SetCanonicalBytes(x)
	b.Run("A.Finish", func(b *testing.B) {
		for b.Loop() {
			pa, _ := NewA(nil, benchIDA, benchIDB, benchAAD, w)
			pa.x, pa.pA, pa.state = xs, pA, stateActive
			if _, err := pa.Finish(pB, cB); err != nil {
				b.Fatal(err)
			}
		}
	})
	pb0, _ := NewB(replay(y), benchIDA, benchIDB, benchAAD, w)
	if _, _, err := pb0.Respond(pA); err != nil {
		b.Fatal(err)
	}
	b.Run("B.Finish", func(b *testing.B) {
		for b.Loop() {
			pb, _ := NewB(nil, benchIDA, benchIDB, benchAAD, w)
			pb.cA, pb.ke, pb.state = pb0.cA, pb0.ke, stateActive
			if err := pb.Finish(cA); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchFloor returns Unavoidable's Online: both parties' group operations.
func benchFloor(b *testing.B) func() error {
	f, err := Unavoidable(rand.Reader, nil)
	if err != nil {
		b.Fatal(err)
	}
	return f.Online
}

// BenchmarkUnavoidable is the primitive floor of one exchange (both
// parties, w given), to compare with BenchmarkFullRun.
func BenchmarkUnavoidable(b *testing.B) {
	floor := benchFloor(b)
	for b.Loop() {
		if err := floor(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOverhead interleaves a full run and the unavoidable operations
// of both parties in every iteration and reports their ratio, which stays
// meaningful on a machine whose load changes during the benchmark.
func BenchmarkOverhead(b *testing.B) {
	w := benchW(b)
	floorRun := benchFloor(b)
	var full, floor time.Duration
	for b.Loop() {
		t0 := time.Now()
		pa, _ := NewA(nil, benchIDA, benchIDB, benchAAD, w)
		pb, _ := NewB(nil, benchIDA, benchIDB, benchAAD, w)
		if _, _, _, _, err := exchange(pa, pb); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := floorRun(); err != nil {
			b.Fatal(err)
		}
		full += t1.Sub(t0)
		floor += time.Since(t1)
	}
	b.ReportMetric(float64(full.Nanoseconds())/float64(b.N), "fullrun-ns/op")
	b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "unavoidable-ns/op")
	b.ReportMetric(float64(full)/float64(floor), "ratio")
}

// BenchmarkMHF is the cost of deriving w from a password with the default
// MHF (scrypt, N=32768, r=8, p=1), which each party pays once per exchange
// through the uniform adapter.
func BenchmarkMHF(b *testing.B) {
	salt := IdentitySalt(benchIDA, benchIDB)
	for b.Loop() {
		if _, err := DeriveW(nil, []byte("correct horse battery staple"), salt); err != nil {
			b.Fatal(err)
		}
	}
}
