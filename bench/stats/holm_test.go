package stats

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestHolmPublished(t *testing.T) {
	// stdlib.js documentation, @stdlib/stats/padjust
	// (https://stdlib.io/docs/api/latest/@stdlib/stats/padjust):
	//   padjust([0.319, 0.201, 0.4, 0.374, 0.113], 'holm')
	//   // returns [ ~0.957, 0.804, ..., ~0.957, ~0.565 ]
	// By hand: sorted 0.113·5 = 0.565, 0.201·4 = 0.804, 0.319·3 = 0.957,
	// 0.374·2 = 0.748 → running max 0.957, 0.4·1 → 0.957; the elided third
	// entry is therefore 0.957.
	got, err := Holm([]float64{0.319, 0.201, 0.4, 0.374, 0.113})
	want := []float64{0.957, 0.804, 0.957, 0.957, 0.565}
	if err != nil || !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
		t.Errorf("Holm = %v, %v; want %v", got, err, want)
	}
	// Capped at 1; ties keep their order; an empty family is empty.
	got, _ = Holm([]float64{0.5, 0.5, 0.01})
	if !slices.Equal(got, []float64{1, 1, 0.03}) {
		t.Errorf("Holm(0.5, 0.5, 0.01) = %v", got)
	}
	if got, err := Holm(nil); err != nil || len(got) != 0 {
		t.Errorf("Holm(nil) = %v, %v", got, err)
	}
	for _, bad := range []float64{-0.1, 1.1, math.NaN()} {
		if _, err := Holm([]float64{0.1, bad}); !errors.Is(err, ErrInvalidParameter) {
			t.Errorf("Holm(%v) error = %v, want ErrInvalidParameter", bad, err)
		}
	}
}

func TestDecide(t *testing.T) {
	// Wikipedia, "Holm–Bonferroni method", example: four hypotheses with
	// p-values 0.01, 0.04, 0.03 and 0.005 at α = 0.05: H1 and H4 are
	// rejected, H2 and H3 are not. Adjusted by hand: 0.005·4 = 0.02,
	// 0.01·3 = 0.03, 0.03·2 = 0.06, max(0.04·1, 0.06) = 0.06.
	results := []MWResult{
		{P: 0.01, Delta: -0.8}, // lower than the baseline: better
		{P: 0.04, Delta: -0.6},
		{P: 0.03, Delta: 0.7},
		{P: 0.005, Delta: 0.9}, // higher: worse
	}
	v, adj, err := Decide(results, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v, []Verdict{Better, NoDifference, NoDifference, Worse}) {
		t.Errorf("verdicts = %v", v)
	}
	wantAdj := []float64{0.03, 0.06, 0.06, 0.02}
	if !slices.EqualFunc(adj, wantAdj, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
		t.Errorf("adjusted = %v, want %v", adj, wantAdj)
	}
	// End to end: x clearly below y is better; identical samples are
	// entered as MWResult{P: 1}.
	r, err := MannWhitney(seq(20), []float64{30, 31, 32, 33, 34, 35, 36, 37, 38, 39}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err = Decide([]MWResult{r, {P: 1}}, 0.05)
	if err != nil || v[0] != Better || v[1] != NoDifference {
		t.Errorf("Decide = %v, %v", v, err)
	}
	for _, a := range []float64{0, 1, math.NaN()} {
		if _, _, err := Decide(results, a); !errors.Is(err, ErrInvalidParameter) {
			t.Errorf("Decide(alpha %v) error = %v", a, err)
		}
	}
	if _, _, err := Decide([]MWResult{{P: 2}}, 0.05); !errors.Is(err, ErrInvalidParameter) {
		t.Errorf("Decide(p = 2) error = %v", err)
	}
	for _, x := range []Verdict{NoDifference, Better, Worse, Verdict(5)} {
		if x.String() == "" {
			t.Errorf("Verdict(%d) has no name", int(x))
		}
	}
}
