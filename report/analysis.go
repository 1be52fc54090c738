// Package report turns measurement runs ([bench.Results]) into a
// self-contained HTML report: tables, inline SVG figures (no scripts, no
// external assets) and the statistics of package bench/stats. Several runs,
// from different machines or importers, are shown side by side, each under
// its label.
//
// For every scheme and op the report gives n, median, IQR, CV and the
// distribution-free 95% interval of the median ([stats.Summarize]); CPU,
// allocation and energy medians where measured; outlier counts under the
// seed study's rule (> 10 × mean) and Tukey's 1.5 and 3 IQR fences. Every
// statistic uses the samples the seed study's rule keeps (StatsRule); the
// Tukey counts are reported only. Schemes are compared pairwise on the wall
// time of a full exchange by the Mann–Whitney U test, all pairs of a run
// forming one family adjusted by Holm's method, with Cliff's delta as the
// effect size ([stats.Decide]: better, worse or no significant
// difference at α = 0.05).
package report

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/report/internal/jce"
)

// Alpha is the family-wise significance level of the pairwise comparisons.
const Alpha = 0.05

// Row summarises one scheme and op of one run.
type Row struct {
	Scheme    string
	Op        string
	Augmented bool
	Wall      stats.Summary
	CPU       *stats.Summary // nil when not measured
	Energy    *stats.Summary // package domains, µJ; nil when not measured
	Allocs    float64        // median heap allocations
	// HeapMeasured is false for runs not made by kexlab compare (imported
	// JMH/Jetpack files, peers), whose heap figures are unknown, not zero.
	HeapMeasured bool
	Bytes        float64 // median heap bytes allocated
	Size         int     // bytes on the wire, standard encoding (full op)
	StudySize    int     // bytes under the seed study's accounting
	WireCheck    string
	// Outliers under each rule, counted on all samples. Statistics use the
	// samples kept by StatsRule, so Out10x of them were dropped.
	Out10x, OutTukey15, OutTukey3 int
	Err                           string // why the row has no summary
}

// Pair is one pairwise comparison of full-exchange wall time.
type Pair struct {
	A, B        string
	MedA, MedB  float64
	Delta       float64 // Cliff's delta of A relative to B (negative: A faster)
	P, PAdj     float64 // raw and Holm-adjusted p-values
	Verdict     stats.Verdict
	Err         string
	ShiftNs     float64 // Hodges–Lehmann shift A − B
	Exact, Tied bool
	// Negligible: significant, but set to no difference because the
	// difference's interval reaches below a margin (the JCE study's
	// MinEffect).
	Negligible bool
}

// VerdictOf returns the verdict of x against y when p compares the two, in
// either order, and false when it does not.
func (p Pair) VerdictOf(x, y string) (stats.Verdict, bool) {
	switch {
	case p.A == x && p.B == y:
		return p.Verdict, true
	case p.A == y && p.B == x:
		return flip(p.Verdict), true
	}
	return 0, false
}

// Run is the analysis of one run.
type Run struct {
	Label   string
	Results *bench.Results
	Rows    []Row // sorted by median wall time
	Pairs   []Pair
	Limits  []Limit // exchange vs primitive limit, per scheme
}

// Across compares one scheme (or benchmark) of a later run with the same
// one in the first run: the runs of a merged report, side by side.
type Across struct {
	Scheme, Run, Baseline string
	Pair                  // A is the later run, B the baseline
}

// CompareRuns tests, for every scheme that the first run and a later run
// both have, the full-exchange wall time of the later run against the
// first (Mann–Whitney, all comparisons one Holm family).
func CompareRuns(runs []Run) []Across {
	if len(runs) < 2 {
		return nil
	}
	base := runs[0]
	var out []Across
	var results []stats.MWResult
	for _, r := range runs[1:] {
		for _, si := range r.Results.Schemes {
			a := Kept(r.Results.Values(si.Name, bench.OpFull, bench.Wall))
			b := Kept(base.Results.Values(si.Name, bench.OpFull, bench.Wall))
			if len(a) < 2 || len(b) < 2 {
				continue
			}
			x := Across{Scheme: si.Name, Run: r.Label, Baseline: base.Label}
			var res stats.MWResult
			x.Pair, res = test(r.Label, base.Label, a, b)
			out = append(out, x)
			results = append(results, res)
		}
	}
	if len(results) == 0 {
		return nil
	}
	if verdicts, adj, err := stats.Decide(results, Alpha); err == nil {
		for i := range out {
			out[i].Verdict, out[i].PAdj = verdicts[i], adj[i]
		}
	}
	return out
}

// Analyze summarises every run, each under its label from [Labels].
func Analyze(runs []*bench.Results) ([]Run, error) {
	if len(runs) == 0 {
		return nil, errors.New("report: no runs")
	}
	labels := Labels(runs)
	out := make([]Run, 0, len(runs))
	for i, r := range runs {
		if r == nil {
			return nil, fmt.Errorf("report: run %d is nil", i)
		}
		out = append(out, analyzeRun(labels[i], r))
	}
	return out, nil
}

// Labels returns the names under which a report shows runs: each run's own
// label, "run i" (counting from 1) for one without, made unique by
// appending " #2", " #3", … to repeats. A nil run gets "".
func Labels(runs []*bench.Results) []string {
	out := make([]string, len(runs))
	seen := map[string]int{}
	for i, r := range runs {
		if r == nil {
			continue
		}
		label := r.Label
		if label == "" {
			label = "run " + strconv.Itoa(i+1)
		}
		if seen[label]++; seen[label] > 1 {
			label += " #" + strconv.Itoa(seen[label])
		}
		out[i] = label
	}
	return out
}

func analyzeRun(label string, r *bench.Results) Run {
	run := Run{Label: label, Results: r}
	for _, si := range r.Schemes {
		ops := ops(r, si.Name)
		if len(ops) == 0 && si.Error != "" {
			run.Rows = append(run.Rows, Row{Scheme: si.Name, Op: bench.OpFull, Augmented: si.Augmented,
				Err: "not measured: " + si.Error})
		}
		for _, op := range ops {
			run.Rows = append(run.Rows, summarizeRow(r, si, op))
		}
	}
	// By median time; rows without a summary last.
	sort.SliceStable(run.Rows, func(i, j int) bool {
		a, b := run.Rows[i], run.Rows[j]
		if (a.Err == "") != (b.Err == "") {
			return a.Err == ""
		}
		return a.Wall.Median < b.Wall.Median
	})
	if len(jce.Cases(r)) == 0 { // the provider study (report/providers) compares within its own tables
		run.Pairs = compare(r)
	}
	run.Limits = Limits(r)
	return run
}

// ops returns the ops present for scheme, full first.
func ops(r *bench.Results, scheme string) []string {
	have := map[string]bool{}
	var out []string
	for _, s := range r.Samples {
		if s.Scheme == scheme && !have[s.Op] {
			have[s.Op] = true
			out = append(out, s.Op)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i] == bench.OpFull && out[j] != bench.OpFull })
	return out
}

// StatsRule is the outlier rule whose kept samples every statistic uses:
// the seed study's, which drops samples above 10× the mean. The Tukey
// fences are counted beside it.
const StatsRule = stats.TenTimesMean

// Native reports whether r was measured by kexlab compare (rather than
// imported from another tool).
func Native(r *bench.Results) bool {
	return r.Source == "" || r.Source == "kexlab compare"
}

// Kept returns the samples StatsRule keeps (all of them where the rule does
// not apply, e.g. to negative values).
func Kept(xs []float64) []float64 {
	k, _, err := stats.Filter(xs, StatsRule)
	if err != nil {
		return xs
	}
	return k
}

func summarizeRow(r *bench.Results, si bench.SchemeInfo, op string) Row {
	row := Row{Scheme: si.Name, Op: op, Augmented: si.Augmented, WireCheck: si.WireCheck}
	if op == bench.OpFull {
		row.Size, row.StudySize = si.Size, si.StudySize
	}
	wall := r.Values(si.Name, op, bench.Wall)
	sum, err := stats.Summarize(Kept(wall))
	if err != nil {
		row.Err = err.Error()
		return row
	}
	row.Wall = sum
	if cpu := r.Values(si.Name, op, bench.CPU); len(cpu) == len(wall) {
		if s, err := stats.Summarize(Kept(cpu)); err == nil {
			row.CPU = &s
		}
	}
	if e := r.Values(si.Name, op, r.EnergyValue); len(e) >= 2 {
		if s, err := stats.Summarize(Kept(e)); err == nil {
			row.Energy = &s
		}
	}
	row.HeapMeasured = Native(r)
	row.Allocs = median(r.Values(si.Name, op, func(s bench.Sample) (float64, bool) { return float64(s.Allocs), true }))
	row.Bytes = median(r.Values(si.Name, op, func(s bench.Sample) (float64, bool) { return float64(s.AllocBytes), true }))
	_, row.Out10x, _ = stats.Filter(wall, stats.TenTimesMean)
	_, row.OutTukey15, _ = stats.Filter(wall, stats.Tukey15)
	_, row.OutTukey3, _ = stats.Filter(wall, stats.Tukey3)
	return row
}

func median(xs []float64) float64 {
	m, err := stats.Quantile(xs, 0.5)
	if err != nil {
		return 0
	}
	return m
}

// compare tests every pair of schemes on full-exchange wall time (in kexlab
// wifi's results, every pair of the same operation: sameOperation); all
// pairs are one Holm family.
func compare(r *bench.Results) []Pair {
	var names []string
	samples := map[string][]float64{}
	for _, si := range r.Schemes {
		xs := Kept(r.Values(si.Name, bench.OpFull, bench.Wall))
		if len(xs) >= 2 {
			names = append(names, si.Name)
			samples[si.Name] = xs
		}
	}
	// In order of median, so that the pairs come in the order of their A.
	sort.SliceStable(names, func(i, j int) bool { return median(samples[names[i]]) < median(samples[names[j]]) })
	xs := make([][]float64, len(names))
	for i, n := range names {
		xs[i] = samples[n]
	}
	return Pairwise(names, xs, sameOperation(r, names))
}

// Pairwise compares samples[i] with samples[j], for every i < j for which
// keep (when not nil) returns true, by the two-sided Mann–Whitney U test;
// the comparisons are one family, adjusted by Holm's method at Alpha.
// Samples with fewer than two values are left out. labels name the
// samples; in each pair A is the one with the lower median (the earlier
// one on a tie).
func Pairwise(labels []string, samples [][]float64, keep func(i, j int) bool) []Pair {
	var pairs []Pair
	var results []stats.MWResult
	for i := range samples {
		for j := i + 1; j < len(samples); j++ {
			a, b := samples[i], samples[j]
			if len(a) < 2 || len(b) < 2 || (keep != nil && !keep(i, j)) {
				continue
			}
			la, lb := labels[i], labels[j]
			if median(b) < median(a) {
				a, b, la, lb = b, a, lb, la
			}
			p, res := test(la, lb, a, b)
			pairs = append(pairs, p)
			results = append(results, res)
		}
	}
	if len(results) == 0 {
		return nil
	}
	verdicts, adj, err := stats.Decide(results, Alpha)
	for i := range pairs {
		if err != nil {
			pairs[i].Err = err.Error()
			continue
		}
		pairs[i].Verdict, pairs[i].PAdj = verdicts[i], adj[i]
	}
	return pairs
}

// test compares sample a (named la) with b (lb) by the two-sided
// Mann–Whitney U test; the verdict and adjusted p-value are left to the
// family's Holm adjustment. The result is P = 1 when all values are tied
// or the test fails.
func test(la, lb string, a, b []float64) (Pair, stats.MWResult) {
	p := Pair{A: la, B: lb, MedA: median(a), MedB: median(b)}
	res, err := stats.MannWhitney(a, b, nil)
	switch {
	case errors.Is(err, stats.ErrAllTied):
		res, p.Tied = stats.MWResult{P: 1}, true
	case err != nil:
		p.Err, res = err.Error(), stats.MWResult{P: 1}
	}
	p.Delta, p.P, p.ShiftNs, p.Exact = res.Delta, res.P, res.Shift, res.Exact
	return p, res
}
