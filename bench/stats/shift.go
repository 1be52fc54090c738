package stats

import (
	"fmt"
	"math"
)

// CliffsDelta returns Cliff's delta of x relative to y,
// (#{xᵢ > yⱼ} − #{xᵢ < yⱼ})/(n1·n2) in [−1, 1], negative when x tends to be
// smaller. Unlike [MannWhitney] it accepts two identical samples (delta 0).
func CliffsDelta(x, y []float64) (float64, error) {
	a, err := VarghaDelaneyA(x, y)
	if err != nil {
		return 0, err
	}
	return 2*a - 1, nil
}

// VarghaDelaneyA returns the probability that an observation of x exceeds
// one of y, ties counted half: (CliffsDelta+1)/2.
func VarghaDelaneyA(x, y []float64) (float64, error) {
	if len(x) == 0 || len(y) == 0 {
		return 0, fmt.Errorf("%w: effect size needs both samples non-empty, have %d and %d", ErrTooFewSamples, len(x), len(y))
	}
	xs, err := sortedCopy(x)
	if err != nil {
		return 0, fmt.Errorf("x: %w", err)
	}
	ys, err := sortedCopy(y)
	if err != nil {
		return 0, fmt.Errorf("y: %w", err)
	}
	return rankSum(xs, ys).u1 / (float64(len(xs)) * float64(len(ys))), nil
}

// shift returns the Hodges–Lehmann estimate of the shift of sorted xs
// relative to sorted ys and its two-sided confidence interval at level:
// exact from dist when it is non-nil, by the normal approximation (with
// the continuity correction when correct is set) otherwise.
func shift(xs, ys []float64, level float64, dist *uDist, correct bool) (float64, Interval) {
	n1, n2 := len(xs), len(ys)
	mn := n1 * n2
	est := kthDiff(xs, ys, (mn+1)/2)
	if mn%2 == 0 {
		est = midpoint(est, kthDiff(xs, ys, mn/2+1))
	}
	alpha := 1 - level
	var k int
	var ci Interval
	if dist != nil {
		// R: qu <- qwilcox(alpha/2, n.x, n.y); if (qu == 0) qu <- 1;
		// achieved coverage 1 − 2·P(U ≤ qu−1).
		k = min(max(dist.quantile(alpha/2), 1), (mn+1)/2)
		ci = Interval{Level: 1 - 2*dist.cdf(k-1), Exact: true}
	} else {
		c := 0.0
		if correct {
			c = 0.5
		}
		sw := withinSigma(xs, ys)
		half := float64(mn) / 2
		z := normQuantile(1 - alpha/2)
		k = int(math.Ceil(half - c - z*sw))
		k = min(max(k, 1), (mn+1)/2)
		ci = Interval{Level: 1 - 2*normCDF((float64(k-1)+c-half)/sw)}
	}
	ci.Low = kthDiff(xs, ys, k)
	ci.High = kthDiff(xs, ys, mn+1-k)
	return est, ci
}

// withinSigma is the standard deviation of U under H0 with the tie
// correction for the ties within xs and within ys only: the tie structure
// of (x − μ, y) at a shift μ that is not a difference xᵢ − yⱼ.
func withinSigma(xs, ys []float64) float64 {
	var tieSum float64
	for _, s := range [][]float64{xs, ys} {
		for i := 0; i < len(s); {
			j := i + 1
			for j < len(s) && s[j] == s[i] {
				j++
			}
			t := float64(j - i)
			tieSum += t*t*t - t
			i = j
		}
	}
	n1, n2 := float64(len(xs)), float64(len(ys))
	N := n1 + n2
	return math.Sqrt(n1 * n2 / 12 * ((N + 1) - tieSum/(N*(N-1))))
}

// kthDiff returns the k-th smallest (1 ≤ k ≤ len(xs)·len(ys)) of the
// floating-point differences xᵢ − yⱼ of sorted, finite xs and ys, without
// forming them: it bisects over the ordered float64 values t for the
// smallest t with #{xᵢ − yⱼ ≤ t} ≥ k, which is always one of the
// differences. Rounding is monotone, so xᵢ − yⱼ is non-decreasing in i and
// non-increasing in j and the count is a two-pointer walk.
func kthDiff(xs, ys []float64, k int) float64 {
	lo := orderKey(xs[0] - ys[len(ys)-1])
	hi := orderKey(xs[len(xs)-1] - ys[0])
	for lo < hi {
		mid := lo + (hi-lo)/2
		if countLE(xs, ys, fromOrderKey(mid)) >= k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return fromOrderKey(lo) + 0 // + 0 turns −0 into +0
}

// countLE returns #{(i, j) : xs[i] − ys[j] ≤ t}.
func countLE(xs, ys []float64, t float64) int {
	c, j := 0, 0
	for _, x := range xs {
		for j < len(ys) && x-ys[j] > t {
			j++
		}
		c += len(ys) - j
	}
	return c
}

// orderKey maps a non-NaN float64 to a uint64 with the same order.
func orderKey(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func fromOrderKey(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// midpoint is (a+b)/2 without overflow, and never outside [a, b] (a <= b):
// a/2 + b/2 rounds each half, which for subnormal a = b gives a value one
// step beside a.
func midpoint(a, b float64) float64 {
	m := a/2 + b/2
	return min(max(m, a), b)
}
