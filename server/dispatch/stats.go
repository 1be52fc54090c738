package dispatch

import "math/bits"

// Stats is a Dispatcher's counters, shaped for Prometheus (counters, one
// gauge, one histogram) without importing it. Every counter counts from New;
// each is read atomically, but the set is not one snapshot while tasks are
// in flight. Once Close has returned,
//
//	Submitted = Ran + Canceled + sum of Backends[i].Failed.
type Stats struct {
	// The configuration in force.
	Workers, MaxBatch, QueueCapacity int
	Threshold                        int // t; Never without an accelerator

	Submitted uint64 // tasks accepted into the queue
	Rejected  uint64 // Do calls refused with ErrOverloaded
	Ran       uint64 // tasks that ran, whatever their result
	Panics    uint64 // tasks that panicked (counted in Ran too)
	Canceled  uint64 // tasks whose caller gave up before they started

	QueueDepth int // tasks waiting for a worker now (a gauge)

	Batches      uint64 // batches handed to a backend
	BatchTasks   uint64 // tasks in them: the histogram's sum
	BatchBuckets []Bucket

	Backends []BackendStats // the CPU backend, then the accelerator if any
}

// Bucket is one bucket of the batch-size histogram, cumulative as in
// Prometheus: Count batches had at most UpperBound tasks. The bounds are
// 1, 2, 4, … up to the first power of two not below MaxBatch, so the last
// bucket counts every batch (Prometheus's +Inf bucket is Batches).
type Bucket struct {
	UpperBound int
	Count      uint64
}

// BackendStats is what one backend was given.
type BackendStats struct {
	Name     string
	Batches  uint64 // batches it was handed
	Tasks    uint64 // tasks in them
	Failed   uint64 // tasks it did not run (ErrBackend)
	Panicked uint64 // calls of Run that panicked
}

// Stats returns the current counters.
func (d *Dispatcher) Stats() Stats {
	s := Stats{
		Workers:       d.cfg.Workers,
		MaxBatch:      d.cfg.MaxBatch,
		QueueCapacity: cap(d.queue),
		Threshold:     d.threshold,
		Submitted:     d.submitted.Load(),
		Rejected:      d.rejected.Load(),
		Ran:           d.ran.Load(),
		Panics:        d.panics.Load(),
		Canceled:      d.canceled.Load(),
		QueueDepth:    len(d.queue),
		Batches:       d.batches.Load(),
		BatchTasks:    d.batchTasks.Load(),
	}
	var sum uint64
	for i, b := range bucketBounds(d.cfg.MaxBatch) {
		sum += d.sizes[i].Load()
		s.BatchBuckets = append(s.BatchBuckets, Bucket{UpperBound: b, Count: sum})
	}
	for _, be := range d.backends {
		s.Backends = append(s.Backends, BackendStats{
			Name:     be.name,
			Batches:  be.batches.Load(),
			Tasks:    be.tasks.Load(),
			Failed:   be.failed.Load(),
			Panicked: be.panicked.Load(),
		})
	}
	return s
}

// bucketBounds returns the histogram's upper bounds for batches of at most
// maxBatch tasks: 1, 2, 4, … up to the first power of two ≥ maxBatch.
func bucketBounds(maxBatch int) []int {
	var b []int
	for n := 1; ; n *= 2 {
		b = append(b, n)
		if n >= maxBatch {
			return b
		}
	}
}

// bucket returns the index in bucketBounds of a batch of n ≥ 1 tasks.
func bucket(n int) int { return bits.Len(uint(n - 1)) }
