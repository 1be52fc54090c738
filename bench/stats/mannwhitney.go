package stats

import (
	"fmt"
	"math"
)

// Alternative is the alternative hypothesis of [MannWhitney], as R's
// wilcox.test names it.
type Alternative int

const (
	// TwoSided: the distributions of x and y differ.
	TwoSided Alternative = iota
	// Less: x is stochastically smaller than y.
	Less
	// Greater: x is stochastically greater than y.
	Greater
)

// Method selects how [MannWhitney] computes its p-value and interval.
type Method int

const (
	// Auto uses the exact distribution when both samples have fewer than 50
	// observations and there are no ties (R's rule), the normal
	// approximation otherwise.
	Auto Method = iota
	// Exact uses the exact distribution whenever there are no ties and
	// n1·n2 ≤ MaxExact; otherwise it falls back to the normal approximation.
	Exact
	// Normal always uses the normal approximation.
	Normal
)

// MaxExact bounds n1·n2 for the exact distribution; its dynamic programming
// takes O((n1·n2)²/8) additions.
const MaxExact = 10000

// Options are the settings of [MannWhitney]. The zero value (and nil) is
// R's default: two-sided, automatic method, continuity correction, 95%.
type Options struct {
	Alternative  Alternative
	Method       Method
	NoCorrection bool    // omit the continuity correction (R's correct = FALSE)
	Level        float64 // confidence level of the shift interval; 0 means DefaultLevel
}

// MWResult is the outcome of [MannWhitney] for samples x and y.
type MWResult struct {
	N1, N2 int
	U1     float64 // #{xᵢ > yⱼ} + ½·#{xᵢ = yⱼ}: R's W
	U2     float64 // n1·n2 − U1
	// Z is the standardised statistic of the normal approximation, with the
	// continuity correction when it applies; it is reported even when P is
	// exact.
	Z     float64
	P     float64 // p-value for the chosen Alternative
	Exact bool    // P and ShiftCI come from the exact distribution of U
	Ties  bool    // the pooled sample has ties

	Delta float64 // Cliff's delta, (U1 − U2)/(n1·n2), in [−1, 1]
	A     float64 // Vargha–Delaney A, U1/(n1·n2) = (Delta+1)/2

	Shift   float64  // Hodges–Lehmann estimate: median of xᵢ − yⱼ
	ShiftCI Interval // distribution-free interval for the shift, two-sided
}

// MannWhitney compares x with y by the Wilcoxon rank-sum / Mann–Whitney U
// test and returns the effect sizes and the Hodges–Lehmann shift of x
// relative to y; see the package documentation for the methods. opt may be
// nil.
func MannWhitney(x, y []float64, opt *Options) (MWResult, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if !(o.Level > 0 && o.Level < 1) {
		return MWResult{}, fmt.Errorf("%w: confidence level %v outside (0, 1)", ErrInvalidParameter, o.Level)
	}
	if o.Alternative < TwoSided || o.Alternative > Greater || o.Method < Auto || o.Method > Normal {
		return MWResult{}, fmt.Errorf("%w: unknown alternative %d or method %d", ErrInvalidParameter, o.Alternative, o.Method)
	}
	if len(x) == 0 || len(y) == 0 {
		return MWResult{}, fmt.Errorf("%w: rank-sum test needs both samples non-empty, have %d and %d", ErrTooFewSamples, len(x), len(y))
	}
	xs, err := sortedCopy(x)
	if err != nil {
		return MWResult{}, fmt.Errorf("x: %w", err)
	}
	ys, err := sortedCopy(y)
	if err != nil {
		return MWResult{}, fmt.Errorf("y: %w", err)
	}
	rs := rankSum(xs, ys)
	n1, n2 := len(xs), len(ys)
	mn := float64(n1) * float64(n2)
	if rs.allTied {
		return MWResult{}, fmt.Errorf("%w: all %d observations equal %v", ErrAllTied, n1+n2, xs[0])
	}
	r := MWResult{
		N1: n1, N2: n2,
		U1: rs.u1, U2: mn - rs.u1,
		Ties:  rs.ties,
		Delta: (2*rs.u1 - mn) / mn,
		A:     rs.u1 / mn,
	}

	// The normal approximation, as R computes it.
	N := float64(n1 + n2)
	sigma := math.Sqrt(mn / 12 * ((N + 1) - rs.tieSum/(N*(N-1))))
	d := rs.u1 - mn/2
	corr := 0.0
	if !o.NoCorrection {
		switch o.Alternative {
		case TwoSided:
			corr = 0.5 * sign(d)
		case Greater:
			corr = 0.5
		case Less:
			corr = -0.5
		}
	}
	r.Z = (d - corr) / sigma
	switch o.Alternative {
	case Less:
		r.P = normCDF(r.Z)
	case Greater:
		r.P = normCDF(-r.Z)
	default:
		r.P = 2 * math.Min(normCDF(r.Z), normCDF(-r.Z))
	}

	switch o.Method {
	case Auto:
		r.Exact = n1 < 50 && n2 < 50 && !rs.ties
	case Exact:
		r.Exact = !rs.ties && mn <= MaxExact
	}
	var dist *uDist
	if r.Exact {
		dist = newUDist(n1, n2)
		u := int(rs.u1) // an integer when there are no ties
		switch o.Alternative {
		case Less:
			r.P = dist.cdf(u)
		case Greater:
			r.P = dist.cdf(n1*n2 - u) // P(U ≥ u) = P(U ≤ n1·n2 − u)
		default:
			if 2*u > n1*n2 {
				u = n1*n2 - u
			}
			r.P = math.Min(1, 2*dist.cdf(u))
		}
	}
	r.P = math.Min(1, math.Max(0, r.P))

	r.Shift, r.ShiftCI = shift(xs, ys, o.Level, dist, !o.NoCorrection)
	return r, nil
}

// rankSums holds what the test needs from the pooled ranking.
type rankSums struct {
	u1      float64 // rank sum of x minus n1(n1+1)/2
	tieSum  float64 // Σ (t³ − t) over tie groups of the pooled sample
	ties    bool
	allTied bool
}

// rankSum ranks the pooled sorted samples with mid-ranks.
func rankSum(xs, ys []float64) rankSums {
	var rs rankSums
	var r1 float64
	i, j, rank := 0, 0, 0 // rank: observations already ranked
	for i < len(xs) || j < len(ys) {
		v := math.Inf(1)
		if i < len(xs) {
			v = xs[i]
		}
		if j < len(ys) && ys[j] < v {
			v = ys[j]
		}
		cx, cy := 0, 0
		for i < len(xs) && xs[i] == v {
			i, cx = i+1, cx+1
		}
		for j < len(ys) && ys[j] == v {
			j, cy = j+1, cy+1
		}
		t := cx + cy
		mid := float64(rank) + float64(t+1)/2 // mean of ranks rank+1 … rank+t
		r1 += float64(cx) * mid
		if t > 1 {
			rs.ties = true
			ft := float64(t)
			rs.tieSum += ft*ft*ft - ft
		}
		rs.allTied = t == len(xs)+len(ys)
		rank += t
	}
	n1 := float64(len(xs))
	rs.u1 = r1 - n1*(n1+1)/2
	return rs
}

// uDist is the exact null distribution of U for sample sizes m and n,
// stored as counts for u = 0 … ⌊mn/2⌋ (the rest follows by symmetry).
type uDist struct {
	mn    int
	cum   []float64 // cum[u] = #{arrangements with U ≤ u}
	total float64   // C(m+n, m)
}

// newUDist runs the recurrence N(u; i, j) = N(u−j; i−1, j) + N(u; i, j−1)
// over j = 1 … n with one count vector per i, truncated at ⌊mn/2⌋. Counts
// are float64: they are sums of positive terms, so the relative error stays
// at a few ulps even where they exceed 2^53.
func newUDist(m, n int) *uDist {
	if m > n {
		m, n = n, m // U is symmetric in the roles of m and n
	}
	half := m * n / 2
	rows := make([][]float64, m+1) // rows[i][u] = N(u; i, j) for the current j
	for i := range rows {
		rows[i] = make([]float64, 1, min(i*n, half)+1)
		rows[i][0] = 1
	}
	for j := 1; j <= n; j++ {
		for i := 1; i <= m; i++ {
			row, prev := rows[i], rows[i-1] // prev already holds N(·; i−1, j)
			for len(row) < min(i*j, half)+1 {
				row = append(row, 0)
			}
			for u := j; u < len(row) && u-j < len(prev); u++ {
				row[u] += prev[u-j]
			}
			rows[i] = row
		}
	}
	counts := rows[m]
	d := &uDist{mn: m * n, cum: make([]float64, len(counts))}
	var c float64
	for u, v := range counts {
		c += v
		d.cum[u] = c
	}
	// Total from the symmetric halves: the lower half, the upper half and,
	// when mn is even, the middle value once.
	d.total = 2 * d.cum[half]
	if d.mn%2 == 0 {
		d.total -= counts[half]
	}
	return d
}

// cdf returns P(U ≤ u).
func (d *uDist) cdf(u int) float64 {
	switch {
	case u < 0:
		return 0
	case u >= d.mn:
		return 1
	case u < len(d.cum):
		return d.cum[u] / d.total
	}
	// P(U ≤ u) = 1 − P(U ≥ u+1) = 1 − P(U ≤ mn−u−1), and mn−u−1 < ⌊mn/2⌋.
	return 1 - d.cum[d.mn-u-1]/d.total
}

// quantile returns R's qwilcox(p, m, n): the smallest u with P(U ≤ u) ≥ p.
func (d *uDist) quantile(p float64) int {
	u := 0
	for u < d.mn && d.cdf(u) < p {
		u++
	}
	return u
}

// normCDF is the standard normal distribution function Φ.
func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// normQuantile is Φ⁻¹(p) for 0 < p < 1.
func normQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
