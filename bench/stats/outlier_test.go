package stats

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// The expected values below are worked by hand; there is no published
// example of the study's rule.
func TestFilter(t *testing.T) {
	ones := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 1
		}
		return s
	}
	// 19 ones and one 100: mean (19 + 100)/20 = 5.95, threshold 59.5.
	in := append(ones(19), 100)
	// 1, 1, 100: mean 34, threshold 340: a single pass keeps the outlier
	// that inflates the mean.
	// Tukey on {1 … 10, 20} (n = 11, sorted positions 0 … 10): Q1 at
	// h = 10·0.25 = 2.5 → 3.5, Q3 at h = 7.5 → 8.5, IQR 5. Fences at 1.5:
	// [−4, 16] drop 20; at 3: [−11.5, 23.5] keep it. Input unsorted: the
	// kept values stay in input order.
	tk := []float64{5, 20, 1, 9, 2, 8, 3, 7, 4, 6, 10}
	tkKept := []float64{5, 1, 9, 2, 8, 3, 7, 4, 6, 10}
	for _, c := range []struct {
		xs      []float64
		rule    Rule
		kept    []float64
		dropped int
	}{
		{in, None, in, 0},
		{in, TenTimesMean, ones(19), 1},
		{[]float64{1, 1, 100}, TenTimesMean, []float64{1, 1, 100}, 0},
		{[]float64{0, 0, 0}, TenTimesMean, []float64{0, 0, 0}, 0},
		{tk, Tukey15, tkKept, 1},
		{tk, Tukey3, tk, 0},
		{[]float64{4, 4, 4}, Tukey15, []float64{4, 4, 4}, 0},
		{nil, Tukey3, nil, 0},
	} {
		kept, dropped, err := Filter(c.xs, c.rule)
		if err != nil || dropped != c.dropped || !slices.Equal(kept, c.kept) {
			t.Errorf("Filter(%v, %v) = %v, %d, %v; want %v, %d", c.xs, c.rule, kept, dropped, err, c.kept, c.dropped)
		}
	}
	if _, _, err := Filter([]float64{1, -1}, TenTimesMean); !errors.Is(err, ErrInvalidParameter) {
		t.Errorf("TenTimesMean on a negative sample: error = %v, want ErrInvalidParameter", err)
	}
	if _, _, err := Filter([]float64{1}, Rule(42)); !errors.Is(err, ErrInvalidParameter) {
		t.Errorf("unknown rule: error = %v, want ErrInvalidParameter", err)
	}
	if _, _, err := Filter([]float64{1, math.NaN()}, None); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN: error = %v, want ErrNotFinite", err)
	}
	for _, r := range []Rule{None, TenTimesMean, Tukey15, Tukey3, Rule(9)} {
		if r.String() == "" {
			t.Errorf("Rule(%d) has no name", int(r))
		}
	}
}
