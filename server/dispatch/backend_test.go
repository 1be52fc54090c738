package dispatch

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"
)

func TestThreshold(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		cpu, accel Cost
		want       int
	}{
		{Cost{K: ms}, Cost{T: 10 * ms}, 10},                     // ⌈T/k⌉ exactly
		{Cost{K: ms}, Cost{T: 10*ms + 1}, 11},                   // rounded up
		{Cost{K: 2 * ms}, Cost{T: 10 * ms, K: ms}, 10},          // ⌈T/(k−kₐ)⌉
		{Cost{K: ms}, Cost{T: 0}, 0},                            // free batches: always
		{Cost{K: ms}, Cost{T: 5 * ms, K: ms}, Never},            // no gain per task
		{Cost{}, Cost{T: 5 * ms}, Never},                        // uncalibrated CPU
		{Cost{K: 300 * time.Microsecond}, Cost{T: 2 * ms}, 7},   // 6.67 → 7
		{Cost{T: 5 * ms, K: ms}, Cost{T: 3 * ms, K: ms / 2}, 6}, // the CPU's T plays no part
	} {
		if got := Threshold(tc.cpu, tc.accel); got != tc.want {
			t.Errorf("Threshold(%v, %v) = %d, want %d", tc.cpu, tc.accel, got, tc.want)
		}
	}
}

func TestCPURun(t *testing.T) {
	bad := errors.New("bad")
	ran := 0
	errs := CPU{}.Run([]Task{
		func() error { ran++; return nil },
		func() error { panic("boom") },
		nil,
		func() error { ran++; return bad },
	})
	var pe *PanicError
	if len(errs) != 4 || errs[0] != nil || !errors.As(errs[1], &pe) || !errors.Is(errs[2], ErrNilTask) || errs[3] != bad || ran != 2 {
		t.Errorf("CPU.Run = %v (ran %d)", errs, ran)
	}
}

func TestLeastSquares(t *testing.T) {
	// time = 3000 + 250·size exactly.
	ps := []Point{{1, 3250}, {4, 4000}, {8, 5000}, {16, 7000}}
	T, k, r2 := leastSquares(ps)
	if math.Abs(T-3000) > 1e-6 || math.Abs(k-250) > 1e-9 || math.Abs(r2-1) > 1e-12 {
		t.Errorf("leastSquares = %v, %v, %v; want 3000, 250, 1", T, k, r2)
	}
}

// virtualClock is a clock that moves only when told to.
type virtualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *virtualClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *virtualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// virtualBackend costs T per batch and its tasks k each, on a virtual
// clock.
type virtualBackend struct {
	T  time.Duration
	vc *virtualClock
}

func (virtualBackend) Name() string { return "virtual" }
func (b virtualBackend) Cost() Cost { return Cost{T: b.T} }
func (b virtualBackend) Run(batch []Task) []error {
	b.vc.advance(b.T)
	return CPU{}.Run(batch)
}

// TestCalibrate fits a backend whose T and k are known, on a virtual
// clock (timing on the shared machine is what benchmarks are for): the
// fit must be exact.
func TestCalibrate(t *testing.T) {
	const T, k = 2 * time.Millisecond, 400 * time.Microsecond
	vc := &virtualClock{t: time.Unix(0, 0)}
	clock = vc.now
	defer func() { clock = time.Now }()
	f, err := Calibrate(virtualBackend{T: T, vc: vc}, func() error { vc.advance(k); return nil }, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(f)
	if !near(f.T, T, 1e-6) || !near(f.K, k, 1e-6) || f.R2 < 0.999999 || f.Clamped {
		t.Errorf("Calibrate = %v, want T=%v k=%v", f, T, k)
	}
	if len(f.Points) != 5 || f.Points[0].Size != 1 || f.Points[4].Size != 8 || f.Reps != CalibrateReps {
		t.Errorf("points %v", f.Points)
	}
	cpu := CPU{Model: f.Cost}
	if got := Threshold(cpu.Cost(), Cost{T: 4 * time.Millisecond}); got != 10 {
		t.Errorf("threshold for T = 4ms on k = %v: %d, want ⌈4 ms / 400 µs⌉ = 10", f.K, got)
	}
}

func near(got, want time.Duration, tol float64) bool {
	return math.Abs(float64(got-want)) <= tol*float64(want)
}

func TestCalibrateErrors(t *testing.T) {
	bad := errors.New("bad")
	if _, err := Calibrate(CPU{}, func() error { return bad }, 4); !errors.Is(err, bad) {
		t.Errorf("failing probe: %v", err)
	}
	if _, err := Calibrate(CPU{}, noop, 1); err == nil {
		t.Error("maxBatch 1 accepted")
	}
	if _, err := Calibrate(nil, noop, 4); err == nil {
		t.Error("nil backend accepted")
	}
	var pe *PanicError
	if _, err := Calibrate(broken{func([]Task) []error { panic("x") }}, noop, 4); !errors.As(err, &pe) {
		t.Errorf("panicking backend: %v", err)
	}
	if _, err := Calibrate(broken{func([]Task) []error { return nil }}, noop, 4); err == nil {
		t.Error("backend returning no errors accepted")
	}
	f, err := Calibrate(CPU{}, noop, 2)
	if err != nil || len(f.Points) != 2 {
		t.Errorf("Calibrate(maxBatch 2) = %v, %v", f, err)
	}
}
