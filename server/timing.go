package server

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// Server-Timing (W3C Server Timing). With Config.ServerTiming every answer
// carries
//
//	Server-Timing: queue;dur=0.010, pake;dur=1.234, app;dur=1.902
//
// in milliseconds: app is the whole request in the handler (routing,
// JSON, the store, the scheme), pake the scheme's own work (a round on
// the dispatcher, or a finish in the handler), queue the wait for a
// dispatcher worker. A browser reads it with the Performance API
// (PerformanceResourceTiming.serverTiming), which is how the sign-in page
// and its Chromium test split a login's latency into browser, network,
// web server and PAKE time.
//
// It is off by default: it hands every client the server's own
// measurement of its work, free of network jitter, which makes timing
// differences between requests easier to see from outside.

// timing is one request's server-side split; atomic because the
// dispatcher's worker writes it.
type timing struct {
	start       time.Time
	queue, pake atomic.Int64 // nanoseconds
}

type timingKey struct{}

// withTiming attaches a timing to the request when Config.ServerTiming is
// set, and has sw write the header before the status.
func (s *Server) withTiming(r *http.Request, sw *statusWriter, start time.Time) *http.Request {
	if !s.cfg.ServerTiming {
		return r
	}
	t := &timing{start: start}
	sw.beforeHeader = func(h http.Header) {
		ms := func(ns int64) float64 { return float64(ns) / 1e6 }
		h.Set("Server-Timing", fmt.Sprintf("queue;dur=%.3f, pake;dur=%.3f, app;dur=%.3f",
			ms(t.queue.Load()), ms(t.pake.Load()), ms(int64(time.Since(t.start)))))
	}
	return r.WithContext(context.WithValue(r.Context(), timingKey{}, t))
}

// timed runs f, a scheme's work, adding its time to the request's pake
// time (when timed).
func timed(ctx context.Context, f func() error) error {
	t, _ := ctx.Value(timingKey{}).(*timing)
	if t == nil {
		return f()
	}
	start := time.Now()
	err := f()
	t.pake.Add(int64(time.Since(start)))
	return err
}

// queued returns f wrapped to add the time from now to its start to the
// request's queue time.
func queued(ctx context.Context, f func() error) func() error {
	t, _ := ctx.Value(timingKey{}).(*timing)
	if t == nil {
		return f
	}
	enq := time.Now()
	return func() error {
		t.queue.Add(int64(time.Since(enq)))
		return timed(ctx, f)
	}
}
