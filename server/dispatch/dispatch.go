package dispatch

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Errors of Do. Test with errors.Is: ErrBackend comes wrapped with the
// backend's name and cause.
var (
	// ErrClosed is returned by Do after Close has been called.
	ErrClosed = errors.New("dispatch: dispatcher closed")
	// ErrOverloaded is returned by Do, at once, when the queue is full;
	// the HTTP layer answers it with 503 or 429.
	ErrOverloaded = errors.New("dispatch: overloaded: queue full")
	// ErrNilTask is returned by Do for a nil Task.
	ErrNilTask = errors.New("dispatch: nil task")
	// ErrBackend is the error of a task that its backend did not run: the
	// backend panicked, reported an error for it, or returned without
	// running it.
	ErrBackend = errors.New("dispatch: backend did not run the task")
)

// errAbandoned is what a job's Task returns to the backend when its caller
// gave up before it started; it never reaches a caller.
var errAbandoned = errors.New("dispatch: task abandoned by its caller")

// errGoexit is the error of a task, or a backend, that called
// runtime.Goexit.
var errGoexit = errors.New("dispatch: runtime.Goexit called in a task or backend")

// Defaults of Config.
const (
	DefaultMaxBatch   = 64
	DefaultMaxDelay   = 200 * time.Microsecond
	DefaultQueueDepth = 1024
)

// Config configures a Dispatcher. The zero Config is the default one.
type Config struct {
	// Workers is the number of workers; 0 means runtime.GOMAXPROCS(0),
	// one per core.
	Workers int
	// MaxBatch is B, the most tasks in one batch; 0 means DefaultMaxBatch.
	MaxBatch int
	// MaxDelay is how long a batch may wait for more tasks after its first
	// one was submitted, with an accelerator only (without one a worker
	// never waits; see the package documentation for when one does); 0
	// means DefaultMaxDelay, a negative value no waiting.
	MaxDelay time.Duration
	// QueueDepth is how many submitted tasks may wait for a worker before
	// Do fails with ErrOverloaded; 0 means DefaultQueueDepth.
	QueueDepth int
	// Threshold, when positive, is t: batches of more than t tasks go to
	// the accelerator. Zero means Threshold(cpu.Cost(), accel.Cost()).
	Threshold int
}

// Job states; a job moves from queued to exactly one of running (then
// done) or abandoned, or to done directly when its backend failed it.
const (
	queued int32 = iota
	running
	done
	abandoned
)

// job is one submitted task.
type job struct {
	d     *Dispatcher
	task  Task
	run   Task       // j.exec, what the backend gets
	out   chan error // capacity 1: the result, sent exactly once
	state atomic.Int32
	at    time.Time // submission time, kept only when batches wait
}

// exec runs the caller's task unless the caller gave up first, recovers a
// panic and delivers the result to the caller.
func (j *job) exec() (err error) {
	if !j.state.CompareAndSwap(queued, running) {
		return errAbandoned
	}
	returned := false
	defer func() {
		if !returned {
			if r := recover(); r != nil {
				err = newPanicError(r)
				j.d.panics.Add(1)
			} else {
				err = errGoexit // unwinding from runtime.Goexit
			}
		}
		j.d.ran.Add(1)
		j.state.Store(done)
		j.out <- err
	}()
	err = j.task()
	returned = true
	return err
}

// backend is a Backend with its name and counters.
type backend struct {
	b                Backend
	name             string
	batches, tasks   atomic.Uint64
	failed, panicked atomic.Uint64
}

// Dispatcher queues tasks and runs them in batches on its workers. Create
// one with New and stop it with Close; its methods are safe for concurrent
// use.
type Dispatcher struct {
	cfg       Config
	threshold int
	wait      bool         // batches may wait up to MaxDelay for more tasks
	collect   sync.Mutex   // held by the one collecting worker when batches wait
	arrivals  arrivals     // guarded by collect
	backends  []*backend   // cpu, then accel if any
	queue     chan *job    // closed by Close
	mu        sync.RWMutex // guards closed against sends on a closed queue
	closed    bool
	workers   sync.WaitGroup

	submitted, rejected, ran, panics, canceled atomic.Uint64
	batches, batchTasks                        atomic.Uint64
	sizes                                      []atomic.Uint64 // batch-size buckets, see bucket
}

// New starts a Dispatcher with cfg's workers. cpu is the backend of small
// batches (CPU{} if nil); accel, if not nil, gets the batches of more than
// t tasks (see Config.Threshold).
func New(cfg Config, cpu, accel Backend) *Dispatcher {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.MaxDelay == 0 {
		cfg.MaxDelay = DefaultMaxDelay
	}
	if cfg.QueueDepth <= 0 {
		cfg.QueueDepth = DefaultQueueDepth
	}
	if cpu == nil {
		cpu = CPU{}
	}
	d := &Dispatcher{
		cfg:       cfg,
		threshold: Never,
		queue:     make(chan *job, cfg.QueueDepth),
		backends:  []*backend{{b: cpu, name: cpu.Name()}},
		sizes:     make([]atomic.Uint64, len(bucketBounds(cfg.MaxBatch))),
	}
	if accel != nil {
		d.backends = append(d.backends, &backend{b: accel, name: accel.Name()})
		d.threshold = cfg.Threshold
		if d.threshold <= 0 {
			d.threshold = Threshold(cpu.Cost(), accel.Cost())
		}
		// Waiting pays only if a batch can grow past t.
		d.wait = cfg.MaxDelay > 0 && d.threshold < cfg.MaxBatch
	}
	d.workers.Add(cfg.Workers)
	for range cfg.Workers {
		go d.worker()
	}
	return d
}

// Do submits t and waits for its result. It returns ErrOverloaded at once
// when the queue is full, ErrClosed after Close, and otherwise t's error,
// a *PanicError if t panicked, or an error wrapping ErrBackend if the
// backend failed to run it.
//
// If ctx is done before t starts, Do returns ctx.Err() at once and t never
// runs. Once t has started, Do waits for it, however ctx fares, and returns
// its result: t never runs after Do has returned, so it may write its
// outputs into the caller's variables without more synchronization. (Tasks
// are short; a task that never returns holds its caller and its worker.)
//
// A task must not call Do on its own Dispatcher: with every worker inside
// such a task, nothing would run the inner ones.
func (d *Dispatcher) Do(ctx context.Context, t Task) error {
	if t == nil {
		return ErrNilTask
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &job{d: d, task: t, out: make(chan error, 1)}
	j.run = j.exec
	if d.wait {
		j.at = time.Now()
	}
	if err := d.submit(j); err != nil {
		return err
	}
	select {
	case err := <-j.out:
		return err
	case <-ctx.Done():
	}
	if j.state.CompareAndSwap(queued, abandoned) {
		d.canceled.Add(1)
		return ctx.Err()
	}
	return <-j.out // started or failed by its backend: its result is coming
}

// submit queues j without blocking.
func (d *Dispatcher) submit(j *job) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	select {
	case d.queue <- j:
		d.submitted.Add(1)
		return nil
	default:
		d.rejected.Add(1)
		return ErrOverloaded
	}
}

// Close stops accepting tasks (Do returns ErrClosed), waits until every
// task already queued has run and its caller has its result, and stops the
// workers. It may be called more than once and from several goroutines;
// each call returns once the workers have stopped.
func (d *Dispatcher) Close() {
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		close(d.queue)
	}
	d.mu.Unlock()
	d.workers.Wait()
}

// worker state, reused from batch to batch.
type worker struct {
	batch []*job
	tasks []Task
	be    *backend // running the batch
	timer *time.Timer
}

// worker collects and runs batches until the queue is closed and empty.
func (d *Dispatcher) worker() {
	w := &worker{
		batch: make([]*job, 0, d.cfg.MaxBatch),
		tasks: make([]Task, 0, d.cfg.MaxBatch),
	}
	clean := false
	defer func() {
		if clean {
			d.workers.Done()
			return
		}
		// A task or the backend called runtime.Goexit, which cannot be
		// stopped: fail what is left of the batch and start a replacement.
		if w.be == nil {
			w.be = d.backends[0]
		}
		d.settle(w.batch, nil, fmt.Errorf("%w: %s: %w", ErrBackend, w.be.name, errGoexit), w.be)
		d.workers.Add(1)
		go d.worker()
		d.workers.Done()
	}()
	for d.next(w) {
		d.runBatch(w)
	}
	clean = true
}

// next collects the next batch into w.batch and reports whether there is
// one; it returns false once the queue is closed and empty.
func (d *Dispatcher) next(w *worker) bool {
	clear(w.batch)
	w.batch = w.batch[:0]
	if d.wait {
		d.collect.Lock()
		defer d.collect.Unlock()
	}
	var first *job
	for first == nil {
		j, ok := <-d.queue
		if !ok {
			return false
		}
		if j.state.Load() != abandoned {
			first = j
		}
	}
	w.batch = append(w.batch, first)
	limit := d.cfg.MaxBatch
	if !d.wait {
		// Never wait. With the CPU alone, this worker runs the batch in
		// order: take a fair share of the queue only. With an accelerator,
		// take what is there, so that a batch over the threshold can
		// reach it.
		if len(d.backends) == 1 {
			limit = min(limit, 1+len(d.queue)/d.cfg.Workers)
		}
		w.take(d.queue, limit)
		return true
	}
	now := time.Now()
	d.arrivals.observe(now, d.submitted.Load())
	if !w.take(d.queue, limit) || len(w.batch) >= limit {
		return true
	}
	wait := first.at.Add(d.cfg.MaxDelay).Sub(now)
	if wait <= 0 || !d.arrivals.fill(len(w.batch), wait, d.threshold) {
		return true
	}
	if w.timer == nil {
		w.timer = time.NewTimer(wait)
	} else {
		w.timer.Reset(wait)
	}
	defer w.timer.Stop()
	for len(w.batch) < limit {
		select {
		case j, ok := <-d.queue:
			if !ok {
				return true
			}
			w.add(j)
		case <-w.timer.C:
			return true
		}
	}
	return true
}

// arrivals estimates the rate at which tasks arrive, so that a collecting
// worker waits only when the batch can still grow past t before MaxDelay
// is over: a lone task under light load goes to the CPU at once instead of
// waiting for a batch that will not come.
type arrivals struct {
	at    time.Time // the last observation
	n     uint64    // tasks submitted by then
	rate  float64   // tasks per nanosecond, a moving average
	known bool      // rate has been estimated
}

// observe records that n tasks had been submitted by now.
func (a *arrivals) observe(now time.Time, n uint64) {
	if dt := now.Sub(a.at); !a.at.IsZero() && dt > 0 {
		a.rate = (a.rate + float64(n-a.n)/float64(dt)) / 2
		a.known = true
	}
	a.at, a.n = now, n
}

// fill reports whether a batch of n tasks can be expected to hold more than
// t tasks after waiting wait. Before any estimate it answers yes.
func (a *arrivals) fill(n int, wait time.Duration, t int) bool {
	return !a.known || float64(n)+a.rate*float64(wait) > float64(t)
}

// take appends queued jobs to the batch, without blocking, until it holds
// limit jobs or the queue is empty; it returns false if the queue is
// closed.
func (w *worker) take(q <-chan *job, limit int) bool {
	for len(w.batch) < limit {
		select {
		case j, ok := <-q:
			if !ok {
				return false
			}
			w.add(j)
		default:
			return true
		}
	}
	return true
}

// add appends j to the batch unless its caller has given up.
func (w *worker) add(j *job) {
	if j.state.Load() != abandoned {
		w.batch = append(w.batch, j)
	}
}

// runBatch hands w.batch to the backend that the threshold picks and
// settles the tasks it did not run.
func (d *Dispatcher) runBatch(w *worker) {
	n := len(w.batch)
	be := d.backends[0]
	if len(d.backends) > 1 && n > d.threshold {
		be = d.backends[1]
	}
	w.be = be
	be.batches.Add(1)
	be.tasks.Add(uint64(n))
	d.batches.Add(1)
	d.batchTasks.Add(uint64(n))
	d.sizes[bucket(n)].Add(1)

	w.tasks = w.tasks[:0]
	for _, j := range w.batch {
		w.tasks = append(w.tasks, j.run)
	}
	errs, failure := runBackend(be, w.tasks)
	clear(w.tasks)
	d.settle(w.batch, errs, failure, be)
}

// runBackend calls be.b.Run, recovering a panic as failure.
func runBackend(be *backend, tasks []Task) (errs []error, failure error) {
	defer func() {
		if r := recover(); r != nil {
			be.panicked.Add(1)
			failure = fmt.Errorf("%w: %s: %w", ErrBackend, be.name, newPanicError(r))
		}
	}()
	return be.b.Run(tasks), nil
}

// settle delivers an error to every job of batch that has neither run nor
// been abandoned: failure if not nil, else the backend's error for it, else
// ErrBackend (the backend returned without running it).
func (d *Dispatcher) settle(batch []*job, errs []error, failure error, be *backend) {
	for i, j := range batch {
		if j == nil || !j.state.CompareAndSwap(queued, done) {
			continue
		}
		err := failure
		switch {
		case err != nil:
		case i < len(errs) && errs[i] != nil:
			err = fmt.Errorf("%w: %s: %w", ErrBackend, be.name, errs[i])
		default:
			err = fmt.Errorf("%w: %s returned without running it", ErrBackend, be.name)
		}
		be.failed.Add(1)
		j.out <- err
	}
}
