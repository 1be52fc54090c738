package stats

import (
	"errors"
	"math"
	"testing"
)

// closeTo reports whether got matches a value printed with digits
// significant digits: |got − want| ≤ half a unit in the last printed digit.
func closeTo(got, want float64, digits int) bool {
	if want == 0 {
		return math.Abs(got) < 0.5*math.Pow(10, float64(-digits))
	}
	unit := math.Pow(10, math.Floor(math.Log10(math.Abs(want)))-float64(digits-1))
	return math.Abs(got-want) <= unit/2*(1+1e-9)
}

func seq(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i + 1)
	}
	return s
}

// TestQuantileType7 checks R's default quantile (type 7) against values
// printed in R documentation.
func TestQuantileType7(t *testing.T) {
	// TIBCO Enterprise Runtime for R, Language Reference, stats/quantile
	// (https://docs.tibco.com/pub/enterprise-runtime-for-R/6.1.0/doc/html/Language_Reference/stats/quantile.html),
	// type = 7 is the default:
	//   quantile(1:9, probs=seq(0,1,.1))
	//   # 1.0 1.8 2.6 3.4 4.2 5.0 5.8 6.6 7.4 8.2 9.0
	want := []float64{1.0, 1.8, 2.6, 3.4, 4.2, 5.0, 5.8, 6.6, 7.4, 8.2, 9.0}
	for i, w := range want {
		p := float64(i) / 10
		got, err := Quantile(seq(9), p)
		if err != nil || math.Abs(got-w) > 1e-12 {
			t.Errorf("Quantile(1:9, %v) = %v, %v; want %v", p, got, err, w)
		}
	}
	// summary() of the Rater column 1:10, printed in S. Mangiafico's R
	// handbook (one-sample Wilcoxon chapter): "1st Qu.: 3.25, Median : 5.50,
	// 3rd Qu.: 7.75". Shuffled input: Quantile must sort.
	x := []float64{7, 3, 10, 1, 5, 9, 2, 8, 4, 6}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.25, 3.25}, {0.5, 5.5}, {0.75, 7.75}, {1, 10}} {
		if got, err := Quantile(x, c.p); err != nil || got != c.want {
			t.Errorf("Quantile(1:10, %v) = %v, %v; want %v", c.p, got, err, c.want)
		}
	}
	if _, err := Quantile(x, 1.5); !errors.Is(err, ErrInvalidParameter) {
		t.Errorf("Quantile(p = 1.5) error = %v, want ErrInvalidParameter", err)
	}
	if _, err := Quantile(nil, 0.5); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("Quantile(nil) error = %v, want ErrTooFewSamples", err)
	}
}

// TestSummarizePublished checks a summary printed by FSA::Summarize in S.
// Mangiafico's R handbook (Spanish edition, "Prueba de Wilcoxon de una
// muestra", Maggie Simpson's Likert scores 3 4 5 4 4 4 4 3 2 5):
//
//	n 10, mean 3.8, sd 0.919, min 2, Q1 3.25, median 4, Q3 4, max 5
func TestSummarizePublished(t *testing.T) {
	s, err := Summarize([]float64{3, 4, 5, 4, 4, 4, 4, 3, 2, 5})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 10 || s.Min != 2 || s.Q1 != 3.25 || s.Median != 4 || s.Q3 != 4 || s.Max != 5 || s.IQR != 0.75 {
		t.Errorf("Summarize = %+v", s)
	}
	if !closeTo(s.Mean, 3.8, 2) || !closeTo(s.SD, 0.919, 3) {
		t.Errorf("mean, sd = %v, %v; want 3.8, 0.919", s.Mean, s.SD)
	}
	// CV = SD/mean; by hand SD² = 7.6/9 (squared deviations 3.24 + 2·0.64 +
	// 5·0.04 + 2·1.44 = 7.6), so CV = √(7.6/9)/3.8.
	if want := math.Sqrt(7.6/9) / 3.8; math.Abs(s.CV-want) > 1e-15 {
		t.Errorf("CV = %v, want %v", s.CV, want)
	}
	// The textbook set {2, 4, 4, 4, 5, 5, 7, 9} (Wikipedia, "Standard
	// deviation"): mean 5, squared deviations sum to 32, so the sample SD
	// is √(32/7).
	s, err = Summarize([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if err != nil || s.Mean != 5 || math.Abs(s.SD-math.Sqrt(32.0/7)) > 1e-15 {
		t.Errorf("Summarize = %+v, %v; want mean 5, SD √(32/7)", s, err)
	}
}

// TestMedianCITable checks the order statistics and the coverage of the
// interval against Table A.7, "Confidence intervals for the population
// median" (https://www.coursehero.com/file/5646626/A7/), which prints for
// each n the intervals [x(l), x(n+1−l)] with their confidence level to
// 0.1%. The interval expected is the narrowest one listed whose level is at
// least 95%, or [x(1), x(n)] when none is.
func TestMedianCITable(t *testing.T) {
	for _, c := range []struct {
		n, l  int
		level float64 // percent, as printed
	}{
		{2, 1, 50.0}, {3, 1, 75.0}, {4, 1, 87.5}, {5, 1, 93.8}, {6, 1, 96.9},
		{7, 1, 98.4}, {8, 1, 99.2}, {9, 2, 96.1}, {10, 2, 97.9}, {11, 2, 98.8},
		{12, 3, 96.1}, {13, 3, 97.8}, {14, 3, 98.7}, {15, 4, 96.5}, {16, 4, 97.9},
		{17, 5, 95.1}, {18, 5, 96.9}, {19, 5, 98.1}, {20, 6, 95.9},
	} {
		ci, err := MedianCI(seq(c.n), 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if ci.Low != float64(c.l) || ci.High != float64(c.n+1-c.l) || !ci.Exact ||
			math.Abs(100*ci.Level-c.level) > 0.05+1e-9 {
			t.Errorf("n = %d: MedianCI = %+v; want [x(%d), x(%d)] at %.1f%%", c.n, ci, c.l, c.n+1-c.l, c.level)
		}
	}
	// Exact values by hand: n = 10, l = 2: 1 − 2·P(B ≤ 1) = 1 − 2·11/1024.
	// n = 5, l = 1: 1 − 2·P(B = 0) = 1 − 2/32. n = 1: [x, x], coverage 0.
	for _, c := range []struct {
		n    int
		want float64
	}{{10, 1 - 22.0/1024}, {5, 1 - 2.0/32}, {1, 0}} {
		ci, _ := MedianCI(seq(c.n), 0.95)
		if math.Abs(ci.Level-c.want) > 1e-15 {
			t.Errorf("n = %d: coverage %v, want %v", c.n, ci.Level, c.want)
		}
	}
}

func TestSummarizeEdgeCases(t *testing.T) {
	for _, xs := range [][]float64{nil, {}, {1}} {
		if _, err := Summarize(xs); !errors.Is(err, ErrTooFewSamples) {
			t.Errorf("Summarize(%v) error = %v, want ErrTooFewSamples", xs, err)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := Summarize([]float64{1, bad, 3}); !errors.Is(err, ErrNotFinite) {
			t.Errorf("Summarize with %v: error = %v, want ErrNotFinite", bad, err)
		}
		if _, err := MedianCI([]float64{bad}, 0.95); !errors.Is(err, ErrNotFinite) {
			t.Errorf("MedianCI with %v: error = %v, want ErrNotFinite", bad, err)
		}
	}
	s, err := Summarize([]float64{7, 7, 7, 7})
	if err != nil || s.Mean != 7 || s.SD != 0 || s.CV != 0 || s.IQR != 0 || s.MedianCI.Low != 7 || s.MedianCI.High != 7 {
		t.Errorf("Summarize(all 7) = %+v, %v", s, err)
	}
	s, err = Summarize([]float64{-1, 1})
	if err != nil || s.Mean != 0 || !math.IsInf(s.CV, 1) {
		t.Errorf("Summarize(-1, 1) = %+v, %v; want CV +Inf", s, err)
	}
	// Values near the float64 limit must not overflow the mean.
	big := math.MaxFloat64
	s, err = Summarize([]float64{big, big, big})
	if err != nil || s.Mean != big || s.SD != 0 {
		t.Errorf("Summarize(MaxFloat64 ×3) = %+v, %v", s, err)
	}
	for _, level := range []float64{0, 1, -0.5, math.NaN()} {
		if _, err := MedianCI([]float64{1, 2}, level); !errors.Is(err, ErrInvalidParameter) {
			t.Errorf("MedianCI(level %v) error = %v, want ErrInvalidParameter", level, err)
		}
	}
	// The input is not reordered.
	in := []float64{3, 1, 2}
	if _, err := Summarize(in); err != nil || in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("Summarize modified its input: %v", in)
	}
}
