package report

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/pake"
	"github.com/kexlab/kexlab/report/internal/numfmt"
	"github.com/kexlab/kexlab/report/internal/plot"
)

// Write renders the HTML report of runs to w.
func Write(w io.Writer, runs []*bench.Results) error {
	return WriteAll(w, runs, nil)
}

type view struct {
	Generated string
	Load      []loadRow
	Study     []studyView
	Soak      []soakView
	Runs      []runView
	Figures   []template.HTML
	Across    []Across
	Agree     []Agreement
	Findings  []findingsView
	// FindingsAgree compares the findings of the first two kexlab compare
	// runs ("" with fewer).
	FindingsAgree string
}

type findingsView struct {
	Label string
	Rows  []Finding
}

type runView struct {
	Run
	Machine bench.Machine
	Energy  string
	Color   string
	Steps   []stepRow
	Wire    []wireRow
	Phases  []phaseRow
	// PeerTests: kexlab against the independent implementations measured
	// in the same run.
	PeerTests []PeerTest
}

type wireRow struct {
	Scheme          string
	Messages        string
	Size, StudySize int
	Check           string
}

// wire lists each scheme's messages: name, direction, size under the
// standard encoding / the study accounting, and the length seen on the
// wire.
func wire(r *bench.Results) []wireRow {
	var out []wireRow
	for _, si := range r.Schemes {
		if len(si.Messages) == 0 {
			continue
		}
		var parts []string
		for _, m := range si.Messages {
			arrow := "C→S"
			if m.From == "server" {
				arrow = "S→C"
			}
			parts = append(parts, fmt.Sprintf("%s %s: %d / %d (wire %d)", arrow, m.Name, m.Size, m.StudySize, m.Actual))
		}
		out = append(out, wireRow{si.Name, strings.Join(parts, "; "), si.Size, si.StudySize, si.WireCheck})
	}
	return out
}

type stepRow struct {
	Scheme string
	Steps  string
}

func build(an []Run) view {
	v := view{Generated: time.Now().UTC().Format(time.RFC3339)}
	multi := len(an) > 1
	label := func(r Run, s string) string {
		if multi {
			return s + " — " + r.Label
		}
		return s
	}
	var imported, energy, peers []plot.Dot
	sets := map[string]*figureSet{}
	for i, r := range an {
		rv := runView{Run: r, Machine: r.Results.Machine, Color: plot.Color(i)}
		if r.Results.Energy.Measured {
			rv.Energy = fmt.Sprintf("energy: measured with %s (%s)", r.Results.Energy.Meter, strings.Join(r.Results.Energy.Domains, ", "))
			if rail := r.Results.Energy.Rail; rail != "" {
				rv.Energy += "; shown: rail " + rail
			}
		} else {
			rv.Energy = "energy: not measured: " + r.Results.Energy.Reason
		}
		rv.Wire = wire(r.Results)
		rv.PeerTests = PeerTests(r.Results)
		if rv.Phases = browserPhases(r.Results); rv.Phases == nil {
			rv.Steps = steps(r.Results)
		}
		v.Runs = append(v.Runs, rv)
		native := Native(r.Results)
		for _, row := range r.Rows {
			if row.Err != "" {
				continue
			}
			d := plot.Dot{Key: row.Scheme, Label: label(r, row.Scheme), Run: i, Mid: row.Wall.Median,
				Lo: row.Wall.MedianCI.Low, Hi: row.Wall.MedianCI.High, Coverage: row.Wall.MedianCI.Level}
			if row.Energy != nil {
				energy = append(energy, plot.Dot{Key: row.Scheme + " " + row.Op, Label: label(r, row.Scheme+" "+row.Op), Run: i,
					Mid: row.Energy.Median, Lo: row.Energy.MedianCI.Low, Hi: row.Energy.MedianCI.High, Coverage: row.Energy.MedianCI.Level})
			}
			if !native {
				d.Label = label(r, row.Scheme+" ("+r.Results.Source+")")
				imported = append(imported, d)
				continue
			}
			si, _ := r.Results.Scheme(row.Scheme)
			if si.Peer != nil {
				if row.Op == bench.OpFull {
					peers = append(peers, d)
				}
				continue
			}
			for _, p := range profilesOr(si.Profiles) {
				fs := sets[p]
				if fs == nil {
					fs = &figureSet{}
					sets[p] = fs
				}
				fs.add(row, d, i)
			}
		}
	}
	var firsts [][]Finding
	for _, r := range an {
		if Native(r.Results) {
			fs := Findings(r.Results)
			v.Findings = append(v.Findings, findingsView{r.Label, fs})
			firsts = append(firsts, fs)
		}
	}
	if len(firsts) >= 2 {
		n, differ := FindingsAgree(firsts[0], firsts[1])
		v.FindingsAgree = fmt.Sprintf("%s and %s: %d finding(s) called significant by either run; they differ on %d",
			v.Findings[0].Label, v.Findings[1].Label, n, len(differ))
		if len(differ) > 0 {
			v.FindingsAgree += ": " + strings.Join(differ, "; ")
		}
	}
	v.Across = CompareRuns(an)
	v.Agree = RankingAgreement(an)
	add := func(title, axis string, d []plot.Dot, f func(float64) string) {
		if len(d) > 0 {
			v.Figures = append(v.Figures, template.HTML(plot.Dots(title, axis, group(d), f)))
		}
	}
	for _, p := range profileOrder {
		fs := sets[p]
		if fs == nil {
			continue
		}
		t := profileTitle(p)
		// The Android study's whole picture: every scheme on one axis,
		// fastest first (by its first run's median).
		whole := append(append([]plot.Dot{}, fs.bal...), fs.aug...)
		sort.SliceStable(whole, func(i, j int) bool { return whole[i].Mid < whole[j].Mid })
		add(t+"Whole picture: every scheme's full exchange, fastest first (median, 95% CI)", "time per exchange (log scale)", whole, numfmt.Ns)
		add(t+"Balanced schemes: full exchange (median, 95% CI)", "time per exchange (log scale)", fs.bal, numfmt.Ns)
		add(t+"Augmented schemes: full exchange (median, 95% CI)", "time per exchange (log scale)", fs.aug, numfmt.Ns)
		add(t+"Augmented schemes: registration (median, 95% CI)", "time per registration (log scale)", fs.reg, numfmt.Ns)
		add(t+"Online exchange, stretching done beforehand (median, 95% CI)", "time per exchange (log scale)", fs.online, numfmt.Ns)
		// Hollow marks first, so that a filled one at the same place stays visible.
		sort.SliceStable(fs.pts, func(i, j int) bool { return fs.pts[i].Open && !fs.pts[j].Open })
		if len(fs.pts) > 0 {
			v.Figures = append(v.Figures, template.HTML(plot.Scatter(t+"Full exchange time vs bytes on the wire",
				"total message bytes (filled: standard encoding; hollow: study accounting; log scale)",
				"median time (log scale)", fs.pts, numfmt.Num, numfmt.Ns)))
		}
	}
	add("Independent implementations measured in the same run (kexlab compare -peer; no profile): full exchange (median, 95% CI)", "time per exchange (log scale)", peers, numfmt.Ns)
	add("Imported benchmarks (no profile): time per operation (median, 95% CI)", "time per operation (log scale)", imported, numfmt.Ns)
	add("All profiles — Energy per operation (RAPL package, or imported rail/total; median, 95% CI)", "µJ (log scale)", energy, numfmt.Num)
	return v
}

// figureSet holds the dots of one profile's figures.
type figureSet struct {
	bal, aug, reg, online []plot.Dot
	pts                   []plot.Point
}

func (fs *figureSet) add(row Row, d plot.Dot, run int) {
	switch {
	case row.Op == bench.OpRegister:
		fs.reg = append(fs.reg, d)
	case row.Op == bench.OpOnline:
		fs.online = append(fs.online, d)
	case row.Op != bench.OpFull:
		return
	case row.Augmented:
		fs.aug = append(fs.aug, d)
	default:
		fs.bal = append(fs.bal, d)
	}
	if row.Op == bench.OpFull && row.Size > 0 {
		fs.pts = append(fs.pts, plot.Point{Label: row.Scheme, Run: run, X: float64(row.Size), Y: row.Wall.Median})
		if row.StudySize > 0 && row.StudySize != row.Size {
			fs.pts = append(fs.pts, plot.Point{Label: row.Scheme + " (study)", Run: run,
				X: float64(row.StudySize), Y: row.Wall.Median, Open: true})
		}
	}
}

// profileOrder is the order of the profiles' figures; "" collects the
// schemes of files that record no profile.
var profileOrder = []string{pake.ProfileStudy, pake.ProfileRecommended, ""}

func profilesOr(ps []string) []string {
	if len(ps) == 0 {
		return []string{""}
	}
	return ps
}

// profileTitle is what a figure's title says about its profile.
func profileTitle(p string) string {
	if p == "" {
		return "Profile not recorded — "
	}
	return "Profile " + p + " — "
}

// group puts the dots of the same scheme from different runs next to each
// other, in the order in which each scheme first appears.
func group(ds []plot.Dot) []plot.Dot {
	first := map[string]int{}
	for i, d := range ds {
		if _, ok := first[d.Key]; !ok {
			first[d.Key] = i
		}
	}
	out := append([]plot.Dot(nil), ds...)
	sort.SliceStable(out, func(i, j int) bool { return first[out[i].Key] < first[out[j].Key] })
	return out
}

// steps gives, per scheme, the median time of each step of a full exchange.
func steps(r *bench.Results) []stepRow {
	type key struct {
		i    int
		name string
	}
	var out []stepRow
	for _, si := range r.Schemes {
		vals := map[key][]float64{}
		var keys []key
		for _, s := range r.Samples {
			if s.Scheme != si.Name || s.Op != bench.OpFull {
				continue
			}
			for i, st := range s.Steps {
				k := key{i, st.Party + " " + st.Name}
				if _, ok := vals[k]; !ok {
					keys = append(keys, k)
				}
				vals[k] = append(vals[k], float64(st.Ns))
			}
		}
		if len(keys) == 0 {
			continue
		}
		sort.Slice(keys, func(a, b int) bool { return keys[a].i < keys[b].i })
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %s", k.name, numfmt.Ns(median(vals[k]))))
		}
		out = append(out, stepRow{si.Name, strings.Join(parts, "; ")})
	}
	return out
}

var funcs = template.FuncMap{
	"ns":    numfmt.Ns,
	"nsi":   func(v int64) string { return numfmt.Ns(float64(v)) },
	"num":   numfmt.Num,
	"bytes": numfmt.Bytes,
	"pct":   func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) },
	"p": func(v float64) string {
		if v < 1e-4 {
			return fmt.Sprintf("%.1e", v)
		}
		return fmt.Sprintf("%.4f", v)
	},
	"delta": func(v float64) string { return fmt.Sprintf("%+.3f", v) },
	"verdict": func(v stats.Verdict) string {
		switch v {
		case stats.Better:
			return "A faster"
		case stats.Worse:
			return "A slower"
		}
		return v.String()
	},
	"join": strings.Join,
}

var page = template.Must(template.New("report").Funcs(funcs).Parse(pageHTML))
