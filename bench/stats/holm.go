package stats

import (
	"fmt"
	"math"
	"sort"
)

// Holm returns the Holm–Bonferroni adjusted p-values of a family, in the
// order given: the i-th smallest p becomes min(1, max_{j≤i} (m−j+1)·p₍ⱼ₎),
// as R's p.adjust(p, "holm"). Each adjusted value is at least its raw
// value, and the adjustment keeps the order of the p-values.
func Holm(p []float64) ([]float64, error) {
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("%w: p-value %d is %v, not in [0, 1]", ErrInvalidParameter, i, v)
		}
	}
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	adj := make([]float64, len(p))
	run := 0.0
	for r, i := range idx {
		run = math.Max(run, float64(len(p)-r)*p[i])
		adj[i] = math.Min(1, run)
	}
	return adj, nil
}

// Verdict is the outcome of a comparison for a measure where lower is
// better (time, bytes, energy).
type Verdict int

const (
	// NoDifference: not significant at α after the Holm adjustment.
	NoDifference Verdict = iota
	// Better: significantly lower than the baseline.
	Better
	// Worse: significantly higher than the baseline.
	Worse
)

// String returns the verdict as reports print it.
func (v Verdict) String() string {
	switch v {
	case NoDifference:
		return "no significant difference"
	case Better:
		return "better"
	case Worse:
		return "worse"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Decide judges a family of comparisons: results[i] is MannWhitney(candidate
// i, baseline), two-sided. It adjusts their p-values together by [Holm]
// and returns, for each, [Better] or [Worse] when the adjusted p-value is
// at most alpha (Holm 1979 rejects at p ≤ α/(m−i+1)) — better when Cliff's
// delta is negative, i.e. the candidate tends to be lower — and
// [NoDifference] otherwise, with the adjusted p-values.
//
// A pair of samples for which MannWhitney returned [ErrAllTied] belongs in
// the family as MWResult{P: 1}: identical samples, no difference.
func Decide(results []MWResult, alpha float64) ([]Verdict, []float64, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, nil, fmt.Errorf("%w: alpha %v outside (0, 1)", ErrInvalidParameter, alpha)
	}
	p := make([]float64, len(results))
	for i, r := range results {
		p[i] = r.P
	}
	adj, err := Holm(p)
	if err != nil {
		return nil, nil, err
	}
	v := make([]Verdict, len(results))
	for i, r := range results {
		switch {
		case adj[i] > alpha:
			v[i] = NoDifference
		case r.Delta < 0:
			v[i] = Better
		case r.Delta > 0:
			v[i] = Worse
		}
	}
	return v, adj, nil
}
