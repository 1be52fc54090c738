package dispatch

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// CalibrateReps is how many batches of each size Calibrate times.
const CalibrateReps = 5

// Fit is what Calibrate measured: the cost model and how well the line
// time = T + k·size fits the measurements.
type Fit struct {
	Cost            // T the intercept and K the slope, each at least zero
	R2      float64 // coefficient of determination of the line on Points
	Points  []Point // the median time of a batch of each size
	Reps    int     // batches timed per size
	Clamped bool    // the fitted T or k was negative and is reported as zero
}

// Point is one batch size and the median time of a batch of that size.
type Point struct {
	Size int
	Time time.Duration
}

func (f Fit) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "T=%v k=%v R²=%.4f", f.T, f.K, f.R2)
	if f.Clamped {
		b.WriteString(" (clamped at 0)")
	}
	fmt.Fprintf(&b, ", median of %d batches of each size:", f.Reps)
	for _, p := range f.Points {
		fmt.Fprintf(&b, " %d:%v", p.Size, p.Time)
	}
	return b.String()
}

// Calibrate measures the seed's cost model of backend b for the task
// probe: it times batches of up to maxBatch copies of probe, of five sizes
// from 1 to maxBatch, CalibrateReps batches of each in an interleaved
// order, after one warm-up batch, and fits time = T + k·size by least
// squares to the median time of each size. Batches are timed on the wall
// clock, the latency a caller sees; run Calibrate on an otherwise idle
// machine, at start-up.
//
// probe must be safe to run many times, and concurrently if b runs the
// tasks of a batch in parallel. Calibrate fails if probe or b fails.
// Typically:
//
//	fit, err := dispatch.Calibrate(dispatch.CPU{}, probe, 16)
//	cpu := dispatch.CPU{Model: fit.Cost}
//	t := dispatch.Threshold(cpu.Cost(), gpu.Cost())
func Calibrate(b Backend, probe Task, maxBatch int) (Fit, error) {
	if b == nil || probe == nil {
		return Fit{}, errors.New("dispatch: Calibrate: nil backend or probe")
	}
	if maxBatch < 2 {
		return Fit{}, errors.New("dispatch: Calibrate: maxBatch must be at least 2 to fit a line")
	}
	var sizes []int
	for _, q := range []int{0, 1, 2, 3, 4} {
		s := max(1, (maxBatch*q+3)/4)
		if len(sizes) == 0 || sizes[len(sizes)-1] != s {
			sizes = append(sizes, s)
		}
	}
	batch := make([]Task, maxBatch)
	for i := range batch {
		batch[i] = probe
	}
	if _, err := timeBatch(b, batch[:sizes[1]]); err != nil {
		return Fit{}, err
	}
	times := make([][]time.Duration, len(sizes))
	for r := range CalibrateReps {
		for i := range sizes {
			if r%2 == 1 {
				i = len(sizes) - 1 - i // alternate the order against drift
			}
			d, err := timeBatch(b, batch[:sizes[i]])
			if err != nil {
				return Fit{}, err
			}
			times[i] = append(times[i], d)
		}
	}
	f := Fit{Reps: CalibrateReps}
	for i, s := range sizes {
		slices.Sort(times[i])
		f.Points = append(f.Points, Point{Size: s, Time: times[i][len(times[i])/2]})
	}
	T, k, r2 := leastSquares(f.Points)
	f.R2 = r2
	f.Clamped = T < 0 || k < 0
	f.T = time.Duration(math.Round(max(T, 0)))
	f.K = time.Duration(math.Round(max(k, 0)))
	return f, nil
}

// clock is Calibrate's time source (a test replaces it with a virtual
// clock, so that a fit can be checked exactly on a busy machine).
var clock = time.Now

// timeBatch runs batch on b and returns how long it took, or the first
// error of a task or of b.
func timeBatch(b Backend, batch []Task) (d time.Duration, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("dispatch: Calibrate: %s: %w", b.Name(), newPanicError(r))
		}
	}()
	start := clock()
	errs := b.Run(batch)
	d = clock().Sub(start)
	if len(errs) != len(batch) {
		return 0, fmt.Errorf("dispatch: Calibrate: %s returned %d errors for %d tasks", b.Name(), len(errs), len(batch))
	}
	for _, err := range errs {
		if err != nil {
			return 0, fmt.Errorf("dispatch: Calibrate: %s: %w", b.Name(), err)
		}
	}
	return d, nil
}

// leastSquares fits y = T + k·x to the points and returns T, k in
// nanoseconds and the coefficient of determination.
func leastSquares(ps []Point) (T, k, r2 float64) {
	n := float64(len(ps))
	var mx, my float64
	for _, p := range ps {
		mx += float64(p.Size)
		my += float64(p.Time)
	}
	mx, my = mx/n, my/n
	var sxx, sxy, syy float64
	for _, p := range ps {
		dx, dy := float64(p.Size)-mx, float64(p.Time)-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return my, 0, 0
	}
	k = sxy / sxx
	T = my - k*mx
	var res float64
	for _, p := range ps {
		e := float64(p.Time) - (T + k*float64(p.Size))
		res += e * e
	}
	r2 = 1.0
	if syy > 0 {
		r2 = 1 - res/syy
	}
	return T, k, r2
}
