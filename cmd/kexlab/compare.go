package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/bench/meter"
	"github.com/kexlab/kexlab/bench/peer"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/pake"
	"github.com/kexlab/kexlab/report"
)

// Embedded defaults of `kexlab compare`: with them the run (warm-up,
// calibration and samples) fits in about four minutes on a loaded 2-core
// machine, scrypt-heavy schemes included, because the budget sizes n per
// scheme and caps it between -min-n and -n.
const (
	defaultN      = 200
	defaultMinN   = 10
	defaultWarmup = 3
	defaultBudget = 3 * time.Minute
)

// cmdCompare measures the registered schemes with bench.Compare, prints a
// table sorted by median time and writes results.json, results.csv,
// bench.txt (Go benchmark format) and report.html into -out.
func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compare", stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: kexlab compare [flags]

Measures every registered scheme (or -schemes): wall and CPU time of a full
exchange and of each party's steps, registration separately, allocations,
bytes on the wire, and RAPL energy where readable. After a warm-up that
calibrates the cost of each scheme, n per scheme is sized to fit -time
(between -min-n and -n) and the samples of all schemes are interleaved in a
random order fixed by -seed.

`)
		fs.PrintDefaults()
	}
	schemes := fs.String("schemes", "", "comma-separated schemes to measure (instead of -profile)")
	profile := fs.String("profile", pake.ProfileAll, "schemes to measure: "+strings.Join(pake.ProfileNames(), ", ")+
		" (study: the Android study's configurations; recommended: kexlab's hardened ones; all: both, each scheme once)")
	n := fs.Int("n", defaultN, "most samples per scheme")
	minN := fs.Int("min-n", defaultMinN, "fewest samples per scheme (wins over -time)")
	warmup := fs.Int("warmup", defaultWarmup, "warm-up exchanges per scheme (also calibrate the cost)")
	out := fs.String("out", "out", "directory for results.json, results.csv, bench.txt and report.html")
	seed := fs.Uint64("seed", 1, "seed of the interleaved sample order")
	budget := fs.Duration("time", defaultBudget, "time budget of the run; 0 means take -n samples of every scheme")
	label := fs.String("label", "", "name of this run in merged reports (default: host name)")
	quiet := fs.Bool("q", false, "no progress line")
	var peerCmds stringList
	fs.Var(&peerCmds, "peer", "a peer driver to run and sample in the same interleaved order (a command and its arguments, space-separated; repeatable; peers/run.sh gives them)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 2 || *minN < 2 || *warmup < 1 || *budget < 0 {
		return fmt.Errorf("%w: need -n >= 2, -min-n >= 2, -warmup >= 1, -time >= 0", errUsage)
	}
	if *minN > *n {
		return fmt.Errorf("%w: -min-n %d is larger than -n %d", errUsage, *minN, *n)
	}
	list, err := selectSchemes(*schemes)
	if err != nil {
		return err
	}
	prof := ""
	if *schemes == "" {
		if list, err = pake.Profile(*profile); err != nil {
			return fmt.Errorf("%w: -profile: %v", errUsage, err)
		}
		prof = *profile
	} else if flagSet(fs, "profile") {
		return fmt.Errorf("%w: -schemes and -profile exclude each other", errUsage)
	}
	// The flags and -out are checked before minutes of measuring.
	if most := maxN(len(list)); *n > most {
		return fmt.Errorf("%w: -n %d with %d schemes could make a results.json over the %s that kexlab report reads; use -n %d or less",
			errUsage, *n, len(list), fileio.FormatSize(export.MaxJSON), most)
	}
	if err := checkOutDir(*out); err != nil {
		return err
	}
	var procs []*peer.Process
	defer func() {
		for _, p := range procs {
			p.Close()
		}
	}()
	var peers []bench.Peer
	names := map[string]bool{}
	for _, s := range list {
		names[s.Info().Name] = true
	}
	for _, c := range peerCmds {
		p, err := peer.Start(strings.Fields(c), stderr)
		if err != nil {
			return fmt.Errorf("-peer %q: %w", c, err)
		}
		procs = append(procs, p)
		for _, ps := range p.Peers() {
			name := ps.Info().Name
			if names[name] {
				return fmt.Errorf("%w: -peer %q: a scheme named %q is already measured (another driver's or kexlab's)", errUsage, c, name)
			}
			names[name] = true
			peers = append(peers, ps)
		}
	}
	for _, p := range procs {
		fmt.Fprintf(stderr, "compare: peer %s: %d schemes\n", p.Hello.Label, len(p.Hello.Schemes))
	}
	cfg := bench.Config{Schemes: list, Peers: peers, N: *n, MinN: *minN, Warmup: *warmup, Budget: *budget,
		Seed: *seed, Label: *label, Profile: prof}
	if r, err := meter.OpenRAPL(meter.DefaultPowercap); err == nil {
		cfg.Energy = r
	} else {
		cfg.EnergyReason = err.Error()
	}
	if !*quiet {
		cfg.Progress = progress(stderr)
	}
	fmt.Fprintf(stderr, "compare: %d schemes, warm-up and calibration...\n", len(list))
	res, err := bench.Compare(cfg)
	if !*quiet && isTerminal(stderr) {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	if err := printTable(stdout, res); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "ops: full = both parties created and run, password stretching included; "+
		"online = the same with the stretching done beforehand (pake.Preparer); register = the server's record")
	for _, si := range res.Schemes {
		if si.Error != "" {
			fmt.Fprintf(stderr, "compare: warning: %s not measured: %s\n", si.Name, si.Error)
		}
	}
	paths, err := export.WriteAll(*out, res)
	if err != nil {
		return err
	}
	html := filepath.Join(*out, reportName)
	if err := writeReport(html, []*bench.Results{res}, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s, %s\n", strings.Join(paths, ", "), html)
	return nil
}

// selectSchemes looks up the comma-separated scheme names; a scheme named
// twice is a usage error (its samples would merge into one scheme that
// results.json cannot describe).
func selectSchemes(list string) ([]pake.Scheme, error) {
	if strings.TrimSpace(list) == "" {
		return pake.All(), nil
	}
	var out []pake.Scheme
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		s, err := pake.Lookup(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		canon := s.Info().Name
		if seen[canon] {
			return nil, fmt.Errorf("%w: scheme %q listed twice in -schemes", errUsage, canon)
		}
		seen[canon] = true
		out = append(out, s)
	}
	return out, nil
}

// reportName is the HTML report compare writes beside export's files.
const reportName = "report.html"

// exchangeJSONBytes bounds what one exchange of one scheme adds to
// results.json: a sample of each op (full, online, register and their
// floors) with its steps and energy domains. PACE-GM, the largest, takes
// 2.9 KiB without energy (all 13 schemes: 23 KiB); 4 KiB leaves room for
// the energy domains.
const exchangeJSONBytes = 4 << 10

// maxN is the largest -n whose results.json, for schemes schemes, stays
// within export.MaxJSON, the most that `kexlab report` reads.
func maxN(schemes int) int {
	return int(export.MaxJSON / (int64(max(schemes, 1)) * exchangeJSONBytes))
}

// checkOutDir makes sure, before anything is measured, that compare can
// write its files into dir: dir is a directory or can be made one, a file
// can be created in it, and none of the files compare writes is there as
// something other than a regular file.
func checkOutDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("%w: -out is empty", errUsage)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%w: -out %s is a file, not a directory", errUsage, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-out: cannot create the directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".kexlab-compare-*")
	if err != nil {
		return fmt.Errorf("-out %s is not writable: %w", dir, err)
	}
	f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return err
	}
	for _, name := range append(export.Names(), reportName) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("-out: %w", &fileio.NotRegularError{Path: p, Mode: fi.Mode()})
		}
	}
	return nil
}

// progress returns a callback that rewrites one status line on w when w
// is a terminal, and otherwise (a log, CI) prints a line every 15 seconds.
func progress(w io.Writer) func(done, total int, elapsed time.Duration) {
	last := time.Time{}
	every, start, end := 200*time.Millisecond, "\r", "   "
	if !isTerminal(w) {
		every, start, end = 15*time.Second, "", "\n"
	}
	return func(done, total int, elapsed time.Duration) {
		if done < total && time.Since(last) < every {
			return
		}
		last = time.Now()
		eta := time.Duration(0)
		if done > 0 {
			eta = time.Duration(float64(elapsed) / float64(done) * float64(total-done))
		}
		fmt.Fprintf(w, "%scompare: %d/%d samples (%3.0f%%), %s elapsed, about %s left%s", start,
			done, total, 100*float64(done)/float64(total), elapsed.Round(time.Second), eta.Round(time.Second), end)
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// printTable prints one row per scheme and op, sorted by median wall time.
func printTable(w io.Writer, r *bench.Results) error {
	type row struct {
		name string
		med  float64
		line string
	}
	var rows []row
	for _, si := range r.Schemes {
		for _, op := range []string{bench.OpFull, bench.OpOnline, bench.OpRegister, bench.OpFloor, bench.OpFloorOnline} {
			xs := report.Kept(r.Values(si.Name, op, bench.Wall))
			if len(xs) == 0 {
				continue
			}
			sum, err := stats.Summarize(xs)
			if err != nil {
				rows = append(rows, row{si.Name, 0, fmt.Sprintf("%s\t%s\t%d\t%v", si.Name, op, len(xs), err)})
				continue
			}
			bytes := "-"
			if op == bench.OpFull || op == bench.OpOnline {
				bytes = fmt.Sprintf("%d / %d", si.Size, si.StudySize)
			}
			cpu := "-"
			if xs := report.Kept(r.Values(si.Name, op, bench.CPU)); len(xs) > 0 {
				if m, err := stats.Quantile(xs, 0.5); err == nil {
					cpu = dur(m)
				}
			}
			rows = append(rows, row{si.Name + "/" + op, sum.Median, fmt.Sprintf("%s\t%s\t%d\t%s\t%s\t%.1f%%\t[%s, %s] (%.1f%%)\t%s\t%s",
				si.Name, op, sum.N, dur(sum.Median), dur(sum.IQR), 100*sum.CV,
				dur(sum.MedianCI.Low), dur(sum.MedianCI.High), 100*sum.MedianCI.Level, cpu, bytes)})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].med < rows[j].med })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCHEME\tOP\tN\tMEDIAN\tIQR\tCV\t95% CI OF MEDIAN (coverage)\tCPU MEDIAN\tBYTES std / study")
	for _, r := range rows {
		fmt.Fprintln(tw, r.line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := printLimits(w, r); err != nil {
		return err
	}
	if r.Energy.Measured {
		fmt.Fprintf(w, "energy: measured (%s: %s)\n", r.Energy.Meter, strings.Join(r.Energy.Domains, ", "))
	} else {
		fmt.Fprintf(w, "energy: not measured: %s\n", r.Energy.Reason)
	}
	return nil
}

// printLimits prints each scheme's ratio to its primitive limit.
func printLimits(w io.Writer, r *bench.Results) error {
	ls := report.Limits(r)
	if len(ls) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nprimitive limit: exchange / unavoidable operations timed beside it, order alternated (median of paired ratios on %s, 95%% CI)\n", ls[0].Metric)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCHEME\tOP / FLOOR\tN\tEXCHANGE\tFLOOR\tRATIO\t95% CI")
	for _, l := range ls {
		if l.Err != "" {
			fmt.Fprintf(tw, "%s\t%s / %s\t-\t%s\n", l.Scheme, l.Op, l.FloorOp, l.Err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s / %s\t%d\t%s\t%s\t%.2f\t[%.2f, %.2f]\n", l.Scheme, l.Op, l.FloorOp, l.Ratio.N,
			dur(l.Exchange), dur(l.Floor), l.Ratio.Median, l.Ratio.MedianCI.Low, l.Ratio.MedianCI.High)
	}
	return tw.Flush()
}

// dur formats nanoseconds with three significant digits.
func dur(ns float64) string { return durDigits(time.Duration(ns), 3) }

// durDigits formats d in s, ms, µs or ns with up to digits significant
// digits.
func durDigits(d time.Duration, digits int) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.*gs", digits, d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.*gms", digits, float64(d)/1e6)
	case d >= time.Microsecond:
		return fmt.Sprintf("%.*gµs", digits, float64(d)/1e3)
	}
	return fmt.Sprintf("%dns", d)
}

func writeReport(path string, runs []*bench.Results, loads []*bench.LoadResult, studies ...*bench.ServiceStudy) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.WriteAll(f, runs, loads, studies...); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, "; ") }

func (l *stringList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty command")
	}
	*l = append(*l, v)
	return nil
}
