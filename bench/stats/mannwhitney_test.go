package stats

import (
	"errors"
	"math"
	"testing"
)

// rep is R's rep(1:len(counts), counts).
func rep(counts ...int) []float64 {
	var s []float64
	for v, c := range counts {
		for range c {
			s = append(s, float64(v+1))
		}
	}
	return s
}

// mwCase is one wilcox.test(x, y, ...) call whose output is printed in a
// source; W and p are as printed (p to 4 significant digits, R's
// format.pval default).
type mwCase struct {
	name  string
	x, y  []float64
	opt   Options
	exact bool
	w, p  float64
}

// Published wilcox.test outputs.
var mwCases = []mwCase{
	// R's ?wilcox.test, two-sample example (Hollander & Wolfe (1973), 69f.,
	// permeability constants of the human chorioamnion): wilcox.test(x, y,
	// alternative = "g") prints "Wilcoxon rank sum exact test ... W = 35,
	// p-value = 0.1272", and with exact = FALSE, correct = FALSE ("H&W large
	// sample approximation") "W = 35, p-value = 0.1103". The same data with
	// exact=FALSE, correct=FALSE and alternative 'less' / 'two.sided' print
	// 0.8897 / 0.2207 in a transcript of R sessions on the book data
	// (code-corpus excerpt "*** BOOK DATA ***").
	{"H&W greater exact", hwX, hwY, Options{Alternative: Greater}, true, 35, 0.1272},
	{"H&W greater normal", hwX, hwY, Options{Alternative: Greater, Method: Normal, NoCorrection: true}, false, 35, 0.1103},
	{"H&W less normal", hwX, hwY, Options{Alternative: Less, Method: Normal, NoCorrection: true}, false, 35, 0.8897},
	{"H&W two-sided normal", hwX, hwY, Options{Method: Normal, NoCorrection: true}, false, 35, 0.2207},
	// Two-sided exact, derived from the printed one-sided value: U has
	// C(15, 5) = 3003 equally likely arrangements and P(U ≥ 35) prints as
	// 0.1272, so its count c satisfies 0.12715·3003 ≤ c < 0.12725·3003,
	// i.e. 381.8 ≤ c < 382.1: c = 382. R's two-sided p is 2·382/3003 =
	// 0.254412…, printed 0.2544.
	{"H&W two-sided exact", hwX, hwY, Options{}, true, 35, 0.2544},
	// I. Ruczinski, JHSPH course code "c.pnp"
	// (https://biostat.jhsph.edu/~iruczins/teaching/materials/code/pnp/c.pnp.html):
	// wilcox.test(x, y): "Wilcoxon rank sum exact test ... W = 8, p-value = 0.02557".
	{"JHSPH exact", []float64{43.3, 57.1, 35.0, 50.0, 38.2, 61.2},
		[]float64{51.9, 95.1, 90.0, 49.7, 101.5, 74.1, 84.5, 46.8, 75.1}, Options{}, true, 8, 0.02557},
	// S. Aoki, Gunma University lecture notes
	// (http://aoki2.si.gunma-u.ac.jp/lecture/Average/U-test-r.html):
	// wilcox.test(c(1.2,1.5,1.8,2.6), c(1.3,1.9,2.9,3.1,3.9)): "W = 4, p-value = 0.1905".
	{"Aoki exact", aokiX, aokiY, Options{}, true, 4, 0.1905},
	// r-help, 2 Oct 2013, "Interpreting the result of a Wilcoxon
	// (Mann-Whitney U) test"
	// (https://stat.ethz.ch/pipermail/r-help/2013-October/360972.html):
	// exact=FALSE, ties: W = 145, p-value 0.08969 (two-sided), 0.04485
	// (less), 0.9582 (greater), "Wilcoxon rank sum test with continuity
	// correction".
	{"r-help two-sided", rhA, rhB, Options{Method: Normal}, false, 145, 0.08969},
	{"r-help less", rhA, rhB, Options{Method: Normal, Alternative: Less}, false, 145, 0.04485},
	{"r-help greater", rhA, rhB, Options{Method: Normal, Alternative: Greater}, false, 145, 0.9582},
	// endmemo.com, "R wilcox.test" (https://endmemo.com/r/wilcoxon.php):
	// ties, so R uses the normal approximation with continuity correction:
	// "W = 51.5, p-value = 0.5966" and, with the second y, "W = 0, p-value = 0.001364".
	{"endmemo 1", emX, []float64{12, 15, 5, 9, 9, 14, 56, 22, 3, 7, 32, 5}, Options{}, false, 51.5, 0.5966},
	{"endmemo 2", emX, []float64{1233, 4356, 987, 39999, 1111, 200000}, Options{}, false, 0, 0.001364},
	// "R:: Mann Whitney U test", sanchitatewari.blogspot.com, 2010-08-11:
	// wilcox.test(l, ll, paired=F, exact=F): "W = 5.5, p-value = 0.005907",
	// and with the samples swapped "W = 58.5, p-value = 0.005907".
	{"blog l ll", blogL, blogLL, Options{}, false, 5.5, 0.005907},
	{"blog ll l", blogLL, blogL, Options{}, false, 58.5, 0.005907},
	// S. García Prado, github.com/garciparedes/r-examples,
	// statistical-inference/non-parametric/exercise-10.r: heavily tied
	// counts, wilcox.test(x, y, "two.sided", correct = FALSE, exact = TRUE)
	// (exact impossible with ties): "W = 10756, p-value = 0.2123".
	{"garciparedes 10", rep(60, 21, 11, 4, 3, 1), rep(130, 50, 10, 6, 4, 0), Options{Method: Exact, NoCorrection: true}, false, 10756, 0.2123},
	// exercise-09.r: wilcox.test(y, x, alternative = "greater", correct =
	// FALSE, exact = TRUE): "W = 700, p-value = 0.8431".
	{"garciparedes 09", rep(7, 9, 15, 9), rep(5, 7, 16, 12), Options{Alternative: Greater, Method: Exact, NoCorrection: true}, false, 700, 0.8431},
}

var (
	hwX    = []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	hwY    = []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	aokiX  = []float64{1.2, 1.5, 1.8, 2.6}
	aokiY  = []float64{1.3, 1.9, 2.9, 3.1, 3.9}
	rhA    = []float64{1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 2, 1, 5, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 3, 1, 1}
	rhB    = []float64{1, 2, 1, 1, 2, 3, 2, 2, 1, 2, 1, 1, 1, 2}
	emX    = []float64{1, 5, 9, 24, 56, 21, 3, 7, 21, 4}
	blogL  = []float64{6, 4.8, 5.1, 5.5, 4.1, 5.3, 4.5, 5.1}
	blogLL = []float64{6.5, 5.5, 6.3, 7.2, 6.8, 5.5, 5.9, 5.5}
)

func TestMannWhitneyPublished(t *testing.T) {
	for _, c := range mwCases {
		r, err := MannWhitney(c.x, c.y, &c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if r.U1 != c.w || r.Exact != c.exact || !closeTo(r.P, c.p, 4) {
			t.Errorf("%s: W = %v, p = %v, exact = %v; want W = %v, p = %v, exact = %v", c.name, r.U1, r.P, r.Exact, c.w, c.p, c.exact)
		}
		if r.U1+r.U2 != float64(len(c.x)*len(c.y)) {
			t.Errorf("%s: U1 + U2 = %v", c.name, r.U1+r.U2)
		}
	}
}

// TestMannWhitneyByHand checks exact p-values whose null distribution is
// small enough to count by hand.
func TestMannWhitneyByHand(t *testing.T) {
	// males = [19, 22, 16, 29, 24], females = [20, 11, 17, 12] (the
	// scipy.stats.mannwhitneyu example): U1 counts male > female pairs:
	// 19:3, 22:4, 16:2, 29:4, 24:4, so U1 = 17, U2 = 3. P(U ≤ 3) for sizes
	// 5 and 4 counts the partitions of u = 0, 1, 2, 3 into at most 4 parts
	// of size at most 5: 1 + 1 + 2 + 3 = 7 of C(9, 4) = 126, so the
	// two-sided p is 14/126 = 1/9.
	r, err := MannWhitney([]float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12}, nil)
	if err != nil || r.U1 != 17 || r.U2 != 3 || !r.Exact || math.Abs(r.P-1.0/9) > 1e-15 {
		t.Errorf("males/females: %+v, %v; want U1 17, exact p 1/9", r, err)
	}
	// One observation each: U ∈ {0, 1} with probability ½ each; x < y gives
	// U1 = 0 and p = min(1, 2·½) = 1.
	r, err = MannWhitney([]float64{1}, []float64{2}, nil)
	if err != nil || r.U1 != 0 || r.P != 1 || r.Delta != -1 || r.A != 0 || r.Shift != -1 {
		t.Errorf("1 vs 2: %+v, %v", r, err)
	}
}

// TestShiftPublished checks the Hodges–Lehmann estimate against R.
func TestShiftPublished(t *testing.T) {
	// PSI CAMIS, "Non-parametric point estimation"
	// (https://psiaims.github.io/CAMIS/R/nparestimate.html): Hollander-
	// Wolfe-Chicken data as two samples, wilcox.test(x, y, exact = TRUE,
	// conf.int = TRUE)$estimate prints "difference in location 0.5600562".
	// y has ties, so R finds the estimate with uniroot (tol.root = 1e-4);
	// n1·n2 = 81 is odd, so that root is the 41st smallest difference,
	// the median: the two agree to the root finder's tolerance.
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.050, 1.060, 1.290, 1.060, 3.140, 1.290}
	r, err := MannWhitney(x, y, nil)
	if err != nil || r.Exact || math.Abs(r.Shift-0.5600562) > 1e-4 {
		t.Errorf("CAMIS estimate = %v (exact %v), %v; want 0.5600562", r.Shift, r.Exact, err)
	}
}

// TestShiftByHand checks the shift interval on differences listed by hand.
func TestShiftByHand(t *testing.T) {
	// Aoki's data (exact, no ties). The 20 differences x − y, sorted:
	// −2.7 −2.4 −2.1 −1.9 −1.7 −1.6 −1.4 −1.3 −1.3 −1.1 −0.7 −0.5 −0.4 −0.3
	// −0.1 −0.1 0.2 0.5 0.7 1.3. The median is (−1.1 − 0.7)/2 = −0.9. For
	// sizes 4 and 5 the counts of U = 0, 1, 2, 3, 4 are 1, 1, 2, 3, 5
	// (cumulative 12 agrees with the printed two-sided p 0.1905 = 24/126).
	// qwilcox(0.025) is the smallest u with count ≥ 0.025·126 = 3.15: u = 2
	// (cumulative 4). The interval is [d(2), d(19)] = [−2.4, 0.7] with
	// coverage 1 − 2·P(U ≤ 1) = 1 − 4/126.
	r, err := MannWhitney(aokiX, aokiY, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Interval{Low: -2.4, High: 0.7, Level: 1 - 4.0/126, Exact: true}
	if !near(r.Shift, -0.9) || !nearCI(r.ShiftCI, want) {
		t.Errorf("Aoki: shift %v, CI %+v; want −0.9, %+v", r.Shift, r.ShiftCI, want)
	}
	// Sizes 3 and 4: P(U ≤ 0) = 1/35 ≥ 0.025 already, so qwilcox gives 0,
	// R moves to 1 and the interval is the whole range of the differences,
	// [1 − 7, 3 − 4], with its coverage 1 − 2/35 < 95%.
	r, err = MannWhitney([]float64{1, 2, 3}, []float64{4, 5, 6, 7}, nil)
	want = Interval{Low: -6, High: -1, Level: 1 - 2.0/35, Exact: true}
	if err != nil || !nearCI(r.ShiftCI, want) {
		t.Errorf("3 vs 4: CI %+v, %v; want %+v", r.ShiftCI, err, want)
	}
	// Normal approximation with ties: x = 1 2 2 3 4 5, y = 3 4 5 5 6 7.
	// Within-sample ties: one pair in x, one in y, Σ(t³ − t) = 12, so
	// σw² = 36/12·(13 − 12/132) = 38.727, σw = 6.2231. With z = 1.95996
	// and the continuity correction, k = ⌈18 − 0.5 − 12.197⌉ = ⌈5.303⌉ = 6.
	// The 36 differences by value (count): −6 (1), −5 (3), −4 (5), −3 (7),
	// −2 (7), −1 (6), 0 (4), 1 (2), 2 (1); cumulative 1 4 9 16 23 29 33 35
	// 36. d(6) = −4, d(31) = 0, d(18) = d(19) = −2. Coverage by the normal
	// approximation: 1 − 2·Φ((5 + 0.5 − 18)/6.2231) = 1 − 2·Φ(−2.0087) ≈
	// 1 − 2·0.0223 = 0.955 (normal table).
	r, err = MannWhitney([]float64{1, 2, 2, 3, 4, 5}, []float64{3, 4, 5, 5, 6, 7}, nil)
	if err != nil || r.Exact || r.Shift != -2 || r.ShiftCI.Low != -4 || r.ShiftCI.High != 0 ||
		r.ShiftCI.Exact || math.Abs(r.ShiftCI.Level-0.955) > 1e-3 {
		t.Errorf("tied: shift %v, CI %+v, %v; want −2, [−4, 0] at ≈0.955", r.Shift, r.ShiftCI, err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func nearCI(a, b Interval) bool {
	return near(a.Low, b.Low) && near(a.High, b.High) && near(a.Level, b.Level) && a.Exact == b.Exact
}

// TestEffectSizesPublished checks Cliff's delta and the Vargha–Delaney A.
func TestEffectSizesPublished(t *testing.T) {
	for _, c := range []struct {
		name     string
		x, y     []float64
		delta, a float64
	}{
		// effsize package tests (github.com/mtorchiano/effsize,
		// tests/testthat/testCliff.R), R output quoted there:
		// cliff.delta(treatment, control) "delta estimate: -0.25 (small)".
		// By hand: Σ over treatment of (#control below − #control above) =
		// 2·(−5) + 3·(−3) + 3·(−1) + 2 + 5 = −15, over 60 pairs.
		{"effsize small", []float64{10, 10, 20, 20, 20, 30, 30, 30, 40, 50}, []float64{10, 20, 30, 40, 40, 50}, -0.25, 0.375},
		// Same file: estimate −0.06666 (by hand −4/60).
		{"effsize negligible", []float64{10, 20, 20, 20, 30, 30, 30, 40, 50, 100}, []float64{10, 20, 30, 40, 40, 50}, -4.0 / 60, 28.0 / 60},
		// S. Mangiafico's R handbook (Spanish edition), Mann–Whitney effect
		// sizes, cliff.delta(B, A): "delta estimate: 0.4375 (medium)" — "un
		// VDA de 0.719" —, 0.75 (VDA 0.875), 1 (VDA 1) and 0 (VDA 0.5).
		{"handbook 0.4375", hbB(2), hbB(1), 0.4375, 0.71875},
		{"handbook 0.75", hbB(3), hbB(1), 0.75, 0.875},
		{"handbook 1", hbB(5), hbB(1), 1, 1},
		{"handbook 0", hbB(1), hbB(1), 0, 0.5},
	} {
		d, err1 := CliffsDelta(c.x, c.y)
		a, err2 := VarghaDelaneyA(c.x, c.y)
		if err1 != nil || err2 != nil || !near(d, c.delta) || !near(a, c.a) {
			t.Errorf("%s: delta %v, A %v (%v, %v); want %v, %v", c.name, d, a, err1, err2, c.delta, c.a)
		}
		if r, err := MannWhitney(c.x, c.y, nil); err == nil && (!near(r.Delta, c.delta) || !near(r.A, c.a)) {
			t.Errorf("%s: MannWhitney delta %v, A %v", c.name, r.Delta, r.A)
		}
	}
}

// hbB returns the handbook's samples: from, from, from, …, from+3 (each
// value three times).
func hbB(from float64) []float64 {
	var s []float64
	for v := from; v < from+4; v++ {
		s = append(s, v, v, v)
	}
	return s
}

func TestMannWhitneyErrors(t *testing.T) {
	one := []float64{1}
	for _, c := range []struct {
		x, y []float64
		opt  *Options
		want error
	}{
		{nil, one, nil, ErrTooFewSamples},
		{one, []float64{}, nil, ErrTooFewSamples},
		{[]float64{1, math.NaN()}, one, nil, ErrNotFinite},
		{one, []float64{math.Inf(-1)}, nil, ErrNotFinite},
		{[]float64{3, 3}, []float64{3, 3, 3}, nil, ErrAllTied},
		{one, []float64{2}, &Options{Level: 1.5}, ErrInvalidParameter},
		{one, []float64{2}, &Options{Alternative: 7}, ErrInvalidParameter},
		{one, []float64{2}, &Options{Method: -1}, ErrInvalidParameter},
	} {
		if _, err := MannWhitney(c.x, c.y, c.opt); !errors.Is(err, c.want) {
			t.Errorf("MannWhitney(%v, %v, %+v) error = %v, want %v", c.x, c.y, c.opt, err, c.want)
		}
	}
	if _, err := CliffsDelta(nil, one); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("CliffsDelta(nil) error = %v", err)
	}
	if _, err := VarghaDelaneyA(one, []float64{math.NaN()}); !errors.Is(err, ErrNotFinite) {
		t.Errorf("VarghaDelaneyA(NaN) error = %v", err)
	}
	// Identical samples have a well-defined delta even though the test
	// cannot run.
	if d, err := CliffsDelta([]float64{3, 3}, []float64{3}); err != nil || d != 0 {
		t.Errorf("CliffsDelta(all tied) = %v, %v", d, err)
	}
	// Both samples constant but different: not all tied, the test runs.
	r, err := MannWhitney([]float64{5, 5, 5}, []float64{7, 7}, nil)
	if err != nil || r.Delta != -1 || r.Shift != -2 || r.ShiftCI.Low != -2 || r.ShiftCI.High != -2 {
		t.Errorf("constant samples: %+v, %v", r, err)
	}
}
