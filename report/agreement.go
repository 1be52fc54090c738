package report

import (
	"github.com/kexlab/kexlab/bench/stats"
)

// Agreement says how far a later run reproduces the significant verdicts
// of the first run: for every pair of schemes that the first run calls
// significantly different (better or worse after Holm), whether the later
// run gives the same significant verdict, a reversed one, or none.
type Agreement struct {
	Run, Baseline string
	Significant   int      // pairs significant in the baseline run
	Same          int      // of those, significant in the same direction in Run
	Reversed      int      // of those, significant in the opposite direction
	Missing       int      // of those, absent from Run (a scheme not measured there)
	Reversals     []string // "A vs B" for each reversed pair
}

// Agrees reports whether no significant verdict of the baseline was
// reversed and none lost its significance.
func (a Agreement) Agrees() bool {
	return a.Same == a.Significant
}

// RankingAgreement compares every later run's pairwise verdicts with the
// first run's.
func RankingAgreement(runs []Run) []Agreement {
	if len(runs) < 2 {
		return nil
	}
	type key struct{ a, b string }
	verdicts := func(r Run) map[key]stats.Verdict {
		m := map[key]stats.Verdict{}
		for _, p := range r.Pairs {
			if p.Err != "" {
				continue
			}
			m[key{p.A, p.B}] = p.Verdict
			m[key{p.B, p.A}] = flip(p.Verdict)
		}
		return m
	}
	base := runs[0]
	var out []Agreement
	for _, r := range runs[1:] {
		later := verdicts(r)
		ag := Agreement{Run: r.Label, Baseline: base.Label}
		for _, p := range base.Pairs {
			if p.Err != "" || p.Verdict == stats.NoDifference {
				continue
			}
			ag.Significant++
			v, ok := later[key{p.A, p.B}]
			switch {
			case !ok:
				ag.Missing++
			case v == p.Verdict:
				ag.Same++
			case v == flip(p.Verdict):
				ag.Reversed++
				ag.Reversals = append(ag.Reversals, p.A+" vs "+p.B)
			}
		}
		out = append(out, ag)
	}
	return out
}

// flip turns the verdict of A against B into that of B against A.
func flip(v stats.Verdict) stats.Verdict {
	switch v {
	case stats.Better:
		return stats.Worse
	case stats.Worse:
		return stats.Better
	}
	return v
}

// NotSignificant is the number of the baseline's significant pairs that the
// later run measured but found not significantly different.
func (a Agreement) NotSignificant() int {
	return a.Significant - a.Same - a.Reversed - a.Missing
}
