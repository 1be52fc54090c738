package report

import (
	"testing"

	"github.com/kexlab/kexlab/bench/stats"
)

func TestRankingAgreement(t *testing.T) {
	base := Run{Label: "one", Pairs: []Pair{
		{A: "a", B: "b", Verdict: stats.Better},
		{A: "a", B: "c", Verdict: stats.Worse},
		{A: "b", B: "c", Verdict: stats.Better},
		{A: "c", B: "d", Verdict: stats.Better},
		{A: "a", B: "d", Verdict: stats.NoDifference},
	}}
	later := Run{Label: "two", Pairs: []Pair{
		{A: "b", B: "a", Verdict: stats.Worse},        // same, stored the other way round
		{A: "a", B: "c", Verdict: stats.Better},       // reversed
		{A: "b", B: "c", Verdict: stats.NoDifference}, // lost significance
		{A: "a", B: "d", Verdict: stats.Better},       // not significant in the baseline: ignored
	}}
	got := RankingAgreement([]Run{base, later})
	if len(got) != 1 {
		t.Fatalf("%d agreements, want 1", len(got))
	}
	a := got[0]
	if a.Significant != 4 || a.Same != 1 || a.Reversed != 1 || a.Missing != 1 || a.NotSignificant() != 1 {
		t.Errorf("agreement %+v, not significant %d", a, a.NotSignificant())
	}
	if len(a.Reversals) != 1 || a.Reversals[0] != "a vs c" || a.Agrees() {
		t.Errorf("reversals %v, agrees %v", a.Reversals, a.Agrees())
	}
	if RankingAgreement([]Run{base}) != nil {
		t.Error("one run: want no agreement rows")
	}
	same := RankingAgreement([]Run{base, base})[0]
	if !same.Agrees() || same.Same != 4 {
		t.Errorf("a run against itself: %+v", same)
	}
}
