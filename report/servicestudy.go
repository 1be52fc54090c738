package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/report/internal/numfmt"
	"github.com/kexlab/kexlab/report/internal/plot"
)

// seedPeak is the Heterogeneous-PAKE paper's server-side peak (its
// abstract: operations per second on an Intel i9-7900X, 10 cores, with an
// NVIDIA Titan V), the figures its Table 7 leads to.
var seedPeak = map[string]float64{"srp-1024": 240e3, "srp-1536": 70e3, "srp-2048": 30e3, "spake2plus": 1650e3}

// studyView is one `kexlab load-study` run in the report.
type studyView struct {
	Machine  bench.Machine
	Shape    string
	Schemes  []studyScheme
	Seed     []seedRow
	Dispatch []dispatchRow
	Points   []loadRow
	Figures  []template.HTML
}

type studyScheme struct {
	Scheme, Kind, Peak, PerCore, Over, Limit, Pct, PctVerdict, P50, P99, Ratio, RatioVerdict string
}

type seedRow struct {
	Scheme, Seed, Ours, OursCores, PerCore, Note string
}

type dispatchRow struct {
	Scheme, Backend, T, K, Limit, Over, R2, Threshold string
	Reps                                              int
}

func studyViews(studies []*bench.ServiceStudy) []studyView {
	var out []studyView
	for _, st := range studies {
		out = append(out, studyViewOf(st))
	}
	return out
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

func studyViewOf(st *bench.ServiceStudy) studyView {
	ms := func(v float64) string { return numfmt.Ns(v * 1e6) }
	v := studyView{Machine: st.Machine, Shape: fmt.Sprintf("%.1f s per load point after %.1f s of warm-up, %d accounts per scheme; the service in its own process (%s)",
		st.PointSeconds, st.WarmupSeconds, st.Accounts, st.ServerCPUs)}
	for _, s := range st.Schemes {
		row := studyScheme{Scheme: s.Scheme, Kind: s.Kind, Peak: "–", PerCore: "–", Over: "–", Pct: "–", P50: "–", P99: "–", Ratio: "–",
			Limit: fmt.Sprintf("%s [%s, %s], n = %d → %.1f/s", ms(s.LimitMs), ms(s.LimitQ1), ms(s.LimitQ3), s.LimitN, s.LimitPerCore)}
		if s.Peak > 0 {
			row.Peak = fmt.Sprintf("%.1f/s (c = %d, batch %d)", s.Peak, s.PeakConns, s.PeakBatch)
		}
		if s.PeakPerCore > 0 {
			row.PerCore = fmt.Sprintf("%.1f/s", s.PeakPerCore)
			if n := len(s.PerCoreRuns); n > 1 {
				row.PerCore += fmt.Sprintf(" [%.1f, %.1f], n = %d", slices.Min(s.PerCoreRuns), slices.Max(s.PerCoreRuns), n)
			}
			row.Over = ms(1000/s.PeakPerCore - s.LimitMs)
		}
		if s.PctLimit > 0 {
			row.Pct, row.PctVerdict = fmt.Sprintf("%.0f %%", s.PctLimit), verdict(s.PctLimit >= 80)
		}
		if s.UnloadedP50 > 0 {
			row.P50 = ms(s.UnloadedP50)
		}
		if s.P99At70 > 0 {
			row.P99, row.Ratio, row.RatioVerdict = ms(s.P99At70), fmt.Sprintf("%.2f×", s.Ratio), verdict(s.Ratio <= 3)
		}
		v.Schemes = append(v.Schemes, row)
		if seed, ok := seedPeak[s.Scheme]; ok {
			r := seedRow{Scheme: s.Scheme, Seed: fmt.Sprintf("%.0f/s", seed), Ours: fmt.Sprintf("%.1f/s", s.Peak),
				OursCores: fmt.Sprintf("%.0f/s", s.PeakPerCore*10), PerCore: fmt.Sprintf("%.1f/s", s.PeakPerCore),
				Note: "theirs: the primitive alone, batched on the GPU; ours: whole logins over HTTP with the store, CPU only"}
			v.Seed = append(v.Seed, r)
		}
	}
	for _, d := range st.Dispatch {
		row := dispatchRow{Scheme: d.Scheme, Backend: d.Backend, T: ms(d.TMs), K: ms(d.KMs), Limit: "–", Over: "–",
			R2: fmt.Sprintf("%.4f", d.R2), Threshold: d.Threshold, Reps: d.Reps}
		if i := colourIndex(st, d.Scheme); i >= 0 && st.Schemes[i].LimitMs > 0 {
			row.Limit, row.Over = ms(st.Schemes[i].LimitMs), ms(d.KMs-st.Schemes[i].LimitMs)
		}
		v.Dispatch = append(v.Dispatch, row)
	}
	var loads []*bench.LoadResult
	for i := range st.Throughput {
		loads = append(loads, &st.Throughput[i].Result)
	}
	for i := range st.Latency {
		loads = append(loads, &st.Latency[i].Result)
	}
	v.Points = loadRows(loads)
	for _, fig := range []string{throughputFigure(st), latencyFigure(st), dispatchFigure(st), hashFigure(st)} {
		if fig != "" {
			v.Figures = append(v.Figures, template.HTML(fig))
		}
	}
	return v
}

// colourIndex is a scheme's colour: its place in the study.
func colourIndex(st *bench.ServiceStudy, scheme string) int {
	return slices.IndexFunc(st.Schemes, func(s bench.SchemeSummary) bool { return s.Scheme == scheme })
}

// throughputFigure: closed-loop throughput against connections, one line
// per scheme and batch size (its Figure 10).
func throughputFigure(st *bench.ServiceStudy) string {
	type key struct {
		scheme string
		batch  int
	}
	var keys []key
	lines := map[key]*plot.Series{}
	for _, p := range st.Throughput {
		k := key{p.Scheme, p.MaxBatch}
		s := lines[k]
		if s == nil {
			s = &plot.Series{Label: fmt.Sprintf("%s b=%d", p.Scheme, p.MaxBatch), Color: colourIndex(st, p.Scheme)}
			lines[k] = s
			keys = append(keys, k)
		}
		if p.Result.Throughput > 0 {
			s.X, s.Y = append(s.X, float64(p.Conns)), append(s.Y, p.Result.Throughput)
		}
	}
	var series []plot.Series
	for _, k := range keys {
		series = append(series, *lines[k])
	}
	if len(series) == 0 {
		return ""
	}
	return plot.Lines("Throughput against connections (closed loop; b: dispatcher batch size)",
		"connections (log scale)", "successful logins per second (log scale)", series, numfmt.Num, numfmt.Num)
}

// latencyFigure: p99 latency against the offered load, as a fraction of
// each scheme's peak (the knee), with the unloaded median for scale.
func latencyFigure(st *bench.ServiceStudy) string {
	var series []plot.Series
	for _, s := range st.Schemes {
		l := plot.Series{Label: s.Scheme + " p99", Color: colourIndex(st, s.Scheme)}
		for _, p := range st.Latency {
			if p.Scheme == s.Scheme && p.Result.Latency.P99 > 0 {
				l.X, l.Y = append(l.X, 100*p.Fraction), append(l.Y, p.Result.Latency.P99*1e6)
			}
		}
		if len(l.X) > 0 {
			series = append(series, l)
		}
	}
	if len(series) == 0 {
		return ""
	}
	return plot.Lines("p99 latency against offered load (open loop, latency from each login's due time)",
		"offered load, % of the scheme's closed-loop peak (log scale)", "p99 latency (log scale)", series, numfmt.Num, numfmt.Ns)
}

// dispatchFigure: one dispatcher's delay against the batch size, measured
// (marks) and fitted T + k·n (dashed) — its Figure 9.
func dispatchFigure(st *bench.ServiceStudy) string {
	var series []plot.Series
	for _, d := range st.Dispatch {
		m := plot.Series{Label: d.Scheme, Color: colourIndex(st, d.Scheme)}
		f := plot.Series{Label: d.Scheme + " fit T + k·n", Color: m.Color, Dashed: true}
		for _, p := range d.Points {
			if p.Ms > 0 {
				m.X, m.Y = append(m.X, float64(p.Size)), append(m.Y, p.Ms*1e6)
				f.X, f.Y = append(f.X, float64(p.Size)), append(f.Y, math.Max(d.TMs+d.KMs*float64(p.Size), 1e-6)*1e6)
			}
		}
		if len(m.X) > 0 {
			series = append(series, m, f)
		}
	}
	if len(series) == 0 {
		return ""
	}
	return plot.Lines("Delay of one dispatcher against the tasks in a batch (CPU backend, one worker; dashed: fitted T + k·n)",
		"tasks in the batch (log scale)", "delay until the whole batch is done (log scale)", series, numfmt.Num, numfmt.Ns)
}

// hashFigure: PAKE and password-hash logins, peak throughput against the
// unloaded median latency (its Table 18 as a picture).
func hashFigure(st *bench.ServiceStudy) string {
	var pts []plot.Point
	for _, s := range st.Schemes {
		if s.Peak > 0 && s.UnloadedP50 > 0 {
			run := 0
			if s.Kind == "hash" {
				run = 1
			}
			pts = append(pts, plot.Point{Label: s.Scheme, Run: run, X: s.Peak, Y: s.UnloadedP50 * 1e6})
		}
	}
	if len(pts) == 0 {
		return ""
	}
	return plot.Scatter("PAKE (blue) and password-hash (orange) logins on the same service",
		"peak logins per second (log scale)", "median latency of a lone client (log scale)", pts, numfmt.Num, numfmt.Ns)
}
