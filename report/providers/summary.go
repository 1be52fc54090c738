package providers

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/report/internal/jce"
	"github.com/kexlab/kexlab/report/internal/numfmt"
	"github.com/kexlab/kexlab/report/internal/plot"
)

// Families in the order the summaries list them.
var Families = []string{"key generation", "symmetric encryption", "RSA encryption", "signatures", "MACs"}

// Summary answers the paper's research questions for one primitive family
// from the run's tables.
type Summary struct {
	Family string
	// RQ1: the providers ranked by the geometric mean, over the family's
	// provider-vs-provider tables, of their median relative to the
	// table's fastest provider.
	Ranking []Rank
	// RQ2: the cost of each key-size step (per provider and table: the
	// ratio of the larger size's median to the smaller's).
	Steps []Step
	// RQ3: the price of each recommended transformation over the
	// default one.
	Prices []Step
	// Digests: for MACs, the cost of each longer digest over the next
	// shorter one (the paper's Table 31).
	Digests []Step
}

// Rank is one provider's standing in a family.
type Rank struct {
	Provider string
	// GeoRatio is the geometric mean of median/fastest median over Tables
	// tables (1 = always the fastest).
	GeoRatio float64
	Tables   int
	Fastest  int // tables in which it has the lowest median
	// Wins and Losses count the pairs it is significantly faster or
	// slower in; Delta is the median Cliff's δ of its pairs, oriented to
	// it (negative: it tends to be faster).
	Wins, Losses int
	Delta        float64
}

// Step summarises ratios of one kind of comparison across providers and
// tables: a key-size step ("RSA 2048→3072 sign") or a transformation's
// price ("SHA256withRSA over SHA1withRSA").
type Step struct {
	What                string
	N                   int     // ratios
	Median, Min, Max    float64 // of the ratios
	Significant, Higher int     // pairs significant; of them, the larger size / recommended slower
}

// Summaries computes the RQ1–RQ3 summaries of r's tables.
func Summaries(r Run) []Summary {
	by := map[string]*Summary{}
	for _, f := range Families {
		by[f] = &Summary{Family: f}
	}
	ranks := map[string]map[string]*Rank{}
	var deltas = map[string]map[string][]float64{}
	steps := map[string]map[string]*stepAcc{}
	prices := map[string]map[string]*stepAcc{}
	digests := map[string]map[string]*stepAcc{}
	for _, t := range r.Tables {
		items := measured(t)
		if len(items) < 2 {
			continue
		}
		fam := items[0].Case.Family()
		switch t.Kind {
		case ProviderVsProvider:
			best := math.Inf(1)
			for _, it := range items {
				best = math.Min(best, it.Wall.Median)
			}
			if ranks[fam] == nil {
				ranks[fam], deltas[fam] = map[string]*Rank{}, map[string][]float64{}
			}
			for _, it := range items {
				rk := ranks[fam][it.Label]
				if rk == nil {
					rk = &Rank{Provider: it.Label}
					ranks[fam][it.Label] = rk
				}
				rk.Tables++
				rk.GeoRatio += math.Log(it.Wall.Median / best)
				if it.Wall.Median == best {
					rk.Fastest++
				}
			}
			for _, p := range t.Pairs {
				if p.Err != "" {
					continue
				}
				deltas[fam][p.A] = append(deltas[fam][p.A], p.Delta)
				deltas[fam][p.B] = append(deltas[fam][p.B], -p.Delta)
				switch p.Verdict {
				case stats.Better:
					ranks[fam][p.A].Wins++
					ranks[fam][p.B].Losses++
				case stats.Worse:
					ranks[fam][p.A].Losses++
					ranks[fam][p.B].Wins++
				}
			}
		case KeySizeVsKeySize:
			for i := 0; i+1 < len(items); i++ {
				a, b := items[i], items[i+1]
				what := fmt.Sprintf("%s %s %d→%d %s", a.Case.Algorithm, sigFamily(a.Case), a.Case.KeySize, b.Case.KeySize, a.Case.Op)
				accumulate(steps, fam, what, b.Wall.Median/a.Wall.Median, t.Verdict(a.Label, b.Label, false))
			}
		case DigestVsDigest:
			for i := 0; i+1 < len(items); i++ {
				a, b := items[i], items[i+1]
				accumulate(digests, fam, a.Case.Transformation+" → "+b.Case.Transformation, b.Wall.Median/a.Wall.Median,
					t.Verdict(a.Label, b.Label, false))
			}
		case DefaultVsRecommended:
			for _, d := range items {
				if !d.Case.Default() {
					continue
				}
				for _, rec := range items {
					if rec.Case.Default() {
						continue
					}
					what := fmt.Sprintf("%s over %s (%s)", rec.Case.Transformation, d.Case.Transformation, d.Case.Op)
					accumulate(prices, fam, what, rec.Wall.Median/d.Wall.Median, t.Verdict(d.Label, rec.Label, false))
				}
			}
		}
	}
	var out []Summary
	for _, f := range Families {
		s := by[f]
		for _, rk := range ranks[f] {
			rk.GeoRatio = math.Exp(rk.GeoRatio / float64(rk.Tables))
			rk.Delta = median(deltas[f][rk.Provider])
			s.Ranking = append(s.Ranking, *rk)
		}
		sort.Slice(s.Ranking, func(i, j int) bool { return s.Ranking[i].GeoRatio < s.Ranking[j].GeoRatio })
		s.Steps, s.Prices, s.Digests = finish(steps[f]), finish(prices[f]), finish(digests[f])
		if len(s.Ranking)+len(s.Steps)+len(s.Prices)+len(s.Digests) > 0 {
			out = append(out, *s)
		}
	}
	return out
}

func measured(t Table) []Item {
	var out []Item
	for _, it := range t.Items {
		if it.Err == "" && it.Wall.Median > 0 {
			out = append(out, it)
		}
	}
	return out
}

type stepAcc struct {
	ratios              []float64
	significant, higher int
}

// accumulate adds one ratio (second over first) with the verdict of the
// first against the second ("better": the first significantly faster).
func accumulate(m map[string]map[string]*stepAcc, fam, what string, ratio float64, verdict string) {
	if m[fam] == nil {
		m[fam] = map[string]*stepAcc{}
	}
	a := m[fam][what]
	if a == nil {
		a = &stepAcc{}
		m[fam][what] = a
	}
	a.ratios = append(a.ratios, ratio)
	switch verdict {
	case "better":
		a.significant++
		a.higher++
	case "worse":
		a.significant++
	}
}

func finish(m map[string]*stepAcc) []Step {
	var out []Step
	for what, a := range m {
		s := Step{What: what, N: len(a.ratios), Median: median(a.ratios), Min: math.Inf(1), Max: math.Inf(-1),
			Significant: a.significant, Higher: a.higher}
		for _, v := range a.ratios {
			s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].What < out[j].What })
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// representative reports whether a provider-vs-provider table belongs in
// its family's figure: the study's message length and the sizes the paper
// headlines (AES-128, DESede-168, RSA and DSA 2048, P-256, every HMAC).
func representative(c jce.Case) bool {
	if c.DataLength > 100 || (c.DataLength > 0 && c.DataLength < 100 && c.Op != "sign" && c.Op != "verify") {
		return false
	}
	switch c.Algorithm {
	case "AES":
		return c.KeySize == 128
	case "DESede":
		return c.KeySize == 168
	case "RSA", "DSA":
		return c.KeySize == 2048
	case "EC":
		return c.KeySize == 256
	}
	return true
}

// eachRepresentative calls f for every measured item of the family's
// representative provider-vs-provider tables.
func eachRepresentative(r Run, fam string, f func(it Item)) {
	for _, t := range r.Tables {
		items := measured(t)
		if t.Kind != ProviderVsProvider || len(items) < 2 || items[0].Case.Family() != fam || !representative(items[0].Case) {
			continue
		}
		for _, it := range items {
			f(it)
		}
	}
}

// caseLabel names a case in figures.
func caseLabel(c jce.Case) string {
	return c.Algorithm + "-" + strconv.Itoa(c.KeySize) + " " + abbreviate(c.Transformation) + " " + c.Op
}

// colorOf gives each provider a colour, in the order they come.
func colorOf(color map[string]int, provider string) int {
	if _, ok := color[provider]; !ok {
		color[provider] = len(color)
	}
	return color[provider]
}

// Figures draws, per family, each provider's median time (95% CI) in the
// family's representative provider-vs-provider tables, coloured by
// provider.
func Figures(r Run) []string {
	color := map[string]int{}
	var out []string
	for _, fam := range Families {
		var dots []plot.Dot
		eachRepresentative(r, fam, func(it Item) {
			what := caseLabel(it.Case)
			dots = append(dots, plot.Dot{Key: what, Label: what + " · " + shortName(it.Label), Run: colorOf(color, it.Label),
				Mid: it.Wall.Median, Lo: it.Wall.MedianCI.Low, Hi: it.Wall.MedianCI.High, Coverage: it.Wall.MedianCI.Level})
		})
		if len(dots) > 0 {
			out = append(out, plot.Dots(fmt.Sprintf("%s: time per operation by provider (median, 95%% CI; %s)", fam, legend(color)),
				"time per operation (log scale)", dots, numfmt.Ns))
		}
	}
	return out
}

// EnergyFigures draws, per family, energy against time of the
// representative tables' measured items, where energy was measured.
func EnergyFigures(r Run) []string {
	color := map[string]int{}
	var out []string
	for _, fam := range Families {
		var pts []plot.Point
		eachRepresentative(r, fam, func(it Item) {
			if it.Energy != nil && it.Energy.Median > 0 {
				pts = append(pts, plot.Point{Label: shortName(it.Label) + " " + caseLabel(it.Case), Run: colorOf(color, it.Label),
					X: it.Wall.Median, Y: it.Energy.Median})
			}
		})
		if len(pts) > 0 {
			out = append(out, plot.Scatter(fmt.Sprintf("%s: energy against time per operation (medians; %s)", fam, legend(color)),
				"time per operation (log scale)", "energy per operation, µJ (log scale)", pts, numfmt.Ns, numfmt.Num))
		}
	}
	return out
}

// legend names the providers' colours.
func legend(color map[string]int) string {
	names := make([]string, 0, len(color))
	for n := range color {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return color[names[i]] < color[names[j]] })
	colours := []string{"blue", "vermillion", "green", "pink", "orange", "sky", "black"}
	for i, n := range names {
		names[i] = shortName(n) + " " + colours[color[n]%len(colours)]
	}
	return strings.Join(names, ", ")
}

// abbreviate shortens transformations for figure labels.
func abbreviate(t string) string {
	r := strings.NewReplacer("/NoPadding", "", "/PKCS5Padding", "", "RSA/ECB/", "", "OAEPWithSHA-256AndMGF1Padding", "OAEP-256",
		"PKCS1Padding", "PKCS1", "AlgorithmParameterGenerator", "fresh params", "KeyPairGenerator", "KPG", "KeyGenerator", "KG")
	return r.Replace(t)
}

// String formats a Step on one line.
func (s Step) String() string {
	return fmt.Sprintf("%s: ×%.2f median [%.2f, %.2f] over %d; significant %d (higher %d)", s.What, s.Median, s.Min, s.Max, s.N,
		s.Significant, s.Higher)
}
