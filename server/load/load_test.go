package load

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/client"
	"github.com/kexlab/kexlab/server/store/sqlite"
)

func sleeper(d time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// TestOpenLoopCountsTheWait: one client, logins due every 5 ms, each taking
// 20 ms: a closed loop would report 20 ms; measured from when each login
// was due, the latencies grow with the backlog (no coordinated omission).
func TestOpenLoopCountsTheWait(t *testing.T) {
	res, err := run(context.Background(), Loop{Concurrency: 1, Rate: 200, Duration: 400 * time.Millisecond}, sleeper(20*time.Millisecond), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Loop != "open" || res.Rate != 200 {
		t.Errorf("loop %q rate %v", res.Loop, res.Rate)
	}
	if res.OK < 3 || res.OK > 21 { // at most 20 (20 ms each); fewer on a loaded machine
		t.Errorf("%d logins in 400 ms at 20 ms each", res.OK)
	}
	if res.Latency.P99 < 150 || res.Latency.Min < 19 {
		t.Errorf("latency %+v: the backlog does not show", res.Latency)
	}
	if res.Throughput > 55 {
		t.Errorf("throughput %.1f/s, want at most about 50", res.Throughput)
	}
}

// TestClosedLoop: two clients back to back on a 10 ms operation.
func TestClosedLoop(t *testing.T) {
	res, err := run(context.Background(), Loop{Concurrency: 2, Duration: 300 * time.Millisecond, Warmup: 50 * time.Millisecond}, sleeper(10*time.Millisecond), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Loop != "closed" || res.OK < 4 || res.OK > 62 { // at most 60 (2 × 30); fewer on a loaded machine
		t.Errorf("loop %q, %d logins", res.Loop, res.OK)
	}
	l := res.Latency
	if !(l.Min >= 10 && l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) || l.N != res.OK {
		t.Errorf("latency %+v", l)
	}
}

// TestBoundsAndErrors: Requests bounds the run; errors are counted by kind
// and kept out of the latency histogram.
func TestBoundsAndErrors(t *testing.T) {
	res, err := run(context.Background(), Loop{Concurrency: 3, Duration: 10 * time.Second, Requests: 7}, sleeper(time.Millisecond), nil)
	if err != nil || res.OK != 7 {
		t.Fatalf("%v, %d logins, want 7", err, res.OK)
	}
	n := 0
	failing := func(context.Context) error {
		n++
		switch n % 3 {
		case 0:
			return &client.Error{Status: 429, Code: "rate_limited"}
		case 1:
			return errors.New("boom")
		}
		return nil
	}
	res, err = run(context.Background(), Loop{Concurrency: 1, Duration: 10 * time.Second, Requests: 9}, failing, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 3 || res.Errors["rate_limited"] != 3 || res.Errors["other"] != 3 || res.Latency.N != 3 {
		t.Errorf("ok %d, errors %v, latency n %d", res.OK, res.Errors, res.Latency.N)
	}
	for _, bad := range []Loop{{}, {Concurrency: 1}, {Concurrency: 1, Duration: time.Second, Rate: -1}, {Concurrency: 1, Duration: time.Second, Rate: 1e-10}, {Concurrency: 1, Duration: time.Second, Requests: -1}} {
		if _, err := run(context.Background(), bad, sleeper(0), nil); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestInterrupted: a run its caller cancels is an error, not a result.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if res, err := run(ctx, Loop{Concurrency: 1, Duration: 10 * time.Second}, sleeper(time.Millisecond), nil); err == nil || res != nil {
		t.Errorf("interrupted run: %+v, %v", res, err)
	}
	if _, err := Run(context.Background(), Config{URL: "http://10.0.0.1:80", Scheme: "opaque", Accounts: 1, Loop: Loop{Concurrency: 1, Duration: time.Second}}); err == nil {
		t.Error("a non-loopback service was accepted")
	}
}

// TestRunAgainstService: accounts registered, logins of two schemes over
// HTTP against a real service (in-process, SQLite), no errors; the result
// is JSON.
func TestRunAgainstService(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(filepath.Join(dir, "kexlab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	secrets, err := server.LoadOrCreateSecrets(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: st, Secrets: secrets, KDF: server.KDFParams{Alg: "scrypt", N: 2, R: 1, P: 1},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), RegisterRate: 1000, RegisterBurst: 1000, AddrRate: 1e5, AddrBurst: 1e5})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, scheme := range []string{"opaque", "srp-2048"} {
		var ticks int
		res, err := Run(context.Background(), Config{URL: hs.URL, Scheme: scheme, Accounts: 3,
			Loop:     Loop{Concurrency: 2, Duration: 1200 * time.Millisecond, Requests: 20},
			Progress: func(Progress) { ticks++ }})
		if err != nil {
			t.Fatal(err)
		}
		if res.Scheme != scheme || res.OK != 20 || len(res.Errors) != 0 || res.Latency.P50 <= 0 {
			t.Errorf("%s: %+v", scheme, res)
		}
		b, err := json.Marshal(res)
		var back Result
		if err != nil || json.Unmarshal(b, &back) != nil || back.Format != Format || back.Latency != res.Latency {
			t.Errorf("%s: JSON round trip: %v", scheme, err)
		}
	}
	// Accounts that exist already are reused.
	if _, err := Run(context.Background(), Config{URL: hs.URL, Scheme: "opaque", Accounts: 3, Loop: Loop{Concurrency: 1, Duration: time.Second, Requests: 2}}); err != nil {
		t.Errorf("second run: %v", err)
	}
}

// TestInFlightFinish: logins in flight when the window closes run to
// their end (a cancelled one would leave the server working on it, and
// count against its account) and are not counted.
func TestInFlightFinish(t *testing.T) {
	var started, finished, cancelled atomic.Int64
	op := func(ctx context.Context) error {
		started.Add(1)
		defer finished.Add(1)
		select {
		case <-ctx.Done():
			cancelled.Add(1)
			return ctx.Err()
		case <-time.After(40 * time.Millisecond):
			return nil
		}
	}
	res, err := run(context.Background(), Loop{Concurrency: 3, Duration: 100 * time.Millisecond}, op, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cancelled.Load() != 0 || finished.Load() != started.Load() {
		t.Errorf("%d started, %d finished, %d cancelled: want every login run to its end", started.Load(), finished.Load(), cancelled.Load())
	}
	if res.OK+res.Drained != started.Load() || res.Drained == 0 {
		t.Errorf("%d counted + %d drained of %d started", res.OK, res.Drained, started.Load())
	}
	if res.OK >= started.Load() || res.Seconds > 0.1 {
		t.Errorf("%d counted of %d started in %.3f s: want those that ended after the window left out", res.OK, started.Load(), res.Seconds)
	}
}
