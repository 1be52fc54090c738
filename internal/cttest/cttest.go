// Package cttest is the timing check of kexlab's constant-time arithmetic
// tests (a dudect-style test): time an operation on two classes of secret
// inputs, interleaved in random order so that load from other processes
// falls on both alike, crop the slow tail that preemption adds, and compare
// the means with Welch's t. Only tests import it.
package cttest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Limit is the |t| above which a test should call the timing input
// dependent (dudect's threshold).
const Limit = 4.5

// TimeClasses times f(0) and f(1), samples times each in a random
// interleaved order after a warm-up, and returns the largest Welch |t| over
// croppings at the 50th, 80th and 95th percentile of the pooled times.
func TimeClasses(t testing.TB, samples int, f func(class int)) float64 {
	t.Helper()
	r := rand.New(rand.NewChaCha8([32]byte{'t'}))
	var times [2][]float64
	for i := 0; i < 20; i++ { // warm up
		f(i % 2)
	}
	for i := 0; i < 2*samples; i++ {
		c := r.IntN(2)
		start := time.Now()
		f(c)
		times[c] = append(times[c], float64(time.Since(start).Nanoseconds()))
	}
	worst := 0.0
	for _, q := range []float64{0.5, 0.8, 0.95} {
		a, b := Crop(times[0], times[1], q)
		if len(a) < 10 || len(b) < 10 {
			continue
		}
		tv := WelchT(a, b)
		t.Logf("crop %.2f: %d/%d samples, means %.0f/%.0f ns, t = %.2f", q, len(a), len(b), mean(a), mean(b), tv)
		worst = max(worst, math.Abs(tv))
	}
	return worst
}

// Repeated returns the smallest |t| of up to tries runs of TimeClasses,
// stopping at the first below Limit. A real dependence on the class shows
// in every run; load from other processes (CI runs test packages in
// parallel on two cores) can push one run of a sub-microsecond operation
// over the limit, as it did once in CI for p256scalar's Invert (|t| 8.6
// with means equal to the nanosecond), so a test fails only if the
// difference reproduces.
func Repeated(t testing.TB, tries, samples int, f func(class int)) float64 {
	t.Helper()
	best := math.Inf(1)
	for i := 0; i < tries && best >= Limit; i++ {
		best = min(best, TimeClasses(t, samples, f))
	}
	return best
}

// WelchT returns Welch's t statistic for the means of a and b.
func WelchT(a, b []float64) float64 {
	ma, mb := mean(a), mean(b)
	return (ma - mb) / math.Sqrt(variance(a, ma)/float64(len(a))+variance(b, mb)/float64(len(b)))
}

// Crop returns the samples of a and b at or below the q quantile of both
// pooled.
func Crop(a, b []float64, q float64) ([]float64, []float64) {
	all := slices.Concat(a, b)
	slices.Sort(all)
	limit := all[int(q*float64(len(all)-1))]
	keep := func(x []float64) []float64 {
		return slices.DeleteFunc(slices.Clone(x), func(v float64) bool { return v > limit })
	}
	return keep(a), keep(b)
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func variance(x []float64, m float64) float64 {
	v := 0.0
	for _, y := range x {
		v += (y - m) * (y - m)
	}
	return v / float64(len(x)-1)
}
