package cttest

import (
	"math"
	"testing"
)

// TestWelchT: a textbook value, computed by hand: means 2 and 5, sample
// variances 1 and 1, n = 3 each: t = -3 / sqrt(2/3).
func TestWelchT(t *testing.T) {
	got := WelchT([]float64{1, 2, 3}, []float64{4, 5, 6})
	if want := -3 / math.Sqrt(2.0/3); math.Abs(got-want) > 1e-12 {
		t.Errorf("t = %v, want %v", got, want)
	}
	a, b := Crop([]float64{1, 2, 100}, []float64{3, 4, 200}, 0.5)
	if len(a) != 2 || len(b) != 1 {
		t.Errorf("Crop: %v %v", a, b)
	}
}

// TestTimeClassesSeesADifference: a class that runs ten times longer is found.
func TestTimeClassesSeesADifference(t *testing.T) {
	sink := 0
	tv := Repeated(t, 3, 300, func(c int) {
		for i := 0; i < 2000*(1+9*c); i++ {
			sink += i
		}
	})
	if tv < Limit {
		t.Errorf("|t| = %.1f for a tenfold difference", tv)
	}
	_ = sink
}
