package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kexlab/kexlab/server/load"
)

// cmdLoad drives a running kexlab serve on loopback (package server/load).
func cmdLoad(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("load", stderr)
	target := fs.String("url", "http://127.0.0.1:8080", "the service (a loopback address only)")
	scheme := fs.String("scheme", "srp-2048", "srp-2048, srp-3072, spake2plus, opaque or apakepq (a service run with -study also takes srp-1024, srp-1536, bcrypt-10, bcrypt-12 and argon2id)")
	accounts := fs.Int("accounts", 16, "accounts registered before the run and logged in to round robin")
	conc := fs.Int("c", 4, "concurrent clients (closed loop) or the most logins in flight (open loop)")
	rate := fs.Float64("rate", 0, "logins per second due, latency measured from when each was due (open loop); 0: closed loop")
	duration := fs.Duration("duration", 10*time.Second, "measured time")
	requests := fs.Int("requests", 0, "most logins measured (0: -duration alone)")
	warmup := fs.Duration("warmup", 2*time.Second, "time run before measuring, not recorded")
	out := fs.String("o", "", "write the result as JSON to this file")
	if err := parse(fs, args); err != nil {
		return err
	}
	var progressed bool
	cfg := load.Config{URL: *target, Scheme: *scheme, Accounts: *accounts,
		Loop: load.Loop{Concurrency: *conc, Rate: *rate, Duration: *duration, Requests: *requests, Warmup: *warmup},
		Progress: func(p load.Progress) {
			progressed = true
			fmt.Fprintf(stderr, "\r%5.1fs  %d logins  %.0f/s  %d errors ", p.Elapsed.Seconds(), p.OK, float64(p.OK)/p.Elapsed.Seconds(), p.Errors)
		}}
	if err := cfg.Check(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := load.Run(ctx, cfg)
	if progressed {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	l := res.Latency
	fmt.Fprintf(stdout, "%s, %s loop, %d clients", res.Scheme, res.Loop, res.Concurrency)
	if res.Rate > 0 {
		fmt.Fprintf(stdout, ", %.0f/s offered", res.Rate)
	}
	fmt.Fprintf(stdout, ": %d logins in %.1f s = %.1f/s\nlatency ms: p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f  (mean %.2f)\n",
		res.OK, res.Seconds, res.Throughput, l.P50, l.P90, l.P99, l.P999, l.Max, l.Mean)
	for kind, n := range res.Errors {
		fmt.Fprintf(stdout, "errors: %s %d\n", kind, n)
	}
	if *out != "" {
		if err := writeJSONFile(*out, res); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	}
	return nil
}

// writeJSONFile writes v as indented JSON to path, creating its directory.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
