package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

func randSample(rng *rand.Rand, n int, shift float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64() + shift
	}
	return s
}

// TestExactMatchesNormal: without ties, for samples of 40 the exact and the
// approximate (continuity-corrected) p-values agree to 1e-2.
func TestExactMatchesNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		x := randSample(rng, 40, 0)
		y := randSample(rng, 45, float64(i%5)*0.2)
		ex, err1 := MannWhitney(x, y, &Options{Method: Exact})
		no, err2 := MannWhitney(x, y, &Options{Method: Normal})
		if err1 != nil || err2 != nil || !ex.Exact || no.Exact {
			t.Fatalf("%v %v", err1, err2)
		}
		if math.Abs(ex.P-no.P) > 1e-2 {
			t.Errorf("exact p %v, normal p %v", ex.P, no.P)
		}
		if math.Abs(ex.ShiftCI.Level-no.ShiftCI.Level) > 1e-2 {
			t.Errorf("exact coverage %v, normal %v", ex.ShiftCI.Level, no.ShiftCI.Level)
		}
	}
}

// TestUDistEnumeration checks the exact distribution of U against brute
// force: every way of choosing which m of the m+n ranks belong to x.
func TestUDistEnumeration(t *testing.T) {
	for m := 1; m <= 7; m++ {
		for n := 1; n <= 7; n++ {
			counts := make([]int, m*n+1)
			for mask := 0; mask < 1<<(m+n); mask++ {
				if popcount(mask) != m {
					continue
				}
				u, ys := 0, 0 // U counts (x, y) pairs with the y ranked lower
				for b := 0; b < m+n; b++ {
					if mask>>b&1 == 1 {
						u += ys
					} else {
						ys++
					}
				}
				counts[u]++
			}
			d := newUDist(m, n)
			total := new(big.Int).Binomial(int64(m+n), int64(m))
			if float64(total.Int64()) != d.total {
				t.Errorf("m %d n %d: total %v, want %v", m, n, d.total, total)
			}
			c := 0
			for u := 0; u <= m*n; u++ {
				c += counts[u]
				if got, want := d.cdf(u), float64(c)/d.total; math.Abs(got-want) > 1e-14 {
					t.Errorf("m %d n %d: P(U ≤ %d) = %v, want %v", m, n, u, got, want)
				}
			}
		}
	}
}

func popcount(v int) int {
	c := 0
	for ; v != 0; v &= v - 1 {
		c++
	}
	return c
}

// TestUDistLarge checks the normalisation of the float counts against
// math/big for sizes where the counts exceed 2^53.
func TestUDistLarge(t *testing.T) {
	for _, mn := range [][2]int{{49, 49}, {30, 49}, {100, 100}} {
		d := newUDist(mn[0], mn[1])
		want, _ := new(big.Float).SetInt(new(big.Int).Binomial(int64(mn[0]+mn[1]), int64(mn[0]))).Float64()
		if math.Abs(d.total/want-1) > 1e-12 {
			t.Errorf("%v: total %v, want %v", mn, d.total, want)
		}
	}
}

// TestKthDiff compares the selection of differences with sorting them.
func TestKthDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		x := make([]float64, 1+rng.IntN(12))
		y := make([]float64, 1+rng.IntN(12))
		for i := range x {
			x[i] = float64(rng.IntN(9)) - 4 + rng.Float64()*float64(rng.IntN(2))
		}
		for i := range y {
			y[i] = float64(rng.IntN(9)) - 4
		}
		sort.Float64s(x)
		sort.Float64s(y)
		var all []float64
		for _, a := range x {
			for _, b := range y {
				all = append(all, a-b)
			}
		}
		sort.Float64s(all)
		for k := 1; k <= len(all); k++ {
			if got := kthDiff(x, y, k); got != all[k-1] {
				t.Fatalf("kthDiff(%v, %v, %d) = %v, want %v", x, y, k, got, all[k-1])
			}
		}
	}
}

// TestMedianCIBinomial checks the median interval against the binomial
// distribution computed with math/big, for every n up to 80 and 3 levels.
func TestMedianCIBinomial(t *testing.T) {
	for n := 1; n <= 80; n++ {
		for _, level := range []float64{0.9, 0.95, 0.99} {
			cov := func(l int) float64 { // 1 − 2·P(B ≤ l−1), exactly
				s := new(big.Int)
				for j := 0; j < l; j++ {
					s.Add(s, new(big.Int).Binomial(int64(n), int64(j)))
				}
				r := new(big.Rat).SetFrac(s, new(big.Int).Lsh(big.NewInt(1), uint(n)))
				f, _ := r.Float64()
				return 1 - 2*f
			}
			want := 1
			for l := 2; l <= (n+1)/2 && cov(l) >= level; l++ {
				want = l
			}
			ci, err := MedianCI(seq(n), level)
			if err != nil || ci.Low != float64(want) || math.Abs(ci.Level-cov(want)) > 1e-12 {
				t.Errorf("n %d level %v: %+v, %v; want l = %d at %v", n, level, ci, err, want, cov(want))
			}
		}
	}
	// Large n: the coverage is at least the level and close to it.
	rng := rand.New(rand.NewPCG(5, 6))
	ci, err := MedianCI(randSample(rng, 100000, 0), 0.95)
	if err != nil || ci.Level < 0.95 || ci.Level > 0.951 || !(ci.Low < ci.High) {
		t.Errorf("n = 1e5: %+v, %v", ci, err)
	}
}

// TestMannWhitneyProperties: U1 + U2 = n1·n2, Cliff's delta is
// antisymmetric and A = (delta+1)/2, the two-sided p is symmetric, the
// shift changes sign, and the interval contains the estimate.
func TestMannWhitneyProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 200 {
		x := randSample(rng, 1+rng.IntN(60), 0)
		y := randSample(rng, 1+rng.IntN(60), rng.Float64())
		if i%2 == 0 { // ties
			for j := range x {
				x[j] = math.Round(x[j] * 2)
			}
			for j := range y {
				y[j] = math.Round(y[j] * 2)
			}
		}
		a, err1 := MannWhitney(x, y, nil)
		b, err2 := MannWhitney(y, x, nil)
		if err1 != nil || err2 != nil {
			continue // all tied
		}
		mn := float64(len(x) * len(y))
		if a.U1+a.U2 != mn || a.U1 != b.U2 || a.Delta != -b.Delta || math.Abs(a.A-(a.Delta+1)/2) > 1e-15 {
			t.Errorf("U/delta: %+v vs %+v", a, b)
		}
		if math.Abs(a.P-b.P) > 1e-12 || a.P < 0 || a.P > 1 {
			t.Errorf("p: %v vs %v", a.P, b.P)
		}
		if a.Shift != -b.Shift || a.ShiftCI.Low != -b.ShiftCI.High || a.ShiftCI.High != -b.ShiftCI.Low {
			t.Errorf("shift: %v %+v vs %v %+v", a.Shift, a.ShiftCI, b.Shift, b.ShiftCI)
		}
		if !(a.ShiftCI.Low <= a.Shift && a.Shift <= a.ShiftCI.High) {
			t.Errorf("estimate %v outside %+v", a.Shift, a.ShiftCI)
		}
	}
}

// TestHolmProperties: adjusted ≥ raw, ≤ 1, the order of the p-values is
// kept (monotone) and the input is not modified.
func TestHolmProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		p := make([]float64, rng.IntN(20))
		for i := range p {
			p[i] = rng.Float64()
			if rng.IntN(4) == 0 {
				p[i] /= 1000
			}
		}
		raw := slices.Clone(p)
		adj, err := Holm(p)
		if err != nil || !slices.Equal(p, raw) {
			t.Fatal(err)
		}
		for i := range p {
			if adj[i] < p[i] || adj[i] > 1 {
				t.Errorf("p %v adjusted to %v", p[i], adj[i])
			}
			for j := range p {
				if p[i] <= p[j] && adj[i] > adj[j] {
					t.Errorf("order broken: %v→%v, %v→%v", p[i], adj[i], p[j], adj[j])
				}
			}
		}
	}
}
