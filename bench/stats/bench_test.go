package stats

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchSample is a timing-like sample: log-normal around 1 ms.
func benchSample(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	s := make([]float64, n)
	for i := range s {
		s[i] = 1e6 * (1 + 0.1*rng.NormFloat64()) * (1 + rng.ExpFloat64()/50)
	}
	return s
}

func BenchmarkSummary(b *testing.B) {
	for _, n := range []int{30, 300, 3000} {
		xs := benchSample(n, 1)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Summarize(xs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMannWhitney compares two samples of n each: exact for n = 30,
// normal approximation above.
func BenchmarkMannWhitney(b *testing.B) {
	for _, n := range []int{30, 300, 3000} {
		x, y := benchSample(n, 2), benchSample(n, 3)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := MannWhitney(x, y, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
