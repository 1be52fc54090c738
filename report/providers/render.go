package providers

import (
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/report"
	"github.com/kexlab/kexlab/report/internal/numfmt"
)

// WriteFiles writes the provider study's tables of runs as HTML to
// htmlPath and as text beside it (the same name with .txt), and says so on
// log. It does nothing, and returns false, when no run holds provider-study
// benchmarks.
func WriteFiles(htmlPath string, runs []*bench.Results, log io.Writer, opt Options) (bool, error) {
	study := StudyWith(runs, opt)
	if len(study) == 0 {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(htmlPath), 0o755); err != nil {
		return false, err
	}
	txtPath := strings.TrimSuffix(htmlPath, filepath.Ext(htmlPath)) + ".txt"
	for _, f := range []struct {
		path  string
		write func(io.Writer, []Run) error
	}{{htmlPath, writeHTML}, {txtPath, writeText}} {
		w, err := os.Create(f.path)
		if err != nil {
			return false, err
		}
		err = f.write(w, study)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return false, err
		}
	}
	n := 0
	for _, r := range study {
		n += len(r.Tables)
	}
	fmt.Fprintf(log, "wrote %s and %s (JCE provider study: %d comparison tables)\n", htmlPath, txtPath, n)
	return true, nil
}

// WriteText writes the provider study's tables of runs as text.
func WriteText(w io.Writer, runs []*bench.Results) error {
	return writeText(w, Study(runs))
}

func negligible(p report.Pair) string {
	if p.Negligible {
		return " (significant, under 5 %)"
	}
	return ""
}

// shortName abbreviates long provider names in table headers.
func shortName(s string) string {
	if s == "AmazonCorrettoCryptoProvider" {
		return "ACCP"
	}
	return s
}

func writeText(w io.Writer, study []Run) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, r := range study {
		fmt.Fprintf(tw, "JCE provider study — run %s (%s)\n", r.Label, r.Energy)
		if r.Unreliable != "" {
			fmt.Fprintf(tw, "UNRELIABLE RUN: %s. Load during the run: %s.\n", r.Unreliable, r.Load)
		} else if len(r.AA) > 0 {
			fmt.Fprintf(tw, "A/A check passed: %d controls, none significantly different. Load during the run: %s.\n", len(r.AA), r.Load)
		}
		fmt.Fprintf(tw, "%d cases: %d measured, %d not supported, %d failed, %d left out by the time budget.\n",
			r.Total, r.Measured, r.Unsupported, r.Failed, r.Budget)
		fmt.Fprintf(tw, "Verdicts: row against column; %s.\n", r.Rule)
		for _, p := range r.AA {
			fmt.Fprintf(tw, "A/A %s vs %s: p %.3g, Holm %.3g, δ %+.3f, %s%s\n", p.A, p.B, p.P, p.PAdj, p.Delta, p.Verdict, negligible(p))
		}
		for _, s := range Summaries(r) {
			fmt.Fprintf(tw, "\n== %s\n", s.Family)
			for i, rk := range s.Ranking {
				fmt.Fprintf(tw, "RQ1 %d. %s: ×%.2f of the fastest (geometric mean over %d tables), fastest in %d, wins %d, losses %d, median δ %+.3f\n",
					i+1, shortName(rk.Provider), rk.GeoRatio, rk.Tables, rk.Fastest, rk.Wins, rk.Losses, rk.Delta)
			}
			for _, st := range s.Steps {
				fmt.Fprintf(tw, "RQ2 %s\n", st)
			}
			for _, st := range s.Prices {
				fmt.Fprintf(tw, "RQ3 %s\n", st)
			}
			for _, st := range s.Digests {
				fmt.Fprintf(tw, "digest %s\n", st)
			}
		}
		for _, t := range r.Tables {
			fmt.Fprintf(tw, "\n%s — %s\n", t.Kind, t.Title)
			fmt.Fprintf(tw, "\tn\tmedian\t95%% CI of median\tenergy median (µJ)\n")
			for _, it := range t.Items {
				if it.Err != "" {
					fmt.Fprintf(tw, "%s\t%s\n", shortName(it.Label), it.Err)
					continue
				}
				e := "not measured"
				if it.Energy != nil {
					e = numfmt.Num(it.Energy.Median)
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t[%s, %s]\t%s\n", shortName(it.Label), it.N, numfmt.Ns(it.Wall.Median),
					numfmt.Ns(it.Wall.MedianCI.Low), numfmt.Ns(it.Wall.MedianCI.High), e)
			}
			if err := tw.Flush(); err != nil { // the matrix has its own columns
				return err
			}
			for _, energy := range []bool{false, true} {
				m := t.matrixMarks(energy, r.Rule == PaperRule)
				if m == nil {
					continue
				}
				what := "time"
				if energy {
					what = "energy"
				}
				fmt.Fprintf(tw, "%s:", what)
				for _, h := range m.cols {
					fmt.Fprintf(tw, "\t%s", shortName(h))
				}
				fmt.Fprintln(tw)
				for i, row := range m.cells {
					fmt.Fprint(tw, shortName(m.rows[i]))
					for _, c := range row {
						fmt.Fprintf(tw, "\t%s", c)
					}
					fmt.Fprintln(tw)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			for _, p := range t.Pairs {
				if p.Err == "" {
					fmt.Fprintf(tw, "  %s vs %s: p %.3g, Holm %.3g, δ %+.3f, %s%s\n", shortName(p.A), shortName(p.B), p.P, p.PAdj, p.Delta, p.Verdict, negligible(p))
				}
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// verdictMatrix is a table's verdicts, row against column.
type verdictMatrix struct {
	rows, cols []string
	cells      [][]string
}

// matrix returns the verdicts between the measured items of t (for
// default-vs-recommended tables: the default's row only), or nil when
// there are none.
func (t Table) matrix(energy bool) *verdictMatrix {
	return t.matrixMarks(energy, false)
}

// matrixMarks is matrix; with marks, the cells are the paper's ⊕ (row
// better), ⊖ (worse) and ⊙ (no significant difference).
func (t Table) matrixMarks(energy, marks bool) *verdictMatrix {
	pairs := t.Pairs
	if energy {
		pairs = t.EnergyPairs
	}
	if len(pairs) == 0 {
		return nil
	}
	var labels []string
	for _, it := range t.Items {
		if it.Err == "" {
			labels = append(labels, it.Label)
		}
	}
	m := &verdictMatrix{rows: labels, cols: labels}
	if t.Kind == DefaultVsRecommended {
		m.rows, m.cols = nil, nil
		for _, it := range t.Items {
			switch {
			case it.Err != "":
			case it.Case.Default():
				m.rows = append(m.rows, it.Label)
			default:
				m.cols = append(m.cols, it.Label)
			}
		}
	}
	for _, a := range m.rows {
		var row []string
		for _, b := range m.cols {
			v := t.Verdict(a, b, energy)
			switch {
			case a == b:
				v = "–"
			case v == "":
				v = "n/a"
			case marks:
				v = map[string]string{"better": "⊕", "worse": "⊖", "no significant difference": "⊙"}[v]
			case v == "no significant difference":
				v = "no sig. diff."
			}
			row = append(row, v)
		}
		m.cells = append(m.cells, row)
	}
	return m
}

func writeHTML(w io.Writer, study []Run) error {
	type tableView struct {
		Table
		Time, Energy *verdictMatrix
	}
	type runView struct {
		Run
		Summaries      []Summary
		Figures        []template.HTML
		NoEnergyFigure string
		Tables         []tableView
	}
	v := struct {
		Generated string
		Alpha     float64
		Runs      []runView
	}{Generated: time.Now().UTC().Format(time.RFC3339), Alpha: report.Alpha}
	for _, r := range study {
		rv := runView{Run: r, Summaries: Summaries(r)}
		for _, f := range Figures(r) {
			rv.Figures = append(rv.Figures, template.HTML(f))
		}
		energy := EnergyFigures(r)
		for _, f := range energy {
			rv.Figures = append(rv.Figures, template.HTML(f))
		}
		if len(energy) == 0 {
			rv.NoEnergyFigure = "not drawn: this run measured no energy (" + r.Energy + ")"
		}
		marks := r.Rule == PaperRule
		for _, t := range r.Tables {
			rv.Tables = append(rv.Tables, tableView{t, t.matrixMarks(false, marks), t.matrixMarks(true, marks)})
		}
		v.Runs = append(v.Runs, rv)
	}
	return page.Execute(w, v)
}

var page = template.Must(template.New("providers").Funcs(template.FuncMap{
	"ns":    numfmt.Ns,
	"num":   numfmt.Num,
	"short": shortName,
	"cell": func(s string) string {
		switch s {
		case "better", "⊕":
			return "better"
		case "worse", "⊖":
			return "worse"
		}
		return ""
	},
	"p": func(v float64) string {
		if v < 1e-4 {
			return fmt.Sprintf("%.1e", v)
		}
		return fmt.Sprintf("%.4f", v)
	},
	"delta": func(v float64) string { return fmt.Sprintf("%+.3f", v) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kexlab JCE provider study</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; }
td.l, th.l { text-align: left; }
.better { color: #006d2c; } .worse { color: #b30000; }
.unreliable { color: #b30000; font-weight: bold; border: 2px solid #b30000; padding: 0.5em; }
.reliable { color: #006d2c; }
.note { color: #555; }
</style>
</head>
<body>
<h1>JCE provider study</h1>
<p class="note">Generated {{.Generated}}. After Montenegro, Pinto and Fuentes (IEEE Access 2018): provider against provider for each primitive and key size, key size against key size for each provider, and each provider's default transformation against the recommended ones. Times are averages per operation, one sample per measurement iteration (kexlab's harness: several JVM forks, the cases in a random order per fork). Verdicts read row against column, direction from Cliff's δ; each table lists every pair with its raw and Holm-adjusted p-value and δ.</p>
{{range .Runs}}{{$run := .}}<h2>Run: {{.Label}}</h2>
{{if .Unreliable}}<p class="unreliable" id="unreliable">UNRELIABLE RUN: {{.Unreliable}}. The machine's load during the run: {{.Load}}.</p>
{{else if .AA}}<p class="reliable" id="aa-ok">A/A check passed: none of the {{len .AA}} A/A controls (the same implementation under two names) came out significantly different. Load during the run: {{.Load}}.</p>
{{end}}<p class="note" id="counts">{{.Total}} cases: {{.Measured}} measured, {{.Unsupported}} not supported, {{.Failed}} failed, {{.Budget}} left out by the time budget. Verdicts: {{.Rule}}.</p>
<p class="note">{{.Energy}}</p>
{{with .Summaries}}<h3 id="answers">Answers: the research questions per primitive family</h3>
<p class="note">RQ1 — which provider is fastest: providers ranked by the geometric mean of their median over the family's fastest provider, table by table (1.00 = always the fastest), with the tables in which each is fastest, its significant wins and losses against other providers and its median Cliff's δ (negative: tends to be faster). RQ2 — what a larger key costs: the ratio of the larger size's median to the smaller's, per provider and table (median [min, max]; how many pairs were significant, and of those how many had the larger key slower). RQ3 — the price of the recommended transformation over the default: the ratio recommended/default in the same way.</p>
{{range .}}<h4>{{.Family}}</h4>
{{with .Ranking}}<table class="ranking">
<tr><th class="l">RQ1: provider</th><th>× fastest (geometric mean)</th><th>tables</th><th>fastest in</th><th>wins</th><th>losses</th><th>median δ</th></tr>
{{range .}}<tr><td class="l">{{short .Provider}}</td><td>{{printf "%.2f" .GeoRatio}}</td><td>{{.Tables}}</td><td>{{.Fastest}}</td><td>{{.Wins}}</td><td>{{.Losses}}</td><td>{{delta .Delta}}</td></tr>
{{end}}</table>{{end}}
{{with .Steps}}<table class="steps">
<tr><th class="l">RQ2: key-size step</th><th>ratio (median)</th><th>[min, max]</th><th>n</th><th>significant</th><th>larger slower</th></tr>
{{range .}}<tr><td class="l">{{.What}}</td><td>{{printf "%.2f" .Median}}</td><td>[{{printf "%.2f" .Min}}, {{printf "%.2f" .Max}}]</td><td>{{.N}}</td><td>{{.Significant}}</td><td>{{.Higher}}</td></tr>
{{end}}</table>{{end}}
{{with .Digests}}<table class="digests">
<tr><th class="l">digest length step</th><th>ratio (median)</th><th>[min, max]</th><th>n</th><th>significant</th><th>longer slower</th></tr>
{{range .}}<tr><td class="l">{{.What}}</td><td>{{printf "%.2f" .Median}}</td><td>[{{printf "%.2f" .Min}}, {{printf "%.2f" .Max}}]</td><td>{{.N}}</td><td>{{.Significant}}</td><td>{{.Higher}}</td></tr>
{{end}}</table>{{end}}
{{with .Prices}}<table class="prices">
<tr><th class="l">RQ3: recommended over default</th><th>ratio (median)</th><th>[min, max]</th><th>n</th><th>significant</th><th>recommended slower</th></tr>
{{range .}}<tr><td class="l">{{.What}}</td><td>{{printf "%.2f" .Median}}</td><td>[{{printf "%.2f" .Min}}, {{printf "%.2f" .Max}}]</td><td>{{.N}}</td><td>{{.Significant}}</td><td>{{.Higher}}</td></tr>
{{end}}</table>{{end}}
{{end}}{{end}}
{{with .Figures}}<h3 id="figures">Figures</h3>
{{range .}}<figure>{{.}}</figure>
{{end}}{{with $run.NoEnergyFigure}}<p class="note">Energy against time: {{.}}</p>{{end}}{{end}}
{{with .AA}}<h3>A/A controls</h3>
<table class="aa">
<tr><th class="l">alias</th><th class="l">canonical</th><th>median A</th><th>median B</th><th>p</th><th>p (Holm)</th><th>δ</th><th class="l">verdict</th></tr>
{{range .}}<tr><td class="l">{{.A}}</td><td class="l">{{.B}}</td><td>{{ns .MedA}}</td><td>{{ns .MedB}}</td><td>{{p .P}}</td><td>{{p .PAdj}}</td><td>{{delta .Delta}}</td><td class="l">{{.Verdict}}{{if .Negligible}} (significant, under 5 %){{end}}</td></tr>
{{end}}</table>{{end}}
{{range .Tables}}<h3>{{.Kind}}: {{.Title}}</h3>
<table>
<tr><th class="l"></th><th>n</th><th>median</th><th>95% CI of median</th><th>energy median (µJ)</th></tr>
{{range .Items}}{{if .Err}}<tr><td class="l">{{short .Label}}</td><td colspan="4" class="l">{{.Err}}</td></tr>
{{else}}<tr><td class="l">{{short .Label}}</td><td>{{.N}}</td><td>{{ns .Wall.Median}}</td><td>[{{ns .Wall.MedianCI.Low}}, {{ns .Wall.MedianCI.High}}]</td><td>{{with .Energy}}{{num .Median}}{{else}}not measured{{end}}</td></tr>
{{end}}{{end}}</table>
{{with .Time}}{{$m := .}}<table>
<tr><th class="l">time</th>{{range .Cols}}<th>{{short .}}</th>{{end}}</tr>
{{range $i, $row := .Cells}}<tr><th class="l">{{short (index $m.Rows $i)}}</th>{{range $row}}<td class="{{cell .}}">{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{with .Energy}}{{$m := .}}<table>
<tr><th class="l">energy</th>{{range .Cols}}<th>{{short .}}</th>{{end}}</tr>
{{range $i, $row := .Cells}}<tr><th class="l">{{short (index $m.Rows $i)}}</th>{{range $row}}<td class="{{cell .}}">{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{with .Pairs}}<table class="pairs">
<tr><th class="l">A (lower median)</th><th class="l">B</th><th>p</th><th>p (Holm)</th><th>Cliff's δ</th><th class="l">verdict</th></tr>
{{range .}}<tr><td class="l">{{short .A}}</td><td class="l">{{short .B}}</td>{{if .Err}}<td colspan="4" class="l">{{.Err}}</td>{{else}}<td>{{p .P}}</td><td>{{p .PAdj}}</td><td>{{delta .Delta}}</td><td class="l">{{.Verdict}}{{if .Negligible}} (significant, under 5 %){{end}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{end}}{{end}}
</body>
</html>
`))

// Exported accessors for the template (verdictMatrix fields are
// unexported to keep the type internal).

// Rows are the row labels.
func (m *verdictMatrix) Rows() []string { return m.rows }

// Cols are the column labels.
func (m *verdictMatrix) Cols() []string { return m.cols }

// Cells are the verdicts, row against column.
func (m *verdictMatrix) Cells() [][]string { return m.cells }
