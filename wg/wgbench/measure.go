package wgbench

import (
	"fmt"
	mrand "math/rand/v2"
	"runtime"
	"time"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/meter"
)

// clock times one sample and the steps inside it.
type clock struct {
	start, last time.Time
	steps       []bench.Step
}

// mark ends the step that began at the previous mark (or the sample's
// start) and names it.
func (c *clock) mark(party, name string) {
	now := time.Now()
	c.steps = append(c.steps, bench.Step{Party: party, Name: name, Ns: int64(now.Sub(c.last))})
	c.last = now
}

// orderSeed is the second PCG word of the interleaved order (as in
// bench.Compare, whose first word is the configured seed).
const orderSeed = 0x6b65786c6162

// sample warms every row up once, then takes n samples of each in an order
// shuffled with seed, appending them to res. The goroutine stays on one OS
// thread, so that the thread CPU clock brackets exactly the sampled work.
func sample(res *bench.Results, rows []row, n int, seed uint64) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, err := meter.ThreadCPU()
	cpu := err == nil
	if cpu {
		res.CPUClock = meter.ThreadCPUClock
	}
	for _, r := range rows {
		var s bench.Sample
		if err := take(r, &s, false); err != nil {
			return err
		}
	}
	order := make([]int, 0, n*len(rows))
	for i := range rows {
		for range n {
			order = append(order, i)
		}
	}
	rng := mrand.New(mrand.NewPCG(seed, orderSeed))
	rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
	iters := make([]int, len(rows))
	res.Samples = make([]bench.Sample, 0, len(order))
	for seq, i := range order {
		s := bench.Sample{Scheme: rows[i].name, Op: bench.OpFull, Seq: seq, Iter: iters[i]}
		if err := take(rows[i], &s, cpu); err != nil {
			return err
		}
		res.Samples = append(res.Samples, s)
		iters[i]++
	}
	return nil
}

// take runs one sample of r into s: heap counters and the CPU clock read
// outside the timed window, a panic in r turned into an error.
func take(r row, s *bench.Sample, cpu bool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("wgbench: %s panicked: %v", r.name, p)
		}
	}()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs, bytes := ms.Mallocs, ms.TotalAlloc
	var cpu0 time.Duration
	if cpu {
		cpu0, _ = meter.ThreadCPU()
	}
	c := &clock{steps: make([]bench.Step, 0, 8)}
	c.start = time.Now()
	c.last = c.start
	err = r.run(c)
	wall := time.Since(c.start)
	if cpu {
		if cpu1, e := meter.ThreadCPU(); e == nil {
			s.CPUNs = max(int64(cpu1-cpu0), 0)
		}
	}
	runtime.ReadMemStats(&ms)
	if err != nil {
		return fmt.Errorf("wgbench: %s: %w", r.name, err)
	}
	s.WallNs = int64(wall)
	s.Allocs, s.AllocBytes = ms.Mallocs-mallocs, ms.TotalAlloc-bytes
	s.Steps = c.steps
	return nil
}
