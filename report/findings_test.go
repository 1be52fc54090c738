package report

import (
	"math"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

// findingsRun builds a run whose samples make the study's findings come out
// known: constant-time Dragonfly exactly 4× the early exit, IM slower than
// GM (the study said faster), the two OEKE suites equal, SPAKE2+
// registration 10× its online exchange, aPAKE-PQC 1.5× SPAKE2+ in time and
// 12.7× in bytes. Each scheme's samples are base × (1 + i/100), i < 20.
func findingsRun(energy bool) *bench.Results {
	r := &bench.Results{Format: bench.Format, Label: "f", Source: "kexlab compare", CPUClock: "thread"}
	if energy {
		r.Energy = bench.EnergyStatus{Measured: true, Meter: "RAPL", Domains: []string{"package-0"}}
	} else {
		r.Energy = bench.EnergyStatus{Reason: "no powercap interface"}
	}
	study := []string{"study"}
	for _, s := range []struct {
		name string
		size int
	}{{"dragonfly", 256}, {"dragonfly-early-exit", 256}, {"pace-im", 189}, {"pace-gm", 303},
		{"oeke-modp3072-nokdf", 816}, {"oeke-p256-nokdf", 129}, {"spake2plus", 194}, {"apakepq-nokdf", 2460}, {"srp", 849}} {
		r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: s.name, Size: s.size, Profiles: study})
	}
	add := func(scheme, op string, base float64) {
		for i := 0; i < 20; i++ {
			v := base * (1 + float64(i)/100)
			smp := bench.Sample{Scheme: scheme, Op: op, Iter: i, WallNs: int64(2 * v), CPUNs: int64(v)}
			if energy {
				smp.EnergyUJ = map[string]float64{"package-0": v / 1000}
			}
			r.Samples = append(r.Samples, smp)
		}
	}
	add("dragonfly", bench.OpFull, 4e6)
	add("dragonfly-early-exit", bench.OpFull, 1e6)
	add("pace-im", bench.OpOnline, 3e6)
	add("pace-gm", bench.OpOnline, 2e6)
	add("oeke-modp3072-nokdf", bench.OpFull, 5e6)
	add("oeke-p256-nokdf", bench.OpFull, 5e6)
	add("spake2plus", bench.OpRegister, 50e6)
	add("spake2plus", bench.OpOnline, 5e6)
	add("apakepq-nokdf", bench.OpFull, 7.5e6) // 1.5× in time, 12.7× in bytes
	add("srp", bench.OpFull, 0.5e6)
	return r
}

func TestFindings(t *testing.T) {
	fs := Findings(findingsRun(false))
	if len(fs) != len(studyFindings) {
		t.Fatalf("%d findings, want %d", len(fs), len(studyFindings))
	}
	want := []struct {
		a, b    string
		ratio   float64
		verdict string
		why     string
	}{
		{"dragonfly full", "dragonfly-early-exit full", 4, Agrees, "as the study found"},
		{"pace-im online", "pace-gm online", 1.5, Disagrees, "other direction"},
		{"oeke-modp3072-nokdf full", "oeke-p256-nokdf full", 1, Disagrees, "no significant difference"},
		{"spake2plus register", "spake2plus online", 10, Agrees, ""},
		{"", "", 0, NotMeasurable, "no energy meter in this run: no powercap interface"},
		{"apakepq-nokdf full", "spake2plus online", 1.5, Agrees, "2460 / 194 = 12.7×"},
	}
	for i, w := range want {
		f := fs[i]
		if f.Verdict != w.verdict || !strings.Contains(f.Why, w.why) {
			t.Errorf("%s: verdict %q (%s), want %q (…%s…)", f.Claim, f.Verdict, f.Why, w.verdict, w.why)
		}
		if w.verdict == NotMeasurable {
			continue
		}
		if f.A != w.a || f.B != w.b || f.Metric != "CPU time" || f.NA != 20 || f.NB != 20 {
			t.Errorf("%s: compared %q with %q on %s, n %d/%d", f.Claim, f.A, f.B, f.Metric, f.NA, f.NB)
		}
		if math.Abs(f.Ratio-w.ratio) > 0.01*w.ratio || !(f.Lo <= f.Ratio && f.Ratio <= f.Hi) || f.Level < 0.9 {
			t.Errorf("%s: ratio %.3f [%.3f, %.3f] (%.2f), want %.2f", f.Claim, f.Ratio, f.Lo, f.Hi, f.Level, w.ratio)
		}
	}
	// Every sample of A above every one of B: δ = 1 and the exact p of
	// two samples of 20, Holm-adjusted over the 5 measurable findings.
	if f := fs[0]; f.Delta != 1 || f.P > 1e-10 || f.PAdj < f.P {
		t.Errorf("dragonfly: δ %v, p %v, Holm %v", f.Delta, f.P, f.PAdj)
	}

	// With a meter: SRP's energy against the lowest other scheme of the
	// profile (the early exit, 1e6 × 1.0…1.19 / 1000 µJ vs 500 µJ).
	e := Findings(findingsRun(true))[4]
	if e.Metric != "energy" || e.A != "srp full" || e.B != "dragonfly-early-exit full" || e.Verdict != Agrees || math.Abs(e.Ratio-0.5) > 0.01 {
		t.Errorf("energy finding: %+v", e)
	}

	// A PQ scheme 20× slower costs more in time than in bytes (12.7×).
	slow := findingsRun(false)
	for i := range slow.Samples {
		if slow.Samples[i].Scheme == "apakepq-nokdf" {
			slow.Samples[i].CPUNs *= 20
		}
	}
	if f := Findings(slow)[5]; f.Verdict != Disagrees || !strings.Contains(f.Why, "not above the time ratio") {
		t.Errorf("PQ 20× slower: %q %q", f.Verdict, f.Why)
	}

	// IM 2 % slower than GM, every sample apart: significant, but under
	// MinEffect.
	near := findingsRun(false)
	for i, smp := range near.Samples {
		switch smp.Scheme {
		case "pace-im":
			near.Samples[i].CPUNs = 2.04e6 + int64(smp.Iter)*100
		case "pace-gm":
			near.Samples[i].CPUNs = 2e6 + int64(smp.Iter)*100
		}
	}
	if f := Findings(near)[1]; f.PAdj >= Alpha || f.Significant || f.Verdict != Disagrees || !strings.Contains(f.Why, "no difference of 5 %") {
		t.Errorf("IM 2%% slower: Holm p %v, significant %v, %q %q", f.PAdj, f.Significant, f.Verdict, f.Why)
	}

	// A run without the study profile's rows says what it lacks.
	r := findingsRun(false)
	r.Samples = nil
	for _, f := range Findings(r) {
		if f.Verdict != NotMeasurable || f.Why == "" {
			t.Errorf("empty run: %s: %q %q", f.Claim, f.Verdict, f.Why)
		}
	}
}

func TestFindingsAgree(t *testing.T) {
	a, b := Findings(findingsRun(false)), Findings(findingsRun(false))
	if n, differ := FindingsAgree(a, b); n != 4 || len(differ) != 0 {
		t.Errorf("identical runs: %d significant, differ on %v", n, differ)
	}
	b[0].Significant = false
	b[1].Ratio = 0.5
	if _, differ := FindingsAgree(a, b); len(differ) != 2 {
		t.Errorf("two changed findings: differ on %v", differ)
	}
}

// The report shows the findings section with each verdict.
func TestReportFindings(t *testing.T) {
	html := render(t, findingsRun(false))
	for _, want := range []string{`id="findings"`, "The study's findings, checked here", "<b>agrees</b>", "<b>disagrees</b>", "<b>not measurable here</b>",
		"Profile study — Whole picture"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
