package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/bench/importer"
	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/report"
	"github.com/kexlab/kexlab/report/providers"
)

// cmdReport re-renders report.html from earlier runs: results.json files of
// `kexlab compare` (any machine), JMH JSON and Jetpack Microbenchmark JSON.
// The runs appear side by side, each under its label.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	out := fs.String("o", "out/report.html", "the HTML file to write")
	labels := fs.String("labels", "", "comma-separated labels for the runs, in order (default: each run's own label)")
	paperRule := fs.Bool("paper-rule", false, "JCE provider study: judge pairs by the paper's rule (unadjusted rank-sum tests at α = 0.05, ⊕/⊖/⊙) instead of Holm within each table")
	rail := fs.String("rail", "", "the energy rail to show for runs that measured rails (imported Jetpack runs: e.g. cpu.big, the Android study's)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kexlab report [-o out/report.html] [-labels a,b] FILE...\n\nFILE is a results.json of kexlab compare, a JMH JSON result (-rf json), an\nAndroid Jetpack Microbenchmark JSON file, a kexlab load result (-o), a\nkexlab load-study result (-o) or a kexlab wg bench -soak result (-results);\nthe format is detected. Each FILE\nmust be a regular file of at most %s.\n", fileio.FormatSize(export.MaxJSON))
		fs.PrintDefaults()
	}
	if err := parseQuiet(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: no input files", errUsage)
	}
	var ls []string
	if *labels != "" {
		if ls = strings.Split(*labels, ","); len(ls) != fs.NArg() {
			return fmt.Errorf("%w: %d labels for %d files", errUsage, len(ls), fs.NArg())
		}
	}
	var runs []*bench.Results
	var loads []*bench.LoadResult
	var studies []*bench.ServiceStudy
	var soaks []*bench.SoakResult
	for _, path := range fs.Args() {
		in, err := loadAny(path)
		if err != nil {
			return err
		}
		switch {
		case in.load != nil:
			loads = append(loads, in.load)
		case in.study != nil:
			studies = append(studies, in.study)
		case in.soak != nil:
			soaks = append(soaks, in.soak)
		default:
			runs = append(runs, in.run)
		}
	}
	if len(ls) > 0 && len(loads)+len(studies)+len(soaks) > 0 {
		return fmt.Errorf("%w: -labels names runs; kexlab load, load-study and wg bench -soak results carry none", errUsage)
	}
	for i, l := range ls {
		runs[i].Label = strings.TrimSpace(l)
	}
	if *rail != "" {
		if err := selectRail(runs, *rail); err != nil {
			return err
		}
	}
	if dir := filepath.Dir(*out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := writeInputs(*out, report.Inputs{Runs: runs, Loads: loads, Studies: studies, Soaks: soaks}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d runs, %d load results, %d service studies, %d wg soak results)\n", *out, len(runs), len(loads), len(studies), len(soaks))
	if len(runs) == 0 {
		return nil
	}
	if _, err := providers.WriteFiles(strings.TrimSuffix(*out, ".html")+"-providers.html", runs, stdout, providers.Options{PaperRule: *paperRule}); err != nil {
		return err
	}
	an, err := report.Analyze(runs)
	if err != nil {
		return err
	}
	for _, a := range report.RankingAgreement(an) {
		fmt.Fprintf(stdout, "agreement of %s with %s: %d pairs significant in %s: %d same verdict, %d reversed, %d not significant, %d missing\n",
			a.Run, a.Baseline, a.Significant, a.Baseline, a.Same, a.Reversed, a.NotSignificant(), a.Missing)
	}
	return nil
}

// input is one file of kexlab report: exactly one field is set.
type input struct {
	run   *bench.Results
	load  *bench.LoadResult
	study *bench.ServiceStudy
	soak  *bench.SoakResult
}

// loadAny reads a results.json, one of the imported formats, a kexlab
// load result, a kexlab load-study result or a kexlab wg bench -soak
// result: a regular file of at most export.MaxJSON bytes.
func loadAny(path string) (input, error) {
	b, err := fileio.ReadFile(path, export.MaxJSON)
	if err != nil {
		return input{}, err
	}
	if l, err := export.ReadLoad(b); l != nil || err != nil {
		if err != nil {
			return input{}, fmt.Errorf("%s: %w", path, err)
		}
		return input{load: l}, nil
	}
	if st, err := export.ReadServiceStudy(b); st != nil || err != nil {
		if err != nil {
			return input{}, fmt.Errorf("%s: %w", path, err)
		}
		return input{study: st}, nil
	}
	if sk, err := export.ReadSoak(b); sk != nil || err != nil {
		if err != nil {
			return input{}, fmt.Errorf("%s: %w", path, err)
		}
		return input{soak: sk}, nil
	}
	r, err := importer.Detect(b)
	if err != nil {
		return input{}, fmt.Errorf("%s: %w", path, err)
	}
	if r == nil {
		if r, err = export.ReadJSON(bytes.NewReader(b)); err != nil {
			return input{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	if r.Label == "" {
		r.Label = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return input{run: r}, nil
}

// selectRail shows the energy of rail for every run that has it; a rail
// no run has is a usage error that lists the rails there are.
func selectRail(runs []*bench.Results, rail string) error {
	var have []string
	found := false
	for _, r := range runs {
		if r.SelectRail(rail) == nil {
			found = true
		} else if r.Energy.Measured {
			have = append(have, r.Label+": "+strings.Join(r.Energy.Domains, ", "))
		}
	}
	if !found {
		if len(have) == 0 {
			return fmt.Errorf("%w: -rail %s: no run measured energy", errUsage, rail)
		}
		return fmt.Errorf("%w: -rail %s: no run has that rail (%s)", errUsage, rail, strings.Join(have, "; "))
	}
	return nil
}

// writeInputs writes the HTML report of in to path.
func writeInputs(path string, in report.Inputs) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.WriteInputs(f, in); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
