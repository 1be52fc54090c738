// Package loadstudy runs the service experiments of the Heterogeneous-PAKE
// study (R. Wei et al., ACSAC 2021, doi:10.1145/3485832.3485877) against
// `kexlab serve` on this machine (`kexlab load-study`):
//
//  1. the delay of one dispatcher against the number of tasks in a batch
//     (its Figure 9), each scheme's server-side login step on the CPU
//     backend, with the fitted batch latency T, cost per task k and the
//     threshold t = ⌈T/k⌉ against an accelerator (its Table 6);
//  2. closed-loop throughput against the number of connections for
//     several dispatcher batch sizes (its Figure 10), and the peak per
//     scheme (its Table 7);
//  3. open-loop latency percentiles at fractions of each scheme's peak
//     (the knee), latency counted from each login's intended start so that
//     a backlog shows (no coordinated omission);
//  4. the same service logging in with a password hash — bcrypt 10 and 12,
//     Argon2id (RFC 9106's second recommended setting) — on the same HTTP
//     path (its Table 18): `kexlab serve -study`.
//
// The client-side latency with an idle and a busy server (its Tables
// 14–17) is measured in the browser (clients/ts, make ts-test).
//
// The service runs as its own process, so that its CPU time (read from
// /proc/PID/stat) is the server's alone: logins per second of server CPU
// time is the per-core rate, compared with the scheme's server-side
// primitive limit (the group operations, KEM calls or the hash of one
// login, timed on this process's CPU time). The load generator shares the
// machine's cores with the service: absolute rates are this machine's,
// the per-core rates are not limited by it.
package loadstudy

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/meter"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/internal/floor"
	"github.com/kexlab/kexlab/pake/apakepq"
	"github.com/kexlab/kexlab/pake/opaque"
	"github.com/kexlab/kexlab/pake/spake2plus"
	"github.com/kexlab/kexlab/pake/srp"
	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/client"
	"github.com/kexlab/kexlab/server/dispatch"
	"github.com/kexlab/kexlab/server/load"
)

// Config is the shape of a study.
type Config struct {
	Exe string   // the kexlab binary, whose serve subcommand runs the service
	Env []string // added to the service process's environment

	Schemes   []string      // PAKE schemes and password hashes
	Conns     []int         // closed-loop connections for PAKE schemes (1 is always run)
	HashConns []int         // for the hashes, which are slower
	Batches   []int         // dispatcher batch sizes (kexlab serve -max-batch), one service start each
	Fractions []float64     // open-loop rates, as fractions of each scheme's peak
	Point     time.Duration // measured time of each load point
	Warmup    time.Duration // before each point, not recorded
	Accounts  int           // per scheme
	PeakRuns  int           // closed-loop runs at each scheme's peak for its per-core rate (the sweep's and repeats)
	// CalibrateMax is the largest batch of experiment 1, LimitRounds the
	// rounds of the primitive-limit timing.
	CalibrateMax, LimitRounds int
	Log                       io.Writer // progress lines; nil: none
}

// Default is the full study (about 9 minutes on 2 cores).
func Default() Config {
	return Config{
		Schemes:   []string{"srp-1024", "srp-1536", "srp-2048", "srp-3072", "spake2plus", "opaque", "apakepq", "bcrypt-10", "bcrypt-12", "argon2id"},
		Conns:     []int{1, 2, 4, 8, 16, 32},
		HashConns: []int{1, 2, 4, 8},
		Batches:   []int{1, dispatch.DefaultMaxBatch},
		Fractions: []float64{0.25, 0.5, 0.7, 0.9, 1.1},
		Point:     2 * time.Second, Warmup: 500 * time.Millisecond,
		Accounts: 128, CalibrateMax: 32, LimitRounds: 15, PeakRuns: 5,
	}
}

// Quick is a short study for tests: every experiment, a few points.
func Quick() Config {
	return Config{
		Schemes: []string{"srp-1024", "opaque", "bcrypt-10"},
		Conns:   []int{1, 4}, HashConns: []int{1, 2},
		Batches:   []int{dispatch.DefaultMaxBatch},
		Fractions: []float64{0.7},
		Point:     300 * time.Millisecond, Warmup: 100 * time.Millisecond,
		Accounts: 2, CalibrateMax: 4, LimitRounds: 5, PeakRuns: 2,
	}
}

// Check reports a configuration Run refuses.
func (cfg *Config) Check() error {
	if cfg.Exe == "" {
		return errors.New("loadstudy: no kexlab binary")
	}
	if len(cfg.Schemes) == 0 || len(cfg.Batches) == 0 {
		return errors.New("loadstudy: no schemes or no batch sizes")
	}
	for _, sc := range cfg.Schemes {
		if client.IsHash(sc) {
			continue // Limit would hash a password to tell
		}
		if _, err := Limit(sc); err != nil {
			return err
		}
	}
	for _, list := range [][]int{cfg.Conns, cfg.HashConns} {
		for _, c := range list {
			if c < 1 || c > 1024 {
				return fmt.Errorf("loadstudy: %d connections: want 1 to 1024", c)
			}
		}
	}
	for _, b := range cfg.Batches {
		if b < 1 || b > 4096 {
			return fmt.Errorf("loadstudy: batch size %d: want 1 to 4096", b)
		}
	}
	for _, f := range cfg.Fractions {
		if !(f > 0 && f <= 10) {
			return fmt.Errorf("loadstudy: load fraction %v: want (0, 10]", f)
		}
	}
	switch {
	case cfg.Point <= 0 || cfg.Point > time.Hour || cfg.Warmup < 0 || cfg.Warmup > time.Hour:
		return fmt.Errorf("loadstudy: point %v, warm-up %v: want (0, 1h] and [0, 1h]", cfg.Point, cfg.Warmup)
	case cfg.Accounts < 1 || cfg.Accounts > 1000 || cfg.PeakRuns < 1 || cfg.PeakRuns > 100:
		return fmt.Errorf("loadstudy: %d accounts, %d peak runs: want 1 to 1000 and 1 to 100", cfg.Accounts, cfg.PeakRuns)
	case cfg.CalibrateMax < 2 || cfg.CalibrateMax > 1024 || cfg.LimitRounds < 3 || cfg.LimitRounds > 1000:
		return fmt.Errorf("loadstudy: calibration batch %d, limit rounds %d: want 2 to 1024 and 3 to 1000", cfg.CalibrateMax, cfg.LimitRounds)
	}
	return nil
}

// Limit returns the server-side primitive work of one login with scheme:
// floor.Floor.Server of the scheme's package (the group operations or KEM
// calls a server holding the record performs), or one hash check.
func Limit(scheme string) (func() error, error) {
	if client.IsHash(scheme) {
		return server.HashProbe(scheme)
	}
	var f *floor.Floor
	var err error
	switch scheme {
	case "srp-1024", "srp-1536", "srp-2048", "srp-3072":
		bits, _ := strconv.Atoi(strings.TrimPrefix(scheme, "srp-"))
		var p *srp.Params
		if p, err = srp.NewParams(bits, crypto.SHA256); err == nil {
			f, err = srp.Unavoidable(nil, p)
		}
	case "spake2plus":
		f, err = spake2plus.Unavoidable(nil)
	case "opaque":
		f, err = opaque.Unavoidable(nil, opaque.Identity)
	case "apakepq":
		f, err = apakepq.Unavoidable(nil, server.APAKEPQIterations)
	default:
		return nil, fmt.Errorf("loadstudy: unknown scheme %q", scheme)
	}
	if err != nil {
		return nil, fmt.Errorf("loadstudy: %s: %w", scheme, err)
	}
	if f == nil || f.Server == nil {
		return nil, fmt.Errorf("loadstudy: %s: no server-side limit", scheme)
	}
	return f.Server, nil
}

// Run runs the study.
func Run(ctx context.Context, cfg Config) (*bench.ServiceStudy, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if !slices.Contains(cfg.Conns, 1) {
		cfg.Conns = append([]int{1}, cfg.Conns...)
	}
	if !slices.Contains(cfg.HashConns, 1) {
		cfg.HashConns = append([]int{1}, cfg.HashConns...)
	}
	st := &bench.ServiceStudy{Format: bench.ServiceStudyFormat, Machine: bench.DescribeMachine(),
		PointSeconds: cfg.Point.Seconds(), WarmupSeconds: cfg.Warmup.Seconds(), Accounts: cfg.Accounts,
		ServerCPUs: "all cores, shared with the load generator"}
	r := &runner{cfg: cfg, st: st}

	// The primitive limits, and experiment 1 for the PAKE schemes, under
	// the service's garbage-collector setting (server.TuneGC): Argon2id's
	// 64 MiB per hash, say, costs page faults under Go's default that the
	// service does not pay.
	defer debug.SetGCPercent(debug.SetGCPercent(server.GCPercent))
	sums, err := r.limits(cfg.Schemes)
	if err != nil {
		return nil, err
	}
	st.Schemes = sums
	for _, sc := range cfg.Schemes {
		if client.IsHash(sc) {
			continue
		}
		fit, err := r.dispatchFit(sc)
		if err != nil {
			return nil, err
		}
		st.Dispatch = append(st.Dispatch, fit)
	}
	dir, err := os.MkdirTemp("", "kexlab-load-study-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r.data = dir

	// Experiments 2 and 4: closed loop against connections, per batch size.
	for i, b := range cfg.Batches {
		if err := r.throughput(ctx, b, i > 0); err != nil {
			return nil, err
		}
	}
	r.summarize()
	// The knee: open loop at fractions of the peak, at the service's
	// default batch size.
	if err := r.latency(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

type runner struct {
	cfg  Config
	st   *bench.ServiceStudy
	data string // the service's data directory, kept across its restarts
}

func (r *runner) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "load-study: "+format+"\n", args...)
	}
}

// limits times each scheme's server-side primitive work on this
// process's CPU time: LimitRounds rounds, each timing every scheme in turn
// (so that drift in the machine's speed hits all alike), each scheme for
// enough runs to take about 20 ms.
func (r *runner) limits(schemes []string) ([]bench.SchemeSummary, error) {
	fs := make([]func() error, len(schemes))
	per := make([]int, len(schemes))
	ms := make([][]float64, len(schemes))
	for i, sc := range schemes {
		f, err := Limit(sc)
		if err != nil {
			return nil, err
		}
		if err := f(); err != nil { // warm-up
			return nil, fmt.Errorf("loadstudy: %s: %w", sc, err)
		}
		d, err := cpuOf(f, 1)
		if err != nil {
			return nil, err
		}
		fs[i], per[i] = f, max(1, int(20*time.Millisecond/max(d, time.Microsecond)))
	}
	for range r.cfg.LimitRounds {
		for i, f := range fs {
			d, err := cpuOf(f, per[i])
			if err != nil {
				return nil, fmt.Errorf("loadstudy: %s: %w", schemes[i], err)
			}
			ms[i] = append(ms[i], float64(d)/float64(time.Millisecond)/float64(per[i]))
		}
	}
	var out []bench.SchemeSummary
	for i, sc := range schemes {
		q1, _ := stats.Quantile(ms[i], 0.25)
		med, _ := stats.Quantile(ms[i], 0.5)
		q3, _ := stats.Quantile(ms[i], 0.75)
		r.logf("%s: server-side primitive limit %.3f ms [%.3f, %.3f] CPU per login (n=%d rounds of %d)", sc, med, q1, q3, len(ms[i]), per[i])
		s := bench.SchemeSummary{Scheme: sc, Kind: "pake", LimitMs: med, LimitQ1: q1, LimitQ3: q3, LimitN: len(ms[i])}
		if client.IsHash(sc) {
			s.Kind = "hash"
		}
		if med > 0 {
			s.LimitPerCore = 1000 / med
		}
		out = append(out, s)
	}
	return out, nil
}

// cpuOf runs f n times and returns the process's CPU time it took.
func cpuOf(f func() error, n int) (time.Duration, error) {
	a, err := meter.ProcessCPU()
	if err != nil {
		return 0, fmt.Errorf("loadstudy: process CPU time: %w", err)
	}
	for range n {
		if err := f(); err != nil {
			return 0, err
		}
	}
	b, err := meter.ProcessCPU()
	return b - a, err
}

// dispatcherBackend submits a batch to one dispatcher at once and waits
// for all of it: Calibrate then times the dispatcher's delay for a batch.
type dispatcherBackend struct{ d *dispatch.Dispatcher }

func (dispatcherBackend) Name() string        { return "dispatcher" }
func (dispatcherBackend) Cost() dispatch.Cost { return dispatch.Cost{} }
func (b dispatcherBackend) Run(batch []dispatch.Task) []error {
	errs := make([]error, len(batch))
	done := make(chan struct{}, len(batch))
	for i, t := range batch {
		go func() {
			errs[i] = b.d.Do(context.Background(), t)
			done <- struct{}{}
		}()
	}
	for range batch {
		<-done
	}
	return errs
}

// dispatchFit is experiment 1 for one scheme: one dispatcher, one worker,
// the CPU backend, batches of up to CalibrateMax logins' server steps.
func (r *runner) dispatchFit(scheme string) (bench.DispatchFit, error) {
	f, err := Limit(scheme)
	if err != nil {
		return bench.DispatchFit{}, err
	}
	d := dispatch.New(dispatch.Config{Workers: 1, MaxBatch: r.cfg.CalibrateMax, QueueDepth: 2 * r.cfg.CalibrateMax}, dispatch.CPU{}, nil)
	defer d.Close()
	fit, err := dispatch.Calibrate(dispatcherBackend{d}, f, r.cfg.CalibrateMax)
	if err != nil {
		return bench.DispatchFit{}, fmt.Errorf("loadstudy: %s: %w", scheme, err)
	}
	out := bench.DispatchFit{Scheme: scheme, Backend: "cpu (1 worker)", Reps: fit.Reps,
		TMs: ms(fit.T), KMs: ms(fit.K), R2: fit.R2, Clamped: fit.Clamped,
		Threshold: "none: no accelerator in this build (the GPU backend is not built; t = ⌈T_gpu/k⌉ needs its T)"}
	for _, p := range fit.Points {
		out.Points = append(out.Points, bench.BatchDelay{Size: p.Size, Ms: ms(p.Time)})
	}
	r.logf("%s: dispatcher delay %v", scheme, fit)
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// throughput runs the closed-loop sweep of every scheme against a service
// whose dispatcher takes batches of up to batch tasks.
func (r *runner) throughput(ctx context.Context, batch int, registered bool) error {
	svc, err := startService(ctx, r.cfg.Exe, r.cfg.Env, r.data, batch)
	if err != nil {
		return err
	}
	defer svc.stop()
	for _, sc := range r.cfg.Schemes {
		conns := r.cfg.Conns
		if client.IsHash(sc) {
			conns = r.cfg.HashConns
		}
		reg := registered // the accounts exist (an earlier batch size's service made them)
		for _, c := range conns {
			p, err := r.point(ctx, svc, sc, load.Loop{Concurrency: c, Duration: r.cfg.Point, Warmup: r.cfg.Warmup}, reg)
			if err != nil {
				return err
			}
			reg = true
			tp := bench.ThroughputPoint{Scheme: sc, MaxBatch: batch, Conns: c, Result: *p.res, ServerCPUS: p.cpu.Seconds()}
			if p.cpu > 0 {
				tp.PerCore = perCore(p)
			}
			r.st.Throughput = append(r.st.Throughput, tp)
			r.logf("%s batch %d, %d conns: %.1f logins/s, %.1f per server CPU second, p50 %.2f ms, p99 %.2f ms, %d errors",
				sc, batch, c, p.res.Throughput, tp.PerCore, p.res.Latency.P50, p.res.Latency.P99, errCount(p.res))
		}
	}
	return nil
}

// perCore is p's logins per second of server CPU time: the CPU time read
// around the run covers its counted logins and those it drained.
func perCore(p point) float64 {
	return float64(p.res.OK+p.res.Drained) / p.cpu.Seconds()
}

type point struct {
	res *bench.LoadResult
	cpu time.Duration // the service's CPU time during the measured run (0: not readable)
}

// point runs one load run after its warm-up, registering the accounts
// first unless registered; the service's CPU time is read around the
// measured run.
func (r *runner) point(ctx context.Context, svc *service, scheme string, loop load.Loop, registered bool) (point, error) {
	if !registered {
		if err := load.Register(ctx, load.Config{URL: svc.url, Scheme: scheme, Accounts: r.cfg.Accounts}); err != nil {
			return point{}, fmt.Errorf("loadstudy: %s: %w", scheme, err)
		}
	}
	// One connection pool for the warm-up and the run, so that the run
	// starts on open connections.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = loop.Concurrency
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	warm := loop
	warm.Duration, warm.Warmup, warm.Requests = max(loop.Warmup, time.Millisecond), 0, 0
	if _, err := load.Run(ctx, load.Config{URL: svc.url, Scheme: scheme, Accounts: r.cfg.Accounts, Registered: true, HTTP: hc, Loop: warm}); err != nil {
		return point{}, fmt.Errorf("loadstudy: %s warm-up: %w", scheme, err)
	}
	loop.Warmup = 0
	c0 := svc.cpu()
	res, err := load.Run(ctx, load.Config{URL: svc.url, Scheme: scheme, Accounts: r.cfg.Accounts, Registered: true, HTTP: hc, Loop: loop})
	c1 := svc.cpu()
	if err != nil {
		return point{}, fmt.Errorf("loadstudy: %s: %w", scheme, err)
	}
	p := point{res: res}
	if c0 >= 0 && c1 >= c0 {
		p.cpu = c1 - c0
	}
	return p, nil
}

func errCount(res *bench.LoadResult) int {
	n := 0
	for _, v := range res.Errors {
		n += v
	}
	return n
}

// summarize finds each scheme's peak and unloaded median.
func (r *runner) summarize() {
	for i := range r.st.Schemes {
		s := &r.st.Schemes[i]
		for _, p := range r.st.Throughput {
			if p.Scheme != s.Scheme {
				continue
			}
			if p.Result.Throughput > s.Peak {
				s.Peak, s.PeakConns, s.PeakBatch, s.PeakPerCore = p.Result.Throughput, p.Conns, p.MaxBatch, p.PerCore
				s.PerCoreRuns = nil
				if p.PerCore > 0 {
					s.PerCoreRuns = []float64{p.PerCore}
				}
			}
			if p.Conns == 1 && p.MaxBatch == r.cfg.Batches[len(r.cfg.Batches)-1] {
				s.UnloadedP50 = p.Result.Latency.P50
			}
		}
		setPct(s)
	}
}

// setPct sets s.PctLimit from its per-core rate and limit.
func setPct(s *bench.SchemeSummary) {
	if s.LimitPerCore > 0 && s.PeakPerCore > 0 {
		s.PctLimit = 100 * s.PeakPerCore / s.LimitPerCore
	}
}

// latency runs each scheme's open loop at the fractions of its peak.
func (r *runner) latency(ctx context.Context) error {
	if len(r.cfg.Fractions) == 0 {
		return nil
	}
	svc, err := startService(ctx, r.cfg.Exe, r.cfg.Env, r.data, r.cfg.Batches[len(r.cfg.Batches)-1])
	if err != nil {
		return err
	}
	defer svc.stop()
	// The per-core rate at each peak, again, the schemes in turn.
	for range r.cfg.PeakRuns - 1 {
		for i := range r.st.Schemes {
			s := &r.st.Schemes[i]
			if s.Peak <= 0 {
				continue
			}
			p, err := r.point(ctx, svc, s.Scheme, load.Loop{Concurrency: s.PeakConns, Duration: r.cfg.Point, Warmup: r.cfg.Warmup}, true)
			if err != nil {
				return err
			}
			if p.cpu > 0 {
				s.PerCoreRuns = append(s.PerCoreRuns, perCore(p))
			}
		}
	}
	for i := range r.st.Schemes {
		s := &r.st.Schemes[i]
		if len(s.PerCoreRuns) > 0 {
			s.PeakPerCore, _ = stats.Quantile(s.PerCoreRuns, 0.5)
			setPct(s)
			r.logf("%s: %.1f logins per server CPU second at %d connections (median of %d runs, %.1f to %.1f)", s.Scheme,
				s.PeakPerCore, s.PeakConns, len(s.PerCoreRuns), slices.Min(s.PerCoreRuns), slices.Max(s.PerCoreRuns))
		}
	}
	for i := range r.st.Schemes {
		s := &r.st.Schemes[i]
		if s.Peak <= 0 {
			continue
		}
		for _, f := range r.cfg.Fractions {
			rate := max(f*s.Peak, 0.001)
			p, err := r.point(ctx, svc, s.Scheme, load.Loop{Concurrency: 64, Rate: rate, Duration: r.cfg.Point, Warmup: r.cfg.Warmup}, true)
			if err != nil {
				return err
			}
			r.st.Latency = append(r.st.Latency, bench.LatencyPoint{Scheme: s.Scheme, Fraction: f, Result: *p.res})
			r.logf("%s at %.0f%% of peak (%.1f/s): p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, %d errors",
				s.Scheme, 100*f, rate, p.res.Latency.P50, p.res.Latency.P99, p.res.Latency.P999, errCount(p.res))
			if f == 0.7 && s.UnloadedP50 > 0 {
				s.P99At70 = p.res.Latency.P99
				s.Ratio = s.P99At70 / s.UnloadedP50
			}
		}
	}
	return nil
}
