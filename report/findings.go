package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/pake"
)

// Verdicts of a Finding.
const (
	Agrees        = "agrees"
	Disagrees     = "disagrees"
	NotMeasurable = "not measurable here"
)

// MinEffect is the smallest difference a finding counts: a ratio whose
// interval reaches into [1/(1+MinEffect), 1+MinEffect] is not called a
// difference however small its p. On a shared 2-core machine, back-to-back
// runs moved PACE IM/GM's online ratio between 0.98 (p = 0.0005) and 0.99
// (p = 0.43): differences of a few percent are the machine's, not the
// scheme's.
const MinEffect = 0.05

// Finding is one finding of the Android PAKE study checked against one run:
// A's samples against B's, as a ratio of A to B with its interval, the
// Mann–Whitney p-value (raw and Holm-adjusted over the run's findings) and
// Cliff's δ.
type Finding struct {
	Claim string // the study's finding
	Study string // what the study reported
	A, B  string // "scheme op", what is compared
	// Metric is what the samples measure: "CPU time", "wall time" (when the
	// run has no CPU clock) or "energy".
	Metric string
	NA, NB int
	// Ratio is A/B: exp of the Hodges–Lehmann shift of the logarithms
	// (the median of the ratios of all pairs), with the distribution-free
	// interval of that shift (Level, usually about 95%).
	Ratio, Lo, Hi, Level float64
	P, PAdj              float64
	Delta                float64 // Cliff's δ of A relative to B
	// Significant: PAdj < Alpha and the interval excludes differences
	// smaller than MinEffect (both ways).
	Significant bool
	Verdict     string // Agrees, Disagrees or NotMeasurable
	Why         string // what the verdict rests on, or why not measurable
}

// finding describes one check: the samples to compare and what the study
// expects of A/B.
type finding struct {
	claim, study string
	// Each side is a list of (scheme, op) candidates; the first one the
	// run has is used (the study profile's configuration first).
	a, b [][2]string
	// slower: the study found A slower (A/B > 1); otherwise faster.
	slower bool
	energy bool
	// bytes, when set, replaces the direction: A's bytes on the wire over
	// B's must exceed the upper end of the time ratio's interval.
	bytes bool
}

var studyFindings = []finding{
	{claim: "Constant-time Dragonfly (40 hunting-and-pecking rounds) is about 4× slower than the early exit",
		study: "≈4×", slower: true,
		a: [][2]string{{"dragonfly", bench.OpFull}}, b: [][2]string{{"dragonfly-early-exit", bench.OpFull}}},
	{claim: "PACE's Integrated Mapping is faster than its Generic Mapping (the online exchange: PBKDF2 set aside)",
		study: "IM faster", slower: false,
		a: [][2]string{{"pace-im", bench.OpOnline}}, b: [][2]string{{"pace-gm", bench.OpOnline}}},
	{claim: "OEKE on MODP-3072 is slower than OEKE on the elliptic curve",
		study: "MODP slower", slower: true,
		a: [][2]string{{"oeke-modp3072-nokdf", bench.OpFull}, {"oeke-modp3072", bench.OpOnline}},
		b: [][2]string{{"oeke-p256-nokdf", bench.OpFull}, {"oeke-p256", bench.OpOnline}}},
	{claim: "The memory-hard KDF dominates augmented registration (SPAKE2+ registration, scrypt, against a whole online exchange)",
		study: "dominates", slower: true,
		a: [][2]string{{"spake2plus", bench.OpRegister}}, b: [][2]string{{"spake2plus", bench.OpOnline}}},
	{claim: "SRP has the lowest energy per exchange (against the next-lowest scheme)",
		study: "SRP lowest", slower: false, energy: true,
		a: [][2]string{{"srp", bench.OpFull}, {"srp-sha1", bench.OpFull}}},
	{claim: "Post-quantum schemes cost mostly bytes: more in bytes on the wire than in time (aPAKE-PQC against SPAKE2+, neither stretching the password)",
		study: "mostly bytes", bytes: true,
		a: [][2]string{{"apakepq-nokdf", bench.OpFull}, {"apakepq", bench.OpOnline}},
		b: [][2]string{{"spake2plus", bench.OpOnline}}},
}

// Findings checks the study's findings against r, a kexlab compare run.
// Every finding compares two samples of r (never across runs); the
// p-values of the run's measurable findings form one Holm family.
func Findings(r *bench.Results) []Finding {
	metric, sel := "CPU time", bench.CPU
	if r.CPUClock == "" {
		metric, sel = "wall time", bench.Wall
	}
	var out []Finding
	var ps []float64
	var idx []int
	for _, f := range studyFindings {
		res := Finding{Claim: f.claim, Study: f.study, Metric: metric}
		xs, a := pick(r, f.a, sel)
		var ys []float64
		var b string
		switch {
		case f.energy:
			res.Metric = "energy"
			if !r.Energy.Measured {
				res.Verdict, res.Why = NotMeasurable, "no energy meter in this run: "+r.Energy.Reason
				out = append(out, res)
				continue
			}
			xs, a = pick(r, f.a, r.EnergyValue)
			ys, b = lowestOther(r, a, r.EnergyValue)
		default:
			ys, b = pick(r, f.b, sel)
		}
		res.A, res.B = a, b
		if len(xs) < 2 || len(ys) < 2 {
			res.Verdict, res.Why = NotMeasurable, "the run lacks "+missing(f, a, b)+" (kexlab compare -profile study or all measures it)"
			out = append(out, res)
			continue
		}
		if err := ratioTest(&res, xs, ys); err != nil {
			res.Verdict, res.Why = NotMeasurable, err.Error()
			out = append(out, res)
			continue
		}
		if f.bytes {
			res.Why = bytesWhy(r, a, b)
		}
		ps = append(ps, res.P)
		idx = append(idx, len(out))
		out = append(out, res)
	}
	adj, err := stats.Holm(ps)
	for k, i := range idx {
		f, res := studyFindings[i], &out[i]
		if err != nil {
			res.Verdict, res.Why = NotMeasurable, err.Error()
			continue
		}
		res.PAdj = adj[k]
		res.Significant = res.PAdj < Alpha && (res.Lo > 1+MinEffect || res.Hi < 1/(1+MinEffect))
		res.Verdict, res.Why = judge(f, *res, r)
	}
	return out
}

// pick returns the samples (kept by StatsRule) of the first candidate r
// has, and its "scheme op" name.
func pick(r *bench.Results, cands [][2]string, sel func(bench.Sample) (float64, bool)) ([]float64, string) {
	for _, c := range cands {
		if xs := Kept(r.Values(c[0], c[1], sel)); len(xs) >= 2 {
			return xs, c[0] + " " + c[1]
		}
	}
	if len(cands) == 0 {
		return nil, ""
	}
	return nil, cands[0][0] + " " + cands[0][1]
}

// lowestOther returns the full exchange with the lowest median of sel
// among r's schemes other than a's (the study profile's when r records
// profiles).
func lowestOther(r *bench.Results, a string, sel func(bench.Sample) (float64, bool)) ([]float64, string) {
	var best []float64
	name, bestMed := "", math.Inf(1)
	for _, si := range r.Schemes {
		if si.Name+" "+bench.OpFull == a || (len(si.Profiles) > 0 && !slices.Contains(si.Profiles, pake.ProfileStudy)) {
			continue
		}
		xs := Kept(r.Values(si.Name, bench.OpFull, sel))
		if len(xs) < 2 {
			continue
		}
		if m := median(xs); m < bestMed {
			best, name, bestMed = xs, si.Name+" "+bench.OpFull, m
		}
	}
	return best, name
}

func missing(f finding, a, b string) string {
	if a == "" {
		a = f.a[0][0] + " " + f.a[0][1]
	}
	if b == "" && len(f.b) > 0 {
		b = f.b[0][0] + " " + f.b[0][1]
	}
	if b == "" {
		return a + " or another scheme to compare it with"
	}
	return a + " or " + b
}

// ratioTest fills the ratio, its interval, p and δ of A against B.
func ratioTest(res *Finding, xs, ys []float64) error {
	mw, err := LogRatio(xs, ys)
	if err != nil {
		return fmt.Errorf("%s or %s: %w", res.A, res.B, err)
	}
	res.NA, res.NB = len(xs), len(ys)
	res.Ratio, res.Lo, res.Hi, res.Level = math.Exp(mw.Shift), math.Exp(mw.ShiftCI.Low), math.Exp(mw.ShiftCI.High), mw.ShiftCI.Level
	res.P, res.Delta = mw.P, mw.Delta
	return nil
}

// LogRatio is the two-sided Mann–Whitney test of xs against ys on the
// logarithms: exp(Shift) is the Hodges–Lehmann estimate of the ratio
// (the median ratio over all pairs) and exp(ShiftCI) its distribution-free
// interval. Every value must be positive.
func LogRatio(xs, ys []float64) (stats.MWResult, error) {
	lx, ly := logs(xs), logs(ys)
	if lx == nil || ly == nil {
		return stats.MWResult{}, fmt.Errorf("a sample is empty or not positive")
	}
	return stats.MannWhitney(lx, ly, nil)
}

func logs(xs []float64) []float64 {
	if len(xs) == 0 {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		if !(x > 0) {
			return nil
		}
		out[i] = math.Log(x)
	}
	return out
}

// wireBytes is the standard-encoding total of the scheme of "scheme op".
func wireBytes(r *bench.Results, name string) int {
	for _, si := range r.Schemes {
		for _, op := range []string{bench.OpFull, bench.OpOnline, bench.OpRegister} {
			if si.Name+" "+op == name {
				return si.Size
			}
		}
	}
	return 0
}

func bytesWhy(r *bench.Results, a, b string) string {
	ba, bb := wireBytes(r, a), wireBytes(r, b)
	if ba == 0 || bb == 0 {
		return ""
	}
	return fmt.Sprintf("bytes on the wire %d / %d = %.1f×", ba, bb, float64(ba)/float64(bb))
}

// judge gives a measurable finding its verdict.
func judge(f finding, res Finding, r *bench.Results) (string, string) {
	dir := "A/B > 1"
	if !f.slower {
		dir = "A/B < 1"
	}
	if f.bytes {
		// The claim is about where the cost lies, not a direction of
		// time: the bytes ratio must exceed the time ratio's interval.
		ba, bb := wireBytes(r, res.A), wireBytes(r, res.B)
		if ba == 0 || bb == 0 {
			return NotMeasurable, "the run records no wire sizes"
		}
		if br := float64(ba) / float64(bb); br <= res.Hi {
			return Disagrees, fmt.Sprintf("%s, not above the time ratio's interval (up to %.2f)", res.Why, res.Hi)
		}
		return Agrees, fmt.Sprintf("%s, above the time ratio's whole interval (up to %.2f)", res.Why, res.Hi)
	}
	switch {
	case res.PAdj >= Alpha:
		return Disagrees, fmt.Sprintf("no significant difference (Holm p = %.2g ≥ %.2g)", res.PAdj, Alpha)
	case !res.Significant:
		return Disagrees, fmt.Sprintf("no difference of %.0f %% or more: the interval reaches into [%.3f, %.2f]", 100*MinEffect, 1/(1+MinEffect), 1+MinEffect)
	case (res.Ratio > 1) != f.slower:
		return Disagrees, "significant, in the other direction (the study: " + dir + ")"
	}
	return Agrees, "significant, " + dir + " as the study found"
}

// FindingsAgree compares the verdicts of two runs' findings: the findings
// either run calls significant on which the other does not reach the same
// verdict (significant, same direction) are listed.
func FindingsAgree(a, b []Finding) (significant int, differ []string) {
	for i := range a {
		if i >= len(b) || a[i].Claim != b[i].Claim {
			break
		}
		if !a[i].Significant && !b[i].Significant {
			continue
		}
		significant++
		if a[i].Significant != b[i].Significant || (a[i].Ratio > 1) != (b[i].Ratio > 1) {
			differ = append(differ, a[i].Claim)
		}
	}
	return significant, differ
}
