package dispatch

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// noLeaks fails t if, once t's cleanups (registered after this call) have
// run, more goroutines are alive than when it was called.
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutine leak: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf)
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// start returns a Dispatcher that t's cleanup closes, checking that no
// goroutine outlives it.
func start(t *testing.T, cfg Config, cpu, accel Backend) *Dispatcher {
	t.Helper()
	noLeaks(t)
	d := New(cfg, cpu, accel)
	t.Cleanup(d.Close)
	return d
}

// waitFor polls cond until it holds, failing t after 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// block submits a task that occupies a worker until release is called,
// and returns once it runs. done receives the Do's error.
func block(t *testing.T, d *Dispatcher) (release func(), done <-chan error) {
	t.Helper()
	started, gate := make(chan struct{}), make(chan struct{})
	out := make(chan error, 1)
	go func() {
		out <- d.Do(context.Background(), func() error {
			close(started)
			<-gate
			return nil
		})
	}()
	select {
	case <-started:
	case err := <-out:
		t.Fatalf("blocking task: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("blocking task did not start")
	}
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // runs before the Close registered earlier
	return release, out
}

// submitAsync calls d.Do(ctx, task) on a new goroutine; the result arrives
// on the returned channel.
func submitAsync(ctx context.Context, d *Dispatcher, task Task) <-chan error {
	out := make(chan error, 1)
	go func() { out <- d.Do(ctx, task) }()
	return out
}

// recorder is a Backend that runs tasks in order, like CPU, and records
// the size of every batch.
type recorder struct {
	name  string
	cost  Cost
	mu    sync.Mutex
	sizes []int
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Cost() Cost   { return r.cost }
func (r *recorder) Run(batch []Task) []error {
	r.mu.Lock()
	r.sizes = append(r.sizes, len(batch))
	r.mu.Unlock()
	return CPU{}.Run(batch)
}

func (r *recorder) batchSizes() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.sizes...)
}

// broken is a Backend that fails in the way run says.
type broken struct {
	run func(batch []Task) []error
}

func (broken) Name() string               { return "broken" }
func (broken) Cost() Cost                 { return Cost{} }
func (b broken) Run(batch []Task) []error { return b.run(batch) }
func noop() error                         { return nil }
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
func spinTask(d time.Duration) Task { return func() error { spin(d); return nil } }
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
