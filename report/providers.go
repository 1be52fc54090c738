package report

// The JCE provider study (jvm/, issue 6) rebuilds the comparison tables of
// Montenegro, Pinto and Fuentes, "What do software developers need to know
// to build secure energy-efficient Android applications?" (IEEE Access,
// 2018) from JMH results: for each primitive and key size, provider
// against provider; for each provider, key size against key size; and the
// provider's default transformation (e.g. Cipher.getInstance("AES"))
// against the recommended ones. Every table is one family of two-sided
// Mann–Whitney U tests adjusted by Holm's method at α = 0.05 with Cliff's
// delta for the direction ([stats.Decide]), on the samples the seed
// study's outlier rule keeps, like the rest of the report; energy gets its
// own family where it was measured. The study itself used Wilcoxon
// rank-sum tests (the same test) per table at α = 0.05 without adjustment.

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/stats"
)

// ProviderCase is one benchmark of the provider study, identified by the
// JMH parameters the importer puts into its name
// ("Class.method:mode[algorithm=…,dataLength=…,keySize=…,op=…,provider=…,transformation=…]").
type ProviderCase struct {
	Scheme         string // the benchmark's name in the run
	Provider       string
	Algorithm      string // key algorithm: AES, DESede, RSA, DSA, EC, HmacSHA256, …
	KeySize        int    // bits
	Transformation string // cipher transformation, signature or MAC algorithm, or key generator
	DataLength     int    // bytes
	Op             string // keygen, encrypt, decrypt, sign, verify, mac
}

// Default reports whether the case uses a provider's default
// transformation: a cipher requested by its algorithm name alone.
func (c ProviderCase) Default() bool {
	return (c.Op == "encrypt" || c.Op == "decrypt") && !strings.Contains(c.Transformation, "/")
}

// ParseProviderCase parses a benchmark name carrying the six parameters of
// the provider study. It reports false for any other name.
func ParseProviderCase(scheme string) (ProviderCase, bool) {
	open := strings.LastIndexByte(scheme, '[')
	if open < 0 || !strings.HasSuffix(scheme, "]") {
		return ProviderCase{}, false
	}
	p := map[string]string{}
	for _, kv := range strings.Split(scheme[open+1:len(scheme)-1], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return ProviderCase{}, false
		}
		p[k] = v
	}
	ks, err1 := strconv.Atoi(p["keySize"])
	dl, err2 := strconv.Atoi(p["dataLength"])
	c := ProviderCase{Scheme: scheme, Provider: p["provider"], Algorithm: p["algorithm"], KeySize: ks,
		Transformation: p["transformation"], DataLength: dl, Op: p["op"]}
	if err1 != nil || err2 != nil || c.Provider == "" || c.Algorithm == "" || c.Transformation == "" || c.Op == "" {
		return ProviderCase{}, false
	}
	return c, true
}

// Table kinds.
const (
	KindProviders = "provider vs provider"
	KindKeySizes  = "key size vs key size"
	KindDefaults  = "default vs recommended transformation"
)

// ProviderItem is one row of a comparison table: a benchmark and its
// summary, or why it has none ("not supported: …").
type ProviderItem struct {
	Label  string // provider, key size or transformation
	Case   ProviderCase
	N      int
	Wall   stats.Summary
	Energy *stats.Summary // µJ per operation; nil when not measured
	Err    string
}

// ProviderTable is one comparison: items and their pairwise verdicts.
type ProviderTable struct {
	Kind  string
	Title string // what is held fixed, e.g. "AES-128 AES/GCM/NoPadding encrypt, 100 B"
	Items []ProviderItem
	// Pairs on wall time (A is the item with the lower median) and, where
	// measured, on energy: each slice one Holm family.
	Pairs, EnergyPairs []Pair
}

// ProviderRun holds the provider study tables of one run.
type ProviderRun struct {
	Label  string
	Energy string // the run's energy status, as the report states it
	Tables []ProviderTable
}

// ProviderStudy builds the comparison tables of every run that holds
// provider-study benchmarks; runs without any are left out.
func ProviderStudy(runs []*bench.Results) []ProviderRun {
	var out []ProviderRun
	seen := map[string]int{}
	for i, r := range runs {
		if r == nil {
			continue
		}
		// Labels as Analyze makes them: the run's own, made unique.
		label := r.Label
		if label == "" {
			label = "run " + strconv.Itoa(i+1)
		}
		if seen[label]++; seen[label] > 1 {
			label += " #" + strconv.Itoa(seen[label])
		}
		cases := providerCases(r)
		if len(cases) == 0 {
			continue
		}
		out = append(out, ProviderRun{Label: label, Energy: energyLine(r), Tables: providerTables(r, cases)})
	}
	return out
}

// HasProviderStudy reports whether any run holds provider-study benchmarks.
func HasProviderStudy(runs []*bench.Results) bool {
	for _, r := range runs {
		if r != nil && len(providerCases(r)) > 0 {
			return true
		}
	}
	return false
}

func providerCases(r *bench.Results) []ProviderCase {
	var out []ProviderCase
	for _, si := range r.Schemes {
		if c, ok := ParseProviderCase(si.Name); ok {
			out = append(out, c)
		}
	}
	return out
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
func sigFamily(c ProviderCase) string {
	if strings.HasSuffix(c.Transformation, "withECDSA") {
		return "ECDSA (SHA-256 on P-256, SHA-384 on P-384)"
	}
	return c.Transformation
}

// providerTables groups the cases three ways; tables come in a stable
// order (kind, then title).
func providerTables(r *bench.Results, cases []ProviderCase) []ProviderTable {
	type group struct {
		kind, title string
		items       []ProviderCase
	}
	groups := map[string]*group{}
	var order []string
	put := func(kind, title string, c ProviderCase) {
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
		put(KindProviders, size+" "+c.Transformation+" "+c.Op+data, c)
		put(KindKeySizes, c.Provider+": "+c.Algorithm+" "+sigFamily(c)+" "+c.Op+data, c)
		if c.Op == "encrypt" || c.Op == "decrypt" {
			put(KindDefaults, c.Provider+": "+size+" "+c.Op+data, c)
		}
	}
	var out []ProviderTable
	for _, k := range order {
		g := groups[k]
		t := ProviderTable{Kind: g.kind, Title: g.title}
		defaultOnly := false
		switch g.kind {
		case KindProviders:
			sort.SliceStable(g.items, func(i, j int) bool { return g.items[i].Provider < g.items[j].Provider })
		case KindKeySizes:
			sort.SliceStable(g.items, func(i, j int) bool { return g.items[i].KeySize < g.items[j].KeySize })
		case KindDefaults:
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
			t.Items = append(t.Items, providerItem(r, c, g.kind))
		}
		t.Pairs = itemPairs(r, t.Items, bench.Wall, defaultOnly)
		t.EnergyPairs = itemPairs(r, t.Items, bench.Energy, defaultOnly)
		out = append(out, t)
	}
	kindRank := map[string]int{KindProviders: 0, KindKeySizes: 1, KindDefaults: 2}
	sort.SliceStable(out, func(i, j int) bool { return kindRank[out[i].Kind] < kindRank[out[j].Kind] })
	return out
}

func providerItem(r *bench.Results, c ProviderCase, kind string) ProviderItem {
	it := ProviderItem{Case: c}
	switch kind {
	case KindProviders:
		it.Label = c.Provider
	case KindKeySizes:
		it.Label = strconv.Itoa(c.KeySize)
	default:
		it.Label = c.Transformation
		if c.Default() {
			it.Label += " (default)"
		}
	}
	wall := Kept(r.Values(c.Scheme, bench.OpFull, bench.Wall))
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
		if s, err := stats.Summarize(Kept(e)); err == nil {
			it.Energy = &s
		}
	}
	return it
}

// itemPairs compares the items with at least two samples of f pairwise
// (or, with defaultOnly, the first item, the default transformation,
// against each other one) as one Holm family. A is the lower median.
func itemPairs(r *bench.Results, items []ProviderItem, f func(bench.Sample) (float64, bool), defaultOnly bool) []Pair {
	samples := make([][]float64, len(items))
	for i, it := range items {
		if it.Err == "" {
			samples[i] = Kept(r.Values(it.Case.Scheme, bench.OpFull, f))
		}
	}
	var pairs []Pair
	var results []stats.MWResult
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			if defaultOnly && i != 0 {
				break
			}
			a, b := samples[i], samples[j]
			if len(a) < 2 || len(b) < 2 {
				continue
			}
			la, lb := items[i].Label, items[j].Label
			if median(b) < median(a) {
				a, b, la, lb = b, a, lb, la
			}
			p := Pair{A: la, B: lb, MedA: median(a), MedB: median(b)}
			res, err := stats.MannWhitney(a, b, nil)
			switch {
			case errors.Is(err, stats.ErrAllTied):
				res, p.Tied = stats.MWResult{P: 1}, true
			case err != nil:
				p.Err, res = err.Error(), stats.MWResult{P: 1}
			}
			p.Delta, p.P, p.ShiftNs, p.Exact = res.Delta, res.P, res.Shift, res.Exact
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

// Verdict returns the verdict of item a against item b in t on wall time
// (energy with e): "better" when a is significantly faster, "worse",
// "no significant difference", or "" when the pair was not compared.
func (t ProviderTable) Verdict(a, b string, e bool) string {
	pairs := t.Pairs
	if e {
		pairs = t.EnergyPairs
	}
	for _, p := range pairs {
		if p.Err != "" {
			continue
		}
		switch {
		case p.A == a && p.B == b:
			return p.Verdict.String()
		case p.A == b && p.B == a:
			return flip(p.Verdict).String()
		}
	}
	return ""
}
