// Package load is the service's load generator (`kexlab load`): it drives
// a running `kexlab serve` with the Go client (package server/client),
// logging in to accounts it registers beforehand, and measures throughput
// and latency percentiles with HdrHistogram.
//
// Two loops, as load testers distinguish them:
//
//   - closed (Config.Rate 0): Concurrency clients, each starting its next
//     login when the last one ends. Latency is each login's own time. The
//     offered load adapts to the server, so this finds the peak throughput
//     but hides queueing: a stalled server simply gets fewer requests.
//   - open (Config.Rate > 0): logins are due at a fixed rate, the i-th at
//     start + i/Rate, run by at most Concurrency clients at once. Latency
//     is measured from the time a login was due, not from when a client
//     got to send it (as wrk2 does), so time spent waiting for a free client
//     counts: no coordinated omission. Past the server's capacity the
//     latencies grow without bound, which is the point.
//
// Every run is bounded by Config.Duration and, if set, Config.Requests;
// a warm-up (Config.Warmup) runs first and is not recorded. Errors are
// counted by kind (the service's error code, "network", "timeout",
// "other"); a failed login still records its latency in the error
// histogram only, so the percentiles are those of successful logins.
package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/server/client"
)

// Format is the Result's format tag.
const Format = bench.LoadFormat

// Run's limits: a histogram covers 1 µs to 10 min at 3 significant digits.
const (
	minLatency = time.Microsecond
	maxLatency = 10 * time.Minute
)

// Loop is the shape of a run (see the package documentation).
type Loop struct {
	Concurrency int           // clients (closed) or the most logins in flight (open)
	Rate        float64       // logins per second due; 0: closed loop
	Duration    time.Duration // measured time, after Warmup
	Requests    int           // most logins measured (0: Duration alone bounds the run)
	Warmup      time.Duration
}

func (l Loop) check() error {
	switch {
	case l.Concurrency < 1 || l.Concurrency > 10000:
		return fmt.Errorf("load: concurrency %d: want 1 to 10000", l.Concurrency)
	case math.IsNaN(l.Rate) || l.Rate < 0 || l.Rate > 1e6 || (l.Rate > 0 && l.Rate < 1e-3):
		return fmt.Errorf("load: rate %v: want 0 (closed loop) or 0.001 to 1e6 per second", l.Rate)
	case l.Duration <= 0 || l.Duration > 24*time.Hour:
		return fmt.Errorf("load: duration %v: want (0, 24h]", l.Duration)
	case l.Requests < 0 || l.Warmup < 0 || l.Warmup > time.Hour:
		return fmt.Errorf("load: requests %d, warm-up %v: want requests >= 0 and warm-up in [0, 1h]", l.Requests, l.Warmup)
	}
	return nil
}

// Result is one run, and Latency its latency summary in milliseconds
// (package bench defines them, so that package report can read them).
type (
	Result  = bench.LoadResult
	Latency = bench.LoadLatency
)

// Progress is what a run reports about once a second.
type Progress struct {
	Elapsed time.Duration
	OK      int64
	Errors  int64
}

// run drives op under loop: the package's core, independent of HTTP.
// op runs one login; ctx ends when the run does.
func run(ctx context.Context, loop Loop, op func(context.Context) error, progress func(Progress)) (*Result, error) {
	if err := loop.check(); err != nil {
		return nil, err
	}
	if loop.Warmup > 0 {
		wl := loop
		wl.Duration, wl.Requests, wl.Warmup = loop.Warmup, 0, 0
		if _, err := measure(ctx, wl, op, nil); err != nil {
			return nil, err
		}
	}
	res, err := measure(ctx, loop, op, progress)
	if err == nil && ctx.Err() != nil {
		// Cut short by the caller (an interrupt): not a complete run.
		return nil, fmt.Errorf("load: interrupted after %.1f s: %w", res.Seconds, ctx.Err())
	}
	return res, err
}

// measure runs the loop for loop.Duration: no login starts after it, and
// the logins in flight then run to their end but are not counted (wrk's
// rule; cancelling them would leave the server working on abandoned
// logins during the next run, and count their starts as failures of
// their accounts). Only ctx's own end cancels them.
func measure(ctx context.Context, loop Loop, op func(context.Context) error, progress func(Progress)) (*Result, error) {
	window, cancel := context.WithTimeout(ctx, loop.Duration)
	defer cancel()
	var (
		mu      sync.Mutex
		hist    = hdrhistogram.New(int64(minLatency), int64(maxLatency), 3)
		errs    = map[string]int{}
		ok      atomic.Int64
		failed  atomic.Int64
		drained atomic.Int64
		issued  atomic.Int64 // logins handed out (bounded by Requests)
	)
	start := time.Now()
	interval := time.Duration(0)
	if loop.Rate > 0 {
		interval = time.Duration(float64(time.Second) / loop.Rate)
	}
	record := func(lat time.Duration, err error) {
		if window.Err() != nil {
			drained.Add(1) // finished after the window (or cut off by ctx)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs[Kind(err)]++
			failed.Add(1)
			return
		}
		hist.RecordValue(int64(min(max(lat, minLatency), maxLatency)))
		ok.Add(1)
	}
	var wg sync.WaitGroup
	for range loop.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for window.Err() == nil {
				i := issued.Add(1) - 1
				if loop.Requests > 0 && i >= int64(loop.Requests) {
					return
				}
				begin := time.Now()
				if interval > 0 {
					// The i-th login is due at start + i·interval; latency
					// counts from then, even if this client is late.
					begin = start.Add(time.Duration(i) * interval)
					if d := time.Until(begin); d > 0 {
						t := time.NewTimer(d)
						select {
						case <-window.Done():
							t.Stop()
							return
						case <-t.C:
						}
					}
				}
				err := op(ctx)
				record(time.Since(begin), err)
			}
		}()
	}
	done := make(chan struct{})
	var pwg sync.WaitGroup
	if progress != nil {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					progress(Progress{Elapsed: time.Since(start), OK: ok.Load(), Errors: failed.Load()})
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	pwg.Wait() // no progress call after run returns
	elapsed := min(time.Since(start), loop.Duration)
	res := &Result{Format: Format, Loop: "closed", Concurrency: loop.Concurrency, Seconds: elapsed.Seconds(),
		OK: ok.Load(), Drained: drained.Load(), Started: start.UTC(), Latency: summarize(hist)}
	if loop.Rate > 0 {
		res.Loop, res.Rate = "open", loop.Rate
	}
	if len(errs) > 0 {
		res.Errors = errs
	}
	res.Throughput = float64(res.OK) / elapsed.Seconds()
	return res, nil
}

func summarize(h *hdrhistogram.Histogram) Latency {
	ms := func(v int64) float64 { return float64(v) / 1e6 }
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{N: h.TotalCount(), Mean: h.Mean() / 1e6, Min: ms(h.Min()), Max: ms(h.Max()),
		P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
		P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9))}
}

// Kind names an error for Result.Errors: the service's error code, or
// "timeout", "network", "other".
func Kind(err error) string {
	var ce *client.Error
	var ne net.Error
	switch {
	case errors.As(err, &ce) && ce.Code != "":
		return ce.Code
	case errors.As(err, &ce):
		return fmt.Sprintf("http_%d", ce.Status)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &ne):
		return "network"
	}
	return "other"
}
