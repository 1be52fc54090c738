package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kexlab/kexlab/server/loadstudy"
)

// cmdLoadStudy runs the service study (package server/loadstudy) against
// kexlab serve processes it starts on loopback, and writes its JSON and
// report.
func cmdLoadStudy(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("load-study", stderr)
	quick := fs.Bool("quick", false, "a short study: three schemes, a few points (what make test runs)")
	schemes := fs.String("schemes", "", "comma-separated schemes and hashes (default: all: srp-1024 … srp-3072, spake2plus, opaque, apakepq, bcrypt-10, bcrypt-12, argon2id)")
	conns := fs.String("conns", "", "comma-separated closed-loop connection counts for the PAKE schemes (default 1,2,4,8,16,32)")
	batches := fs.String("batches", "", "comma-separated dispatcher batch sizes, one service start each (default 1,64)")
	point := fs.Duration("point", 0, "measured time of each load point (default 2s; -quick 300ms)")
	out := fs.String("o", "out/load-study/study.json", "the study's JSON; report.html is written beside it")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg := loadstudy.Default()
	if *quick {
		cfg = loadstudy.Quick()
	}
	if *schemes != "" {
		cfg.Schemes = strings.Split(*schemes, ",")
	}
	for _, l := range []struct {
		flag string
		dst  *[]int
	}{{*conns, &cfg.Conns}, {*batches, &cfg.Batches}} {
		if l.flag == "" {
			continue
		}
		var v []int
		for _, f := range strings.Split(l.flag, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("%w: %q is not a number", errUsage, f)
			}
			v = append(v, n)
		}
		*l.dst = v
	}
	if *point != 0 {
		cfg.Point = *point
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cfg.Exe, cfg.Env, cfg.Log = exe, studyEnv, stderr
	if err := cfg.Check(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	st, err := loadstudy.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := writeJSONFile(*out, st); err != nil {
		return err
	}
	html := strings.TrimSuffix(*out, ".json") + ".html"
	if strings.HasSuffix(*out, "study.json") {
		html = strings.TrimSuffix(*out, "study.json") + "report.html"
	}
	if err := writeReport(html, nil, nil, st); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%-11s %-5s %12s %12s %12s %7s %10s %10s %7s\n", "scheme", "kind", "peak/s", "per core/s", "limit/s", "%limit", "p50 ms", "p99@70% ms", "ratio")
	for _, s := range st.Schemes {
		fmt.Fprintf(stdout, "%-11s %-5s %12.1f %12.1f %12.1f %7.0f %10.2f %10.2f %7.2f\n", s.Scheme, s.Kind, s.Peak, s.PeakPerCore, s.LimitPerCore, s.PctLimit, s.UnloadedP50, s.P99At70, s.Ratio)
	}
	fmt.Fprintf(stdout, "wrote %s and %s in %s\n", *out, html, time.Since(start).Round(time.Second))
	return nil
}

// studyEnv is added to the environment of the services the study starts
// (the tests set it to run this binary's main).
var studyEnv []string
