// Package providers renders the JCE provider study (jvm/, issue 6): it
// rebuilds the comparison tables of Montenegro, Pinto and Fuentes, "What
// do software developers need to know to build secure energy-efficient
// Android applications?" (IEEE Access, 2018) from JMH results. For each
// primitive and key size, provider against provider; for each provider,
// key size against key size; and the provider's default transformation
// (e.g. Cipher.getInstance("AES")) against the recommended ones.
//
// Every table is one family of two-sided Mann–Whitney U tests adjusted by
// Holm's method at α = 0.05 with Cliff's delta for the direction
// ([report.Pairwise]), on the samples the seed study's outlier rule keeps
// ([report.Kept]), like the rest of the report; energy gets its own family
// where it was measured. The study itself used Wilcoxon rank-sum tests
// (the same test) per table at α = 0.05 without adjustment.
//
// The tables are written as a self-contained HTML page and as text beside
// it ([WriteFiles]); `kexlab report` writes them next to report.html when
// a run holds provider-study benchmarks, which package report leaves out
// of its all-pairs comparison.
package providers

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/report"
	"github.com/kexlab/kexlab/report/internal/jce"
)

// Case is one benchmark of the provider study, identified by the JMH
// parameters the importer puts into its name
// ("Class.method:mode[algorithm=…,dataLength=…,keySize=…,op=…,provider=…,transformation=…]").
// Its Default method reports whether the case uses a provider's default
// transformation: a cipher requested by its algorithm name alone.
type Case = jce.Case

// Table kinds.
const (
	ProviderVsProvider   = "provider vs provider"
	KeySizeVsKeySize     = "key size vs key size"
	DefaultVsRecommended = "default vs recommended transformation"
	// DigestVsDigest compares a provider's HMACs across digest lengths
	// (MD5 … SHA-512; the paper's Table 31).
	DigestVsDigest = "digest length vs digest length"
)

// Item is one row of a comparison table: a benchmark and its summary, or
// why it has none ("not supported: …").
type Item struct {
	Label  string // provider, key size or transformation
	Case   Case
	N      int
	Wall   stats.Summary
	Energy *stats.Summary // µJ per operation; nil when not measured
	Err    string
}

// Table is one comparison: items and their pairwise verdicts.
type Table struct {
	Kind  string
	Title string // what is held fixed, e.g. "AES-128 AES/GCM/NoPadding encrypt, 100 B"
	Items []Item
	// Pairs on wall time (A is the item with the lower median) and, where
	// measured, on energy: each slice one Holm family.
	Pairs, EnergyPairs []report.Pair
}

// Run holds the provider study tables of one run.
type Run struct {
	Label  string // as package report labels the run ([report.Labels])
	Energy string // the run's energy status, as the report states it
	// Rule says how verdicts are reached (Holm within each table, or the
	// paper's unadjusted rank-sum tests).
	Rule string
	// Load is the machine's load average during the run, as recorded.
	Load string
	// Counts: cases measured, not supported, failed and left out by the
	// time budget (they add up to Total).
	Measured, Unsupported, Failed, Budget, Total int
	// AA are the A/A controls: each alias case against its canonical case.
	AA []report.Pair
	// Unreliable says why the run's verdicts cannot be trusted ("" when
	// every A/A pair came out without a significant difference).
	Unreliable string
	Tables     []Table
}

// Options select how the study is judged.
type Options struct {
	// PaperRule judges every pair as Montenegro et al. did: an unadjusted
	// two-sided rank-sum test at α = 0.05, marked ⊕ (row better), ⊖
	// (worse) and ⊙ (no significant difference). The default adjusts the
	// p-values of each table together by Holm's method.
	PaperRule bool
}

// Rule descriptions.
const (
	HolmRule  = "two-sided Mann–Whitney U, the p-values of each table adjusted together by Holm's method, α = 0.05, and a difference of at least 5 % (the ratio's interval outside ±5 %)"
	PaperRule = "the paper's rule: two-sided Wilcoxon rank-sum (Mann–Whitney U) per pair, unadjusted, α = 0.05; ⊕ row better, ⊖ row worse, ⊙ no significant difference"
)

// Study builds the comparison tables of every run that holds
// provider-study benchmarks, judged by Holm's rule; runs without any are
// left out.
func Study(runs []*bench.Results) []Run { return StudyWith(runs, Options{}) }

// StudyWith is Study with options.
func StudyWith(runs []*bench.Results, opt Options) []Run {
	var out []Run
	labels := report.Labels(runs)
	for i, r := range runs {
		if r == nil {
			continue
		}
		cases := jce.Cases(r)
		if len(cases) == 0 {
			continue
		}
		run := Run{Label: labels[i], Energy: energyLine(r), Rule: HolmRule, Load: r.Machine.LoadAvg}
		if opt.PaperRule {
			run.Rule = PaperRule
		}
		var measured []Case
		for _, c := range cases {
			si, _ := r.Scheme(c.Scheme)
			run.Total++
			switch {
			case si.Error == "" || len(r.Values(c.Scheme, bench.OpFull, bench.Wall)) > 0:
				run.Measured++
			case strings.HasPrefix(si.Error, "not supported"):
				run.Unsupported++
			case strings.HasPrefix(si.Error, "not measured"):
				run.Budget++
			default:
				run.Failed++
			}
			if si.AliasOf == nil {
				measured = append(measured, c)
			}
		}
		run.Tables = tables(r, measured)
		run.AA, run.Unreliable = aaControls(r)
		if opt.PaperRule {
			for t := range run.Tables {
				paperRule(run.Tables[t].Pairs)
				paperRule(run.Tables[t].EnergyPairs)
			}
			paperRule(run.AA)
			run.Unreliable = unreliable(run.AA)
		}
		out = append(out, run)
	}
	return out
}

// paperRule re-judges pairs on their raw p-values (no MinEffect).
func paperRule(pairs []report.Pair) {
	for i, p := range pairs {
		pairs[i].Negligible = false
		switch {
		case p.Err != "":
		case p.P > report.Alpha:
			pairs[i].Verdict = stats.NoDifference
		case p.Delta < 0:
			pairs[i].Verdict = stats.Better
		default:
			pairs[i].Verdict = stats.Worse
		}
	}
}

// aaControls compares every alias case of r with its canonical case (one
// Holm family) and says whether any came out significantly different.
func aaControls(r *bench.Results) ([]report.Pair, string) {
	var labels []string
	var samples [][]float64
	for _, si := range r.Schemes {
		if si.AliasOf == nil {
			continue
		}
		a, aok := jce.Parse(si.Name)
		b, bok := jce.Parse(si.AliasOf.Scheme)
		if !aok || !bok {
			continue
		}
		labels = append(labels, aaLabel(a), aaLabel(b))
		samples = append(samples, report.Kept(r.Values(a.Scheme, bench.OpFull, bench.Wall)),
			report.Kept(r.Values(b.Scheme, bench.OpFull, bench.Wall)))
	}
	var pairs []report.Pair
	var keep = func(i, j int) bool { return i%2 == 0 && j == i+1 }
	pairs = margin(report.Pairwise(labels, samples, keep), labels, samples)
	return pairs, unreliable(pairs)
}

func aaLabel(c Case) string {
	return fmt.Sprintf("%s %s-%d %s %s", c.Provider, c.Algorithm, c.KeySize, c.Transformation, c.Op)
}

// unreliable lists the A/A pairs called significantly different.
func unreliable(aa []report.Pair) string {
	var bad []string
	for _, p := range aa {
		if p.Err == "" && p.Verdict != stats.NoDifference {
			bad = append(bad, p.A+" vs "+p.B)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d A/A control(s) — the same implementation under two names — came out significantly different: %s",
		len(bad), len(aa), strings.Join(bad, "; "))
}

// Has reports whether any run holds provider-study benchmarks.
func Has(runs []*bench.Results) bool {
	for _, r := range runs {
		if r != nil && len(jce.Cases(r)) > 0 {
			return true
		}
	}
	return false
}

func energyLine(r *bench.Results) string {
	if r.Energy.Measured {
		return "energy measured: " + r.Energy.Meter + " (" + strings.Join(r.Energy.Domains, ", ") + ")"
	}
	if strings.HasPrefix(r.Energy.Reason, "not measured") {
		return "energy " + r.Energy.Reason
	}
	return "energy not measured: " + r.Energy.Reason
}

// sigFamily is the transformation as grouped across key sizes: ECDSA
// hashes with SHA-256 on P-256 and SHA-384 on P-384.
func sigFamily(c Case) string {
	if strings.HasSuffix(c.Transformation, "withECDSA") {
		return "ECDSA (SHA-256 on P-256, SHA-384 on P-384)"
	}
	return c.Transformation
}

// tables groups the cases three ways; tables come in a stable order
// (kind, then title).
func tables(r *bench.Results, cases []Case) []Table {
	type group struct {
		kind, title string
		items       []Case
	}
	groups := map[string]*group{}
	var order []string
	put := func(kind, title string, c Case) {
		k := kind + "\x00" + title
		g, ok := groups[k]
		if !ok {
			g = &group{kind: kind, title: title}
			groups[k] = g
			order = append(order, k)
		}
		g.items = append(g.items, c)
	}
	for _, c := range cases {
		size := c.Algorithm + "-" + strconv.Itoa(c.KeySize)
		data := fmt.Sprintf(", %d B", c.DataLength)
		if c.Op == "keygen" {
			data = ""
		}
		put(ProviderVsProvider, size+" "+c.Transformation+" "+c.Op+data, c)
		put(KeySizeVsKeySize, c.Provider+": "+c.Algorithm+" "+sigFamily(c)+" "+c.Op+data, c)
		switch c.Op {
		case "encrypt", "decrypt":
			put(DefaultVsRecommended, c.Provider+": "+size+" "+c.Op+data, c)
		case "sign", "verify":
			if c.Algorithm == "RSA" || c.Algorithm == "DSA" {
				put(DefaultVsRecommended, c.Provider+": "+size+" "+c.Op, c)
			}
		case "mac":
			if c.Algorithm == c.Transformation { // not an alias
				put(DigestVsDigest, c.Provider+": HMAC"+data, c)
			}
		}
	}
	var out []Table
	for _, k := range order {
		g := groups[k]
		t := Table{Kind: g.kind, Title: g.title}
		defaultOnly := false
		switch g.kind {
		case ProviderVsProvider:
			sort.SliceStable(g.items, func(i, j int) bool { return g.items[i].Provider < g.items[j].Provider })
		case KeySizeVsKeySize, DigestVsDigest:
			sort.SliceStable(g.items, func(i, j int) bool { return g.items[i].KeySize < g.items[j].KeySize })
		case DefaultVsRecommended:
			sort.SliceStable(g.items, func(i, j int) bool {
				a, b := g.items[i], g.items[j]
				if a.Default() != b.Default() {
					return a.Default()
				}
				return a.Transformation < b.Transformation
			})
			if !g.items[0].Default() {
				continue // no default transformation of this algorithm
			}
			defaultOnly = true
		}
		if len(g.items) < 2 {
			continue
		}
		for _, c := range g.items {
			t.Items = append(t.Items, item(r, c, g.kind))
		}
		t.Pairs = itemPairs(r, t.Items, bench.Wall, defaultOnly)
		t.EnergyPairs = itemPairs(r, t.Items, r.EnergyValue, defaultOnly)
		out = append(out, t)
	}
	kindRank := map[string]int{ProviderVsProvider: 0, KeySizeVsKeySize: 1, DefaultVsRecommended: 2, DigestVsDigest: 3}
	sort.SliceStable(out, func(i, j int) bool { return kindRank[out[i].Kind] < kindRank[out[j].Kind] })
	return out
}

func item(r *bench.Results, c Case, kind string) Item {
	it := Item{Case: c}
	switch kind {
	case ProviderVsProvider:
		it.Label = c.Provider
	case KeySizeVsKeySize:
		it.Label = strconv.Itoa(c.KeySize)
	case DigestVsDigest:
		it.Label = c.Transformation
	default:
		it.Label = c.Transformation
		if (c.Op == "sign" || c.Op == "verify") && c.DataLength != 100 {
			it.Label += fmt.Sprintf(" (%d B)", c.DataLength) // NONEwith…: the digest or a short message
		}
		if c.Default() {
			it.Label += " (default)"
		}
	}
	wall := report.Kept(r.Values(c.Scheme, bench.OpFull, bench.Wall))
	it.N = len(wall)
	if si, _ := r.Scheme(c.Scheme); len(wall) == 0 && si.Error != "" {
		it.Err = si.Error
		return it
	}
	s, err := stats.Summarize(wall)
	if err != nil {
		it.Err = err.Error()
		return it
	}
	it.Wall = s
	if e := r.Values(c.Scheme, bench.OpFull, bench.Energy); len(e) >= 2 {
		if s, err := stats.Summarize(report.Kept(e)); err == nil {
			it.Energy = &s
		}
	}
	return it
}

// itemPairs compares the measured items on f pairwise (or, with
// defaultOnly, the first item, the default transformation, against each
// other one) as one Holm family.
func itemPairs(r *bench.Results, items []Item, f func(bench.Sample) (float64, bool), defaultOnly bool) []report.Pair {
	labels := make([]string, len(items))
	samples := make([][]float64, len(items))
	for i, it := range items {
		labels[i] = it.Label
		if it.Err == "" {
			samples[i] = report.Kept(r.Values(it.Case.Scheme, bench.OpFull, f))
		}
	}
	var keep func(i, j int) bool
	if defaultOnly {
		// Each default against each recommended transformation.
		keep = func(i, j int) bool { return items[i].Case.Default() != items[j].Case.Default() }
	}
	return margin(report.Pairwise(labels, samples, keep), labels, samples)
}

// MinEffect is the smallest difference the study calls (Holm rule): a
// significant pair whose ratio's interval (Hodges–Lehmann on the
// logarithms) reaches into [1/(1+MinEffect), 1+MinEffect] is "no
// difference of 5 % or more". Why: in a run here, the JDK's HmacSHA256
// and its OID alias (one service, one class) came out 250 ns and 310 ns
// in one of three forks and equal in the others — per-fork effects of a
// few percent that 15 samples in 3 clusters call significant.
const MinEffect = 0.05

// margin re-judges the significant pairs by MinEffect.
func margin(pairs []report.Pair, labels []string, samples [][]float64) []report.Pair {
	by := map[string][]float64{}
	for i, l := range labels {
		by[l] = samples[i]
	}
	lim := math.Log(1 + MinEffect)
	for i, p := range pairs {
		if p.Err != "" || p.Verdict == stats.NoDifference {
			continue
		}
		mw, err := report.LogRatio(by[p.A], by[p.B])
		if err != nil || mw.ShiftCI.Low > lim || mw.ShiftCI.High < -lim {
			continue
		}
		pairs[i].Verdict, pairs[i].Negligible = stats.NoDifference, true
	}
	return pairs
}

// Verdict returns the verdict of item a against item b in t on wall time
// (energy with e): "better" when a is significantly faster, "worse",
// "no significant difference", or "" when the pair was not compared.
func (t Table) Verdict(a, b string, e bool) string {
	pairs := t.Pairs
	if e {
		pairs = t.EnergyPairs
	}
	for _, p := range pairs {
		if p.Err != "" {
			continue
		}
		if v, ok := p.VerdictOf(a, b); ok {
			return v.String()
		}
	}
	return ""
}
