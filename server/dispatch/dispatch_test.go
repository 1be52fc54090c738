package dispatch

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// idError is a task's own error, carrying which task returned it.
type idError int

func (e idError) Error() string { return fmt.Sprintf("task %d failed", int(e)) }

// TestConcurrent runs many tasks from many goroutines and checks that each
// runs exactly once and that each caller gets its own task's outputs and
// error, with the CPU backend alone and with an accelerator.
func TestConcurrent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		accel Backend
	}{
		{"cpu", Config{Workers: 4, MaxBatch: 8}, nil},
		{"accel", Config{Workers: 4, MaxBatch: 8, Threshold: 2, MaxDelay: 50 * time.Microsecond}, &recorder{name: "accel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := start(t, tc.cfg, nil, tc.accel)
			const G, N = 32, 100
			var runs [G * N]atomic.Int32
			var wg sync.WaitGroup
			errc := make(chan error, G)
			for g := range G {
				wg.Go(func() {
					for i := range N {
						id := g*N + i
						out := -1
						err := d.Do(context.Background(), func() error {
							runs[id].Add(1)
							out = id
							if id%7 == 0 {
								return idError(id)
							}
							return nil
						})
						var ie idError
						switch {
						case out != id:
							errc <- fmt.Errorf("task %d: output %d", id, out)
							return
						case id%7 == 0 && (!errors.As(err, &ie) || int(ie) != id):
							errc <- fmt.Errorf("task %d: error %v, want its own", id, err)
							return
						case id%7 != 0 && err != nil:
							errc <- fmt.Errorf("task %d: %v", id, err)
							return
						}
					}
				})
			}
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Error(err)
			}
			d.Close()
			for id := range runs {
				if n := runs[id].Load(); n != 1 {
					t.Errorf("task %d ran %d times", id, n)
				}
			}
			s := d.Stats()
			if s.Submitted != G*N || s.Ran != G*N || s.BatchTasks != G*N || s.QueueDepth != 0 {
				t.Errorf("stats %+v, want %d tasks submitted, run and batched", s, G*N)
			}
			checkStats(t, s)
			t.Logf("%d batches for %d tasks; buckets %v; backends %+v", s.Batches, s.BatchTasks, s.BatchBuckets, s.Backends)
		})
	}
}

// checkStats checks the invariants of a closed Dispatcher's Stats.
func checkStats(t *testing.T, s Stats) {
	t.Helper()
	var failed, batches, tasks uint64
	for _, b := range s.Backends {
		failed += b.Failed
		batches += b.Batches
		tasks += b.Tasks
	}
	if s.Submitted != s.Ran+s.Canceled+failed {
		t.Errorf("submitted %d != ran %d + canceled %d + failed %d", s.Submitted, s.Ran, s.Canceled, failed)
	}
	if batches != s.Batches || tasks != s.BatchTasks {
		t.Errorf("backends %+v do not add up to %d batches, %d tasks", s.Backends, s.Batches, s.BatchTasks)
	}
	if last := s.BatchBuckets[len(s.BatchBuckets)-1]; last.Count != s.Batches || last.UpperBound < s.MaxBatch {
		t.Errorf("last bucket %+v, want all %d batches, bound ≥ %d", last, s.Batches, s.MaxBatch)
	}
}

// TestBatchingUnderLoad: with more callers than workers the queue fills
// and workers take several tasks at a time, with the CPU backend alone.
func TestBatchingUnderLoad(t *testing.T) {
	d := start(t, Config{Workers: 2, MaxBatch: 16}, nil, nil)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 20 {
				// Tasks that sleep leave the CPU to the callers, which
				// queue up: workers that spin would keep both.
				if err := d.Do(context.Background(), func() error { time.Sleep(100 * time.Microsecond); return nil }); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	s := d.Stats()
	single := s.BatchBuckets[0].Count
	t.Logf("%d tasks in %d batches, %d of one task; buckets %v", s.BatchTasks, s.Batches, single, s.BatchBuckets)
	if single >= s.Batches {
		t.Errorf("no batch of more than one task under load: %+v", s.BatchBuckets)
	}
	// Every task went through one batch, and the last (cumulative) bucket
	// counts every batch.
	if s.BatchTasks != 32*20 || s.BatchBuckets[len(s.BatchBuckets)-1].Count != s.Batches {
		t.Errorf("%d tasks in batches, want %d; last bucket %+v of %d batches", s.BatchTasks, 32*20, s.BatchBuckets[len(s.BatchBuckets)-1], s.Batches)
	}
}

// TestLoneTaskLatency: without an accelerator a lone task never waits for a
// batch. With one, the first task (no arrival rate known yet) waits
// MaxDelay, and not much more; lone tasks after it, arriving a few
// milliseconds apart, do not wait: the batch could not grow past t.
// MaxDelay is long (100 ms) and the lone tasks arrive 100 ms apart, so
// that waiting and not waiting stay far apart on a loaded machine.
func TestLoneTaskLatency(t *testing.T) {
	do := func(d *Dispatcher) time.Duration {
		start := time.Now()
		if err := d.Do(context.Background(), noop); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	const gap = 100 * time.Millisecond
	lone := func(d *Dispatcher) time.Duration {
		var ds []time.Duration
		for range 7 {
			time.Sleep(gap)
			ds = append(ds, do(d))
		}
		return median(ds)
	}
	t.Run("cpu", func(t *testing.T) {
		d := start(t, Config{MaxDelay: gap}, nil, nil)
		if m := lone(d); m > gap/2 {
			t.Errorf("lone task took %v (median) with the CPU backend alone; it must not wait for a batch", m)
		} else {
			t.Logf("median %v", m)
		}
	})
	t.Run("accel", func(t *testing.T) {
		accel := &recorder{name: "accel"}
		d := start(t, Config{MaxDelay: gap, Threshold: 4}, nil, accel)
		first := do(d)
		m := lone(d)
		t.Logf("first %v, then median %v, with MaxDelay %v", first, m, gap)
		if first < gap || first > gap+80*time.Millisecond {
			t.Errorf("first task took %v, want MaxDelay %v and at most 80 ms more", first, gap)
		}
		if m > gap/2 {
			t.Errorf("lone tasks took %v (median), want no wait", m)
		}
		if s := accel.batchSizes(); len(s) != 0 {
			t.Errorf("lone tasks went to the accelerator: %v", s)
		}
	})
	t.Run("accel-never", func(t *testing.T) {
		// t ≥ B: no batch can reach the accelerator, so none waits.
		d := start(t, Config{MaxDelay: time.Second, MaxBatch: 4, Threshold: 4}, nil, &recorder{name: "accel"})
		if first := do(d); first > 100*time.Millisecond {
			t.Errorf("task took %v with t ≥ B", first)
		}
	})
}

// TestRouting: batches of more than t tasks go to the accelerator, the
// others to the CPU backend.
func TestRouting(t *testing.T) {
	cpu, accel := &recorder{name: "cpu"}, &recorder{name: "accel"}
	d := start(t, Config{Workers: 1, MaxBatch: 8, Threshold: 4, MaxDelay: -1}, cpu, accel)
	release, first := block(t, d)
	const n = 20
	var results []<-chan error
	for range n {
		results = append(results, submitAsync(context.Background(), d, noop))
	}
	waitFor(t, "a full queue", func() bool { return d.Stats().QueueDepth == n })
	release()
	for _, r := range append(results, first) {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	if got, want := fmt.Sprint(cpu.batchSizes()), "[1 4]"; got != want {
		t.Errorf("CPU batches %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(accel.batchSizes()), "[8 8]"; got != want {
		t.Errorf("accelerator batches %s, want %s", got, want)
	}
	s := d.Stats()
	checkStats(t, s)
	if s.Backends[0].Tasks != 5 || s.Backends[1].Tasks != 16 || s.Threshold != 4 {
		t.Errorf("stats %+v", s)
	}
}

// TestRoutingManyWorkers: without waiting, a worker that finds a queue
// takes as much of it as a batch holds when an accelerator exists (with
// the CPU alone it takes a fair share), so that a queue spread over many
// workers still reaches the accelerator.
func TestRoutingManyWorkers(t *testing.T) {
	cpu, accel := &recorder{name: "cpu"}, &recorder{name: "accel"}
	const workers, n = 8, 32
	d := start(t, Config{Workers: workers, MaxBatch: 8, Threshold: 4, MaxDelay: -1}, cpu, accel)
	var releases []func()
	var firsts []<-chan error
	for range workers {
		release, first := block(t, d)
		releases, firsts = append(releases, release), append(firsts, first)
	}
	var results []<-chan error
	for range n {
		results = append(results, submitAsync(context.Background(), d, noop))
	}
	waitFor(t, "a full queue", func() bool { return d.Stats().QueueDepth == n })
	for _, release := range releases {
		release()
	}
	for _, r := range append(results, firsts...) {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	tasks := 0
	for _, b := range accel.batchSizes() {
		if b <= 4 {
			t.Errorf("accelerator batch of %d, at most the threshold", b)
		}
		tasks += b
	}
	if tasks == 0 {
		t.Errorf("no task reached the accelerator; CPU batches %v", cpu.batchSizes())
	}
}

// TestAccelBatchForms: with an accelerator, concurrent arrivals within
// MaxDelay form one batch, which goes to the accelerator.
func TestAccelBatchForms(t *testing.T) {
	accel := &recorder{name: "accel"}
	d := start(t, Config{Workers: 2, MaxBatch: 10, MaxDelay: 300 * time.Millisecond, Threshold: 3}, nil, accel)
	var wg sync.WaitGroup
	begin := time.Now()
	for range 10 {
		wg.Go(func() {
			if err := d.Do(context.Background(), noop); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	sizes := accel.batchSizes()
	t.Logf("accelerator batches %v in %v", sizes, elapsed)
	if len(sizes) == 0 || sizes[0] < 4 {
		t.Errorf("accelerator batches %v, want one of more than t = 3 tasks", sizes)
	}
	if elapsed > 300*time.Millisecond+150*time.Millisecond {
		t.Errorf("batch took %v, MaxDelay is 300ms", elapsed)
	}
}

func TestThresholdFromCost(t *testing.T) {
	cpu := CPU{Model: Cost{K: time.Millisecond}}
	d := start(t, Config{}, cpu, &recorder{name: "gpu", cost: Cost{T: 4500 * time.Microsecond}})
	if got := d.Stats().Threshold; got != 5 {
		t.Errorf("threshold %d, want ⌈4.5ms/1ms⌉ = 5", got)
	}
	d2 := start(t, Config{}, nil, nil)
	if got := d2.Stats().Threshold; got != Never {
		t.Errorf("threshold without accelerator %d, want Never", got)
	}
}

// TestOverload: a full queue refuses at once.
func TestOverload(t *testing.T) {
	d := start(t, Config{Workers: 1, QueueDepth: 2}, nil, nil)
	release, first := block(t, d)
	a := submitAsync(context.Background(), d, noop)
	b := submitAsync(context.Background(), d, noop)
	waitFor(t, "a full queue", func() bool { return d.Stats().QueueDepth == 2 })
	begin := time.Now()
	err := d.Do(context.Background(), noop)
	if !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Do on a full queue: %v, want ErrOverloaded", err)
	}
	if el := time.Since(begin); el > time.Second {
		t.Errorf("ErrOverloaded took %v", el)
	}
	release()
	for _, c := range []<-chan error{first, a, b} {
		if err := <-c; err != nil {
			t.Error(err)
		}
	}
	if err := d.Do(context.Background(), noop); err != nil {
		t.Errorf("Do once the queue drained: %v", err)
	}
	if s := d.Stats(); s.Rejected != 1 || s.Submitted != 4 {
		t.Errorf("stats %+v, want 1 rejected, 4 submitted", s)
	}
}

// TestCloseDrains: Close refuses new tasks at once, runs the queued ones
// and returns when the workers have stopped.
func TestCloseDrains(t *testing.T) {
	d := start(t, Config{Workers: 1}, nil, nil)
	release, first := block(t, d)
	const n = 10
	var ran atomic.Int32
	var results []<-chan error
	for range n {
		results = append(results, submitAsync(context.Background(), d, func() error {
			ran.Add(1)
			return nil
		}))
	}
	waitFor(t, "queued tasks", func() bool { return d.Stats().QueueDepth == n })
	closed := make(chan struct{})
	go func() {
		d.Close()
		close(closed)
	}()
	waitFor(t, "ErrClosed", func() bool {
		// A probe queued before Close is abandoned after 1 ms.
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		return errors.Is(d.Do(ctx, noop), ErrClosed)
	})
	select {
	case <-closed:
		t.Fatal("Close returned with a task still running")
	case <-time.After(10 * time.Millisecond):
	}
	release()
	<-closed
	for _, r := range append(results, first) {
		if err := <-r; err != nil {
			t.Errorf("queued task: %v", err)
		}
	}
	if ran.Load() != n {
		t.Errorf("%d of %d queued tasks ran", ran.Load(), n)
	}
	d.Close() // again: a no-op
	if err := d.Do(context.Background(), noop); !errors.Is(err, ErrClosed) {
		t.Errorf("Do after Close: %v", err)
	}
	checkStats(t, d.Stats())
}

// TestPanic: a panicking task returns a *PanicError to its caller and the
// worker lives on.
func TestPanic(t *testing.T) {
	d := start(t, Config{Workers: 1}, nil, nil)
	err := d.Do(context.Background(), func() error { panic("boom") })
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "boom" || len(pe.Stack) == 0 {
		t.Fatalf("Do(panicking task) = %v, want a *PanicError with the value and a stack", err)
	}
	err = d.Do(context.Background(), func() error {
		var m map[string]int
		m["x"] = 1 // a runtime error
		return nil
	})
	var re runtime.Error
	if !errors.As(err, &re) {
		t.Errorf("runtime panic: %v, want a runtime.Error inside", err)
	}
	err = d.Do(context.Background(), func() error { panic(nil) })
	if !errors.As(err, &pe) {
		t.Errorf("panic(nil): %v, want a *PanicError", err)
	}
	if err := d.Do(context.Background(), noop); err != nil {
		t.Errorf("Do after panics: %v", err)
	}
	if s := d.Stats(); s.Panics != 3 || s.Ran != 4 {
		t.Errorf("stats %+v, want 3 panics in 4 tasks", s)
	}
}

// TestGoexit: runtime.Goexit in a task fails that task and its worker is
// replaced.
func TestGoexit(t *testing.T) {
	d := start(t, Config{Workers: 1}, nil, nil)
	err := d.Do(context.Background(), func() error { runtime.Goexit(); return nil })
	if !errors.Is(err, errGoexit) {
		t.Fatalf("Do(Goexit) = %v", err)
	}
	if err := d.Do(context.Background(), noop); err != nil {
		t.Errorf("Do after Goexit: %v", err)
	}
}

// TestBackendFailures: a backend that panics, reports errors, or returns
// without running its tasks fails them with ErrBackend, and the dispatcher
// goes on.
func TestBackendFailures(t *testing.T) {
	cause := errors.New("device lost")
	for _, tc := range []struct {
		name string
		run  func([]Task) []error
		want error
	}{
		{"panic", func([]Task) []error { panic("driver") }, nil},
		{"errors", func(b []Task) []error {
			errs := make([]error, len(b))
			for i := range errs {
				errs[i] = cause
			}
			return errs
		}, cause},
		{"nothing", func([]Task) []error { return nil }, nil},
		{"goexit", func([]Task) []error { runtime.Goexit(); return nil }, errGoexit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// cpu.K > 0 = accel.K and accel.T = 0: t = 0, every batch to accel.
			d := start(t, Config{Workers: 1}, CPU{Model: Cost{K: time.Millisecond}}, broken{tc.run})
			ran := false
			err := d.Do(context.Background(), func() error { ran = true; return nil })
			if !errors.Is(err, ErrBackend) || (tc.want != nil && !errors.Is(err, tc.want)) || ran {
				t.Fatalf("Do = %v (ran %v), want ErrBackend %v", err, ran, tc.want)
			}
			t.Log(err)
			if err := d.Do(context.Background(), func() error { return nil }); !errors.Is(err, ErrBackend) {
				t.Errorf("second Do = %v", err)
			}
			d.Close()
			s := d.Stats()
			checkStats(t, s)
			if s.Backends[1].Failed != 2 {
				t.Errorf("stats %+v", s.Backends)
			}
		})
	}
}

// TestCancel: a caller that gives up before its task starts gets ctx.Err()
// at once and the task never runs; once the task runs, Do waits for it.
func TestCancel(t *testing.T) {
	t.Run("before", func(t *testing.T) {
		d := start(t, Config{}, nil, nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ran := false
		if err := d.Do(ctx, func() error { ran = true; return nil }); !errors.Is(err, context.Canceled) || ran {
			t.Errorf("Do(canceled ctx) = %v, ran %v", err, ran)
		}
		if s := d.Stats(); s.Submitted != 0 {
			t.Errorf("a canceled Do was queued: %+v", s)
		}
	})
	t.Run("queued", func(t *testing.T) {
		d := start(t, Config{Workers: 1}, nil, nil)
		release, first := block(t, d)
		var ran atomic.Bool
		ctx, cancel := context.WithCancel(context.Background())
		r := submitAsync(ctx, d, func() error { ran.Store(true); return nil })
		tctx, tcancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		defer tcancel()
		r2 := submitAsync(tctx, d, func() error { ran.Store(true); return nil })
		waitFor(t, "queued tasks", func() bool { return d.Stats().QueueDepth == 2 })
		cancel()
		if err := <-r; !errors.Is(err, context.Canceled) {
			t.Errorf("canceled Do = %v", err)
		}
		if err := <-r2; !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Do past its deadline = %v", err)
		}
		release()
		if err := <-first; err != nil {
			t.Error(err)
		}
		d.Close()
		if ran.Load() {
			t.Error("a task ran after its caller gave up")
		}
		s := d.Stats()
		checkStats(t, s)
		if s.Canceled != 2 {
			t.Errorf("stats %+v, want 2 canceled", s)
		}
	})
	t.Run("running", func(t *testing.T) {
		d := start(t, Config{Workers: 1}, nil, nil)
		started, gate := make(chan struct{}), make(chan struct{})
		out := 0
		ctx, cancel := context.WithCancel(context.Background())
		r := submitAsync(ctx, d, func() error {
			close(started)
			<-gate
			out = 42
			return nil
		})
		<-started
		cancel()
		select {
		case err := <-r:
			t.Fatalf("Do returned %v while its task was running", err)
		case <-time.After(10 * time.Millisecond):
		}
		close(gate)
		if err := <-r; err != nil || out != 42 {
			t.Errorf("Do = %v, output %d; want the task's result", err, out)
		}
	})
}

func TestNilTask(t *testing.T) {
	d := start(t, Config{}, nil, nil)
	if err := d.Do(context.Background(), nil); !errors.Is(err, ErrNilTask) {
		t.Errorf("Do(nil) = %v", err)
	}
}

func TestBuckets(t *testing.T) {
	for _, tc := range []struct {
		max  int
		want string
	}{{1, "[1]"}, {2, "[1 2]"}, {64, "[1 2 4 8 16 32 64]"}, {100, "[1 2 4 8 16 32 64 128]"}} {
		b := bucketBounds(tc.max)
		if got := fmt.Sprint(b); got != tc.want {
			t.Errorf("bucketBounds(%d) = %s, want %s", tc.max, got, tc.want)
		}
		for n := 1; n <= tc.max; n++ {
			i := bucket(n)
			if i >= len(b) || n > b[i] || (i > 0 && n <= b[i-1]) {
				t.Errorf("bucket(%d) = %d in %v", n, i, b)
			}
		}
	}
}
