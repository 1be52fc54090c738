package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/wg/wgbench"
)

// cmdWGBench measures the rows of package wgbench (Derive per key source,
// one PSK update per mode and source) and prints n, median and IQR of each;
// -results writes every sample as results JSON for kexlab report. With
// -soak it measures the daemon's cost over time instead (soakFlags).
func cmdWGBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg bench", stderr)
	n := fs.Int("n", 200, "samples per row")
	seed := fs.Uint64("seed", 1, "seed of the interleaved sample order")
	label := fs.String("label", "", "label of the run in reports (default: the host name)")
	results := fs.String("results", "", "write every sample as results JSON (for kexlab report) to this file")
	jsonPath := fs.String("json", "", "alias of -results")
	sf := addSourceFlags(fs)
	soak := fs.Duration("soak", 0, "instead of latencies, measure the daemon's CPU time, wakeups and memory per hour beside an idle WireGuard, "+
		"for this long per combination of mode and key source, after a warm-up (0: off; needs root: network namespaces). "+
		"10m gives a first look; the issue asks for 30m or more")
	so := addSoakFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 2 || *n > 1_000_000 {
		return fmt.Errorf("%w: need 2 ≤ -n ≤ 1e6", errUsage)
	}
	if *results != "" && *jsonPath != "" && *results != *jsonPath {
		return fmt.Errorf("%w: -json is an alias of -results; give one", errUsage)
	}
	if *results == "" {
		results = jsonPath
	}
	if *soak < 0 || *soak > 0 && *soak < time.Second {
		return fmt.Errorf("%w: -soak %v: want 0 (off) or at least 1s", errUsage, *soak)
	}
	if *soak > 0 {
		if flagSet(fs, "n") || flagSet(fs, "seed") {
			return fmt.Errorf("%w: -n and -seed are for the latency rows, not -soak", errUsage)
		}
		return cmdWGSoak(*soak, so, sf, *label, *results, stdout, stderr)
	}
	if so.given() {
		return fmt.Errorf("%w: the -soak-* flags need -soak", errUsage)
	}
	sources, err := sf.open()
	defer func() {
		for _, s := range sources {
			s.Close()
		}
	}()
	if err != nil {
		return err
	}
	r, err := wgbench.Run(wgbench.Config{Sources: sources, N: *n, Seed: *seed, Label: *label})
	if err != nil {
		return err
	}
	rows, err := wgbench.Summarize(r)
	if err != nil {
		return err
	}
	width := 0
	for _, row := range rows {
		width = max(width, len(row.Name))
	}
	for _, row := range rows {
		cpu := ""
		if row.CPU != nil {
			cpu = " cpu=" + fmtDur(row.CPU.Median)
		}
		fmt.Fprintf(stdout, "%-*s  n=%d median=%s IQR=%s%s\n", width, row.Name, row.Wall.N,
			fmtDur(row.Wall.Median), fmtDur(row.Wall.IQR), cpu)
	}
	if *results == "" {
		return nil
	}
	f, err := os.Create(*results)
	if err != nil {
		return err
	}
	if err := export.WriteJSON(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fmtDur formats nanoseconds with three significant digits.
func fmtDur(ns float64) string {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(ns, 'g', 3, 64), 64)
	for _, u := range []struct {
		scale float64
		name  string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}} {
		if v >= u.scale {
			return strconv.FormatFloat(v/u.scale, 'f', -1, 64) + u.name
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + "ns"
}
