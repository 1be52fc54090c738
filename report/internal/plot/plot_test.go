package plot

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestLogScaleTicks(t *testing.T) {
	s := newLogScale(1000, 1e6, 0, 100)
	ticks := s.ticks()
	if len(ticks) == 0 || len(ticks) > 8 {
		t.Fatalf("ticks %v", ticks)
	}
	for _, v := range ticks {
		if x := s.at(v); x < 0 || x > 100 {
			t.Errorf("tick %v at %v outside the axis", v, x)
		}
	}
	if s.at(1000) >= s.at(1e6) {
		t.Error("scale not increasing")
	}
}

// TestScatterExtremeValues: huge, infinite and tiny values still draw, in
// bounded time (an infinite bound once made the tick loop run forever).
func TestScatterExtremeValues(t *testing.T) {
	pts := []Point{{Label: "a", X: 1e308, Y: math.Inf(1)}, {Label: "b", X: 1e-320, Y: 1e303}, {Label: "c", X: 5, Y: 7}}
	f := func(v float64) string { return "v" }
	if svg := Scatter("t", "x", "y", pts, f, f); !strings.Contains(svg, "<svg") {
		t.Error("no SVG")
	}
}

// Every marker of a scatter plot is labelled, the hollow ones (the study's
// accounting) too, in grey below the point.
func TestScatterLabelsHollow(t *testing.T) {
	svg := Scatter("t", "x", "y", []Point{{Label: "srp", X: 848, Y: 2e6}, {Label: "srp (study)", X: 824, Y: 2e6, Open: true}}, fmtNum, fmtNum)
	for _, want := range []string{`font-size="10">srp</text>`, `fill="#777">srp (study)</text>`} {
		if !strings.Contains(svg, want) {
			t.Errorf("scatter lacks %q", want)
		}
	}
}

func fmtNum(v float64) string { return fmt.Sprint(v) }
