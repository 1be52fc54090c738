package report

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/report/internal/numfmt"
	"github.com/kexlab/kexlab/report/internal/plot"
)

// loadRow is one `kexlab load` run in the report's table.
type loadRow struct {
	Scheme, Loop, Offered, Errors string
	Concurrency                   int
	Throughput                    string
	P50, P90, P99, P999, Max      string
	N                             int64
}

// WriteAll renders the report of runs, of load-generator results and of
// service studies (any may be empty, not all).
func WriteAll(w io.Writer, runs []*bench.Results, loads []*bench.LoadResult, studies ...*bench.ServiceStudy) error {
	return WriteInputs(w, Inputs{Runs: runs, Loads: loads, Studies: studies})
}

// Inputs are everything a report can show.
type Inputs struct {
	Runs    []*bench.Results
	Loads   []*bench.LoadResult
	Studies []*bench.ServiceStudy
	Soaks   []*bench.SoakResult // kexlab wg bench -soak
}

// WriteInputs renders the report of in (any field may be empty, not all).
func WriteInputs(w io.Writer, in Inputs) error {
	runs, loads, studies := in.Runs, in.Loads, in.Studies
	var an []Run
	if len(runs) > 0 || (len(loads) == 0 && len(studies) == 0 && len(in.Soaks) == 0) {
		var err error
		if an, err = Analyze(runs); err != nil {
			return err
		}
	}
	v := build(an)
	v.Load = loadRows(loads)
	v.Study = studyViews(studies)
	v.Soak = soakViews(in.Soaks)
	if fig := loadFigure(loads); fig != "" {
		v.Figures = append(v.Figures, template.HTML(fig))
	}
	return page.Execute(w, v)
}

func loadRows(loads []*bench.LoadResult) []loadRow {
	var out []loadRow
	for _, l := range loads {
		ms := func(v float64) string { return numfmt.Ns(v * 1e6) }
		r := loadRow{Scheme: l.Scheme, Loop: l.Loop, Concurrency: l.Concurrency, N: l.OK,
			Throughput: fmt.Sprintf("%.1f/s", l.Throughput), Offered: "–",
			P50: ms(l.Latency.P50), P90: ms(l.Latency.P90), P99: ms(l.Latency.P99), P999: ms(l.Latency.P999), Max: ms(l.Latency.Max)}
		if l.Rate > 0 {
			r.Offered = fmt.Sprintf("%.1f/s", l.Rate)
		}
		var errs []string
		for k, n := range l.Errors {
			errs = append(errs, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(errs)
		r.Errors = strings.Join(errs, ", ")
		out = append(out, r)
	}
	return out
}

// loadFigure plots p99 latency against throughput, one point per run
// labelled with its scheme: as the offered load grows, a scheme's points
// move right until the latency turns up (the knee).
func loadFigure(loads []*bench.LoadResult) string {
	var pts []plot.Point
	for _, l := range loads {
		if l.Throughput > 0 && l.Latency.P99 > 0 {
			pts = append(pts, plot.Point{Label: l.Scheme, X: l.Throughput, Y: l.Latency.P99 * 1e6})
		}
	}
	if len(pts) == 0 {
		return ""
	}
	return plot.Scatter("kexlab load: p99 latency against throughput (one point per run)",
		"successful logins per second (log scale)", "p99 latency (log scale)", pts, numfmt.Num, numfmt.Ns)
}
