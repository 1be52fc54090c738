package dispatch

import (
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"filippo.io/nistec"

	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/pake/srp"
)

// A workload is one realistic server step, returning what the server sends.
type workload struct {
	name string
	step func() ([]byte, error)
}

// srpStep is the heavy step of an SRP login on the server: NewServer (b and
// B = k·v + g^b) and Next(message 1) (u, S = (A·v^u)^b, K, M1, M2), at 2048
// bits with SHA-256, from a stored record and a fixed client message 1.
func srpStep(b *testing.B) workload {
	p, err := srp.NewParams(2048, crypto.SHA256)
	if err != nil {
		b.Fatal(err)
	}
	id, pw := []byte("alice"), []byte("correct horse battery staple")
	rec, err := srp.Register(nil, p, id, pw)
	if err != nil {
		b.Fatal(err)
	}
	c, err := srp.NewClient(nil, p, id, pw)
	if err != nil {
		b.Fatal(err)
	}
	m1, err := c.Next(nil)
	if err != nil {
		b.Fatal(err)
	}
	return workload{"srp-2048-sha256", func() ([]byte, error) {
		s, err := srp.NewServer(nil, p, id, rec)
		if err != nil {
			return nil, err
		}
		return s.Next(m1)
	}}
}

// p256Step is an OPRF-like evaluation on P-256: decode the client's point,
// multiply it by the server's secret scalar, encode the result.
func p256Step(b *testing.B) workload {
	var k [32]byte
	rand.Read(k[:])
	k[0] &= 0x7f // below the group order
	blinded, err := nistec.NewP256Point().ScalarBaseMult(k[:])
	if err != nil {
		b.Fatal(err)
	}
	in := blinded.Bytes()
	return workload{"p256-scalarmult", func() ([]byte, error) {
		q, err := nistec.NewP256Point().SetBytes(in)
		if err != nil {
			return nil, err
		}
		r, err := nistec.NewP256Point().ScalarMult(q, k[:])
		if err != nil {
			return nil, err
		}
		return r.Bytes(), nil
	}}
}

// BenchmarkOverhead is the target: with the CPU backend alone, the
// dispatcher costs less than 5% against calling the scheme directly.
//
// Each iteration is one round of two phases, interleaved A B, B A, …: the
// same number of server steps run from `callers` goroutines, called
// directly (A) or through Do on a Dispatcher with the default Config (B),
// as a handler would write it (a closure storing the step's output). A
// phase is timed on the CPU time of the whole process (getrusage), so that
// the load of other processes on a shared machine does not count, and on
// the wall clock. It reports the median of the per-round ratios B/A over
// the n rounds, "dispatch/direct" (CPU) and "dispatch/direct-wall", with
// the distribution-free 95% confidence interval of the CPU median and the
// quartiles and extremes as the spread.
//
// With callers = GOMAXPROCS every core has a caller, as a fully loaded
// server has; callers = 4×GOMAXPROCS is a server with more logins in
// flight than cores, where tasks queue and batches of several form.
// Run with -benchtime=Nx for N rounds.
func BenchmarkOverhead(b *testing.B) {
	P := runtime.GOMAXPROCS(0)
	for _, w := range []workload{srpStep(b), p256Step(b)} {
		for _, callers := range []int{P, 4 * P} {
			b.Run(fmt.Sprintf("%s/callers=%d", w.name, callers), func(b *testing.B) {
				overhead(b, w, callers)
			})
		}
	}
}

func overhead(b *testing.B, w workload, callers int) {
	P := runtime.GOMAXPROCS(0)
	d := New(Config{}, CPU{}, nil)
	defer d.Close()
	errEmpty := errors.New("empty output")
	direct := func() error {
		out, err := w.step()
		if err == nil && len(out) == 0 {
			err = errEmpty
		}
		return err
	}
	dispatched := func() error {
		var out []byte
		err := d.Do(context.Background(), func() error {
			var err error
			out, err = w.step()
			return err
		})
		if err == nil && len(out) == 0 {
			err = errEmpty
		}
		return err
	}

	// Size a phase to about 10 ms of wall time with every core busy: short
	// phases, many rounds, so that the load of other processes drifts little
	// within a round.
	start := time.Now()
	for range 8 {
		if err := direct(); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start) / 8
	perCaller := max(2, int(10*time.Millisecond*time.Duration(P)/(per*time.Duration(callers))))
	phase := func(call func() error) (cpu, wall time.Duration) {
		var wg sync.WaitGroup
		var once sync.Once
		var failure error
		c0, w0 := processTime(), time.Now()
		for range callers {
			wg.Go(func() {
				for range perCaller {
					if err := call(); err != nil {
						once.Do(func() { failure = err })
						return
					}
				}
			})
		}
		wg.Wait()
		cpu, wall = processTime()-c0, time.Since(w0)
		if failure != nil {
			b.Fatal(failure)
		}
		return cpu, wall
	}
	phase(dispatched) // warm up both paths
	phase(direct)

	calls := [2]func() error{direct, dispatched}
	var cpuRatio, wallRatio []float64
	var cpuTask [2][]float64
	tasks := float64(callers * perCaller)
	for i := 0; b.Loop(); i++ {
		var cpu, wall [2]time.Duration
		for k := range 2 {
			side := (i + k) % 2 // A B, then B A, ...
			cpu[side], wall[side] = phase(calls[side])
		}
		cpuRatio = append(cpuRatio, float64(cpu[1])/float64(cpu[0]))
		wallRatio = append(wallRatio, float64(wall[1])/float64(wall[0]))
		for side := range 2 {
			cpuTask[side] = append(cpuTask[side], float64(cpu[side])/tasks)
		}
	}
	median := func(xs []float64) float64 {
		m, err := stats.Quantile(xs, 0.5)
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	q, err := stats.Summarize(cpuRatio)
	if err != nil {
		b.Fatal(err)
	}
	ci, err := stats.MedianCI(cpuRatio, 0.95)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(q.Median, "dispatch/direct")
	b.ReportMetric(ci.Low, "dispatch/direct-ci95lo")
	b.ReportMetric(ci.High, "dispatch/direct-ci95hi")
	b.ReportMetric(q.Q1, "dispatch/direct-p25")
	b.ReportMetric(q.Q3, "dispatch/direct-p75")
	b.ReportMetric(q.Min, "dispatch/direct-min")
	b.ReportMetric(q.Max, "dispatch/direct-max")
	b.ReportMetric(median(wallRatio), "dispatch/direct-wall")
	b.ReportMetric(median(cpuTask[0]), "direct-cpu-ns/task")
	b.ReportMetric(median(cpuTask[1]), "dispatch-cpu-ns/task")
	b.ReportMetric(float64(len(cpuRatio)), "rounds")
	s := d.Stats()
	b.Logf("%s, %d callers on %d cores, %d steps per phase, n=%d rounds: CPU ratio median %.4f (95%% CI %.4f–%.4f) [p25 %.4f, p75 %.4f, min %.4f, max %.4f], wall ratio median %.4f; %s; dispatcher: %d tasks in %d batches (%.2f per batch)",
		w.name, callers, P, callers*perCaller, len(cpuRatio), q.Median, ci.Low, ci.High, q.Q1, q.Q3, q.Min, q.Max,
		median(wallRatio), processClock, s.BatchTasks, s.Batches, float64(s.BatchTasks)/float64(max(s.Batches, 1)))
}

// BenchmarkDo is the dispatcher's own cost per task: an empty task through
// Do from GOMAXPROCS goroutines (direct: the empty task called directly), on
// wall time and on the process's CPU time per task.
func BenchmarkDo(b *testing.B) {
	d := New(Config{}, CPU{}, nil)
	defer d.Close()
	b.ReportAllocs()
	c0 := processTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			out := 0
			if err := d.Do(context.Background(), func() error { out = 1; return nil }); err != nil || out != 1 {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(processTime()-c0)/float64(b.N), "cpu-ns/op")
}
