package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

var (
	// ErrTooFewSamples: a sample is empty or shorter than the method needs.
	ErrTooFewSamples = errors.New("stats: too few samples")
	// ErrNotFinite: a sample holds NaN or ±Inf.
	ErrNotFinite = errors.New("stats: sample value is not finite")
	// ErrInvalidParameter: an option is out of range (a confidence level
	// outside (0, 1), an unknown rule, a p-value outside [0, 1], ...).
	ErrInvalidParameter = errors.New("stats: invalid parameter")
	// ErrAllTied: the two samples are one repeated value, so no test or
	// interval can be formed (nor can R's); a report reads "no difference".
	ErrAllTied = errors.New("stats: all observations are tied")
)

// DefaultLevel is the confidence level used when none is given.
const DefaultLevel = 0.95

// Interval is a confidence interval together with the coverage it actually
// achieves, which differs from the requested level for discrete statistics.
type Interval struct {
	Low, High float64
	// Level is the coverage probability of [Low, High]: exact when Exact is
	// true, by the normal approximation otherwise.
	Level float64
	Exact bool
}

// Summary describes one sample of a measure.
type Summary struct {
	N        int
	Mean     float64
	SD       float64 // sample standard deviation, denominator n−1
	CV       float64 // SD/|Mean|; 0 when SD is 0, +Inf when only Mean is 0
	Min      float64
	Q1       float64 // Quantile(0.25), Hyndman–Fan type 7
	Median   float64
	Q3       float64 // Quantile(0.75)
	Max      float64
	IQR      float64  // Q3 − Q1
	MedianCI Interval // order-statistic interval at DefaultLevel
}

// Summarize computes the [Summary] of xs. It needs at least two finite
// values (the standard deviation is undefined below that).
func Summarize(xs []float64) (Summary, error) {
	if len(xs) < 2 {
		return Summary{}, fmt.Errorf("%w: summary needs 2 values, have %d", ErrTooFewSamples, len(xs))
	}
	s, err := sortedCopy(xs)
	if err != nil {
		return Summary{}, err
	}
	mean, sd := meanSD(s)
	sum := Summary{
		N:      len(s),
		Mean:   mean,
		SD:     sd,
		Min:    s[0],
		Q1:     quantileSorted(s, 0.25),
		Median: quantileSorted(s, 0.5),
		Q3:     quantileSorted(s, 0.75),
		Max:    s[len(s)-1],
	}
	sum.IQR = sum.Q3 - sum.Q1
	switch {
	case sd == 0:
		sum.CV = 0
	case mean == 0:
		sum.CV = math.Inf(1)
	default:
		sum.CV = sd / math.Abs(mean)
	}
	sum.MedianCI = medianCISorted(s, DefaultLevel)
	return sum, nil
}

// Quantile returns the p-quantile of xs by Hyndman and Fan's definition 7,
// the default of R's quantile(): linear interpolation between the order
// statistics x₍⌊h⌋₎ and x₍⌊h⌋+1₎ at h = (n−1)p + 1.
func Quantile(xs []float64, p float64) (float64, error) {
	if !(p >= 0 && p <= 1) {
		return 0, fmt.Errorf("%w: probability %v outside [0, 1]", ErrInvalidParameter, p)
	}
	if len(xs) == 0 {
		return 0, fmt.Errorf("%w: quantile of an empty sample", ErrTooFewSamples)
	}
	s, err := sortedCopy(xs)
	if err != nil {
		return 0, err
	}
	return quantileSorted(s, p), nil
}

// MedianCI returns the distribution-free confidence interval of the median
// at the given level (see the package documentation): the narrowest
// symmetric order-statistic interval whose exact binomial coverage is at
// least level, or [min, max] with its smaller coverage when none is.
func MedianCI(xs []float64, level float64) (Interval, error) {
	if !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("%w: confidence level %v outside (0, 1)", ErrInvalidParameter, level)
	}
	if len(xs) == 0 {
		return Interval{}, fmt.Errorf("%w: median of an empty sample", ErrTooFewSamples)
	}
	s, err := sortedCopy(xs)
	if err != nil {
		return Interval{}, err
	}
	return medianCISorted(s, level), nil
}

// medianCISorted picks l for [s[l-1], s[n-l]] on sorted s.
func medianCISorted(s []float64, level float64) Interval {
	n := len(s)
	half := (1 - level) / 2
	// cdf(j) = P(B ≤ j), B ~ Binomial(n, 1/2). Coverage of l is 1 − 2·cdf(l−1).
	// The terms more than 30 standard deviations (√n/2) below the mean sum
	// to about e^-450: start the sum there, where the pmf is still a normal
	// float64.
	j0 := int(float64(n)/2 - 30*math.Sqrt(float64(n))/2)
	j0 = max(j0, 0)
	pmf := math.Exp(logChoose(n, j0) - float64(n)*math.Ln2)
	cdf := pmf
	l, tail := max(j0, 1), 0.0 // cdf(j0−1) ≈ 0: l = j0 qualifies
	if j0 == 0 {
		tail = pmf // [min, max], whatever its coverage
	}
	for j := j0; j <= (n-1)/2 && cdf <= half; j++ {
		l, tail = j+1, cdf
		pmf *= float64(n-j) / float64(j+1)
		cdf += pmf
	}
	return Interval{Low: s[l-1], High: s[n-l], Level: 1 - 2*tail, Exact: true}
}

// logChoose returns ln C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// quantileSorted is Quantile on sorted, non-empty s, computed as R does,
// (1−g)·x₍j₎ + g·x₍j+1₎, which cannot overflow, and kept within the two
// order statistics whatever the rounding.
func quantileSorted(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	j := int(math.Floor(h))
	if j >= len(s)-1 {
		return s[len(s)-1]
	}
	g := h - float64(j)
	a, b := s[j], s[j+1]
	if g == 0 || a == b {
		return a
	}
	q := (1-g)*a + g*b
	return math.Min(math.Max(q, a), b)
}

// meanSD returns the mean and the sample standard deviation of s (the
// latter NaN for len 1)
// by the corrected two-pass algorithm (Chan, Golub and LeVeque, 1983). Very
// large values are first scaled by a power of two so that nothing overflows.
func meanSD(s []float64) (mean, sd float64) {
	scale := 1.0
	var maxAbs float64
	for _, v := range s {
		maxAbs = math.Max(maxAbs, math.Abs(v))
	}
	if maxAbs > 0x1p500 {
		_, e := math.Frexp(maxAbs) // maxAbs < 2^e
		scale = math.Ldexp(1, e-1)
	}
	n := float64(len(s))
	var sum float64
	for _, v := range s {
		sum += v / scale
	}
	m := sum / n
	var dev, dev2 float64
	for _, v := range s {
		d := v/scale - m
		dev += d
		dev2 += d * d
	}
	m += dev / n
	v := (dev2 - dev*dev/n) / (n - 1)
	if v < 0 {
		v = 0
	}
	return m * scale, math.Sqrt(v) * scale
}

// checkFinite returns ErrNotFinite for the first NaN or ±Inf in xs.
func checkFinite(xs []float64) error {
	for i, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: value %d is %v", ErrNotFinite, i, v)
		}
	}
	return nil
}

// sortedCopy checks xs and returns a sorted copy.
func sortedCopy(xs []float64) ([]float64, error) {
	if err := checkFinite(xs); err != nil {
		return nil, err
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s, nil
}
