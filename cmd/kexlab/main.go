// Command kexlab runs kexlab's key exchanges, their known-answer tests and
// their measurements. It is a thin layer: flag parsing and wiring only.
//
//	kexlab schemes [-json]   list the registered PAKEs, suites and message sizes
//	kexlab vectors [-v]      run every known-answer test compiled into the binary
//	kexlab compare [flags]   measure every scheme; write results and report.html
//	kexlab report FILE...    re-render report.html from results.json / JMH / Jetpack files
//	kexlab wifi handshake    4-way handshakes with one KDF/MIC and the timing model
//	kexlab wifi table        every KDF/MIC (standard and lightweight) on several links
//	kexlab serve [flags]     the PAKE authentication service (package server)
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/pake"
	"github.com/kexlab/kexlab/wg/netlab"
)

const usage = `usage: kexlab <command> [flags]

commands:
  schemes   list the registered PAKEs with their suites and message sizes
  vectors   run every known-answer test compiled into the binary
  compare   measure every scheme (time, CPU, allocations, bytes, energy) and write
            results.json, results.csv, bench.txt and report.html
  report    re-render report.html from results.json, JMH or Jetpack JSON files
  wifi      802.11 4-way handshakes with standard or lightweight KDF/MIC:
            'wifi handshake' (one KDF/MIC, one link), 'wifi table' (all of them)
  wg        WireGuard PSK rotator: 'wg demo', 'wg bench', 'wg key', 'wg run -config FILE'
  serve     the PAKE authentication service: SRP, SPAKE2+, OPAQUE and PQ logins over HTTP, with a sign-in page
  load      drive a kexlab serve on loopback: logins per second and latency percentiles (closed or open loop)
  load-study  the service study (Heterogeneous-PAKE): dispatcher delay vs batch, throughput vs connections,
            latency vs offered load, PAKE vs bcrypt/Argon2id logins; starts kexlab serve -study itself
  help      show this text

Run 'kexlab <command> -h' for a command's flags.
`

// errUsage marks errors caused by the command line (exit status 2).
var errUsage = errors.New("usage")

func main() {
	netlab.MaybeRunHelper() // KEXLAB_NETLAB_HELPER set: run as the soak lab's WireGuard device (package wg/netlab) and exit
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "schemes":
		err = cmdSchemes(args[1:], stdout, stderr)
	case "vectors":
		err = cmdVectors(args[1:], stdout, stderr)
	case "compare":
		err = cmdCompare(args[1:], stdout, stderr)
	case "report":
		err = cmdReport(args[1:], stdout, stderr)
	case "wifi":
		err = cmdWifi(args[1:], stdout, stderr)
	case "serve":
		err = cmdServe(args[1:], stdout, stderr)
	case "load":
		err = cmdLoad(args[1:], stdout, stderr)
	case "load-study":
		err = cmdLoadStudy(args[1:], stdout, stderr)
	case "wg":
		err = cmdWG(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "kexlab: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "kexlab %s: %v\n", args[0], err)
		return 2
	default:
		fmt.Fprintf(stderr, "kexlab %s: %v\n", args[0], err)
		return 1
	}
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseQuiet parses flags with one line for a bad one: the flag package's
// error wrapped in errUsage, without the usage text it would print (that
// is for -h, which gets it in full and returns flag.ErrHelp).
func parseQuiet(fs *flag.FlagSet, args []string) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	case err != nil:
		return fmt.Errorf("%w: %v (-h lists the flags)", errUsage, err)
	}
	return nil
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := parseQuiet(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	return nil
}

func cmdSchemes(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("schemes", stderr)
	asJSON := fs.Bool("json", false, "print the scheme descriptions as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	var infos []pake.Info
	for _, s := range pake.All() {
		infos = append(infos, s.Info())
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(infos)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCHEME\tSUITE\tSPEC\tKIND\tMESSAGES (bytes)\tTOTAL\tSTUDY ACCOUNTING")
	for _, in := range infos {
		kind := "balanced"
		if in.Augmented {
			kind = "augmented"
		}
		if in.KeyConfirmation {
			kind += "+confirm"
		}
		var sizes, study []string
		total, studyTotal := 0, 0
		for _, m := range in.Messages {
			arrow := "C→S"
			if m.From == pake.Server {
				arrow = "S→C"
			}
			upTo := ""
			if m.Variable {
				upTo = "≤"
			}
			sizes = append(sizes, fmt.Sprintf("%s %s %s%d", arrow, m.Name, upTo, m.Size))
			study = append(study, fmt.Sprint(m.StudySize))
			total += m.Size
			studyTotal += m.StudySize
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s = %d\n", in.Name, in.Suite, in.Spec, kind,
			strings.Join(sizes, "; "), total, strings.Join(study, "+"), studyTotal)
	}
	return tw.Flush()
}

func cmdVectors(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("vectors", stderr)
	verbose := fs.Bool("v", false, "print every test, not only failures")
	if err := parse(fs, args); err != nil {
		return err
	}
	type suite struct {
		name  string
		tests []kat.Test
	}
	suites := []suite{{"group/p256", group.KnownAnswerTests()}}
	for _, s := range pake.All() {
		suites = append(suites, suite{s.Info().Name, s.KnownAnswerTests()})
	}
	var passed, failed int
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, s := range suites {
		r := kat.RunAll(s.tests)
		passed += r.Passed
		failed += r.Failed
		status := "ok"
		if r.Failed > 0 {
			status = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d passed, %d failed\n", s.name, status, r.Passed, r.Failed)
		for _, e := range r.Failures {
			fmt.Fprintf(tw, "\t  %v\n", e)
		}
		if *verbose {
			for _, t := range s.tests {
				fmt.Fprintf(tw, "\t  %s\n", t.Name)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "vectors: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return fmt.Errorf("%d known-answer tests failed", failed)
	}
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
