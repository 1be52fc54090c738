package dispatch

import (
	"fmt"
	"math"
	"runtime/debug"
	"time"
)

// A Task is one server-side computation: typically a closure over a
// scheme's typed API call, such as an SRP server answering message 1, that
// stores its outputs in variables of the caller and returns its error.
// A Task submitted with Dispatcher.Do runs at most once, and never after Do
// has returned.
type Task func() error

// A Backend runs batches of tasks.
//
// Run runs the tasks of batch, or gives up on some, and returns one error
// per task, errs[i] for batch[i]: the task's own error (nil on success), or
// why the backend did not run it. It returns only when it is done with every
// task of the batch; it may be called from several workers at once. Tasks
// that the Dispatcher hands to a backend never panic (it recovers panics
// itself) and report their result to their caller directly, so a backend
// that runs them only needs to call each one once; a task the backend
// neither ran nor gave an error for fails with ErrBackend.
//
// Cost is the backend's cost model (see the package documentation): T the
// latency of one batch, K the cost of one task. The Dispatcher reads it
// once, in New, to derive the threshold t = ⌈T/k⌉.
type Backend interface {
	Name() string
	Run(batch []Task) []error
	Cost() Cost
}

// Cost is the seed's cost model of a backend: a batch of n tasks takes
// T + K·n.
type Cost struct {
	T time.Duration // latency of one batch: the fixed overhead
	K time.Duration // cost of one task
}

func (c Cost) String() string { return fmt.Sprintf("T=%v k=%v", c.T, c.K) }

// Never is the threshold at which no batch goes to the accelerator.
const Never = math.MaxInt

// Threshold returns t, the largest batch size that the CPU runs at least as
// fast as the accelerator: a batch of n tasks takes n·k on one CPU worker
// and T + kₐ·n on the accelerator, so batches of more than
//
//	t = ⌈T/(k−kₐ)⌉
//
// tasks go to the accelerator; with kₐ negligible this is the seed's
// t = ⌈T/k⌉. T and kₐ are accel's, k is cpu's. Threshold returns Never when
// the accelerator never pays off (kₐ ≥ k, which includes an uncalibrated
// CPU cost of zero).
func Threshold(cpu, accel Cost) int {
	gain := cpu.K - accel.K // what each task saves on the accelerator
	if gain <= 0 {
		return Never
	}
	T := max(accel.T, 0)
	t := T / gain
	if T%gain != 0 {
		t++
	}
	return int(t)
}

// CPU is the backend that runs the tasks of a batch one after another on
// the calling worker's goroutine; the Dispatcher runs one worker per core
// (Config.Workers). Its zero value is ready to use.
type CPU struct {
	// Model is what Cost reports: K the cost of one task as Calibrate
	// measured it for the tasks this service runs, T about zero. The zero
	// Model is fine when there is no accelerator.
	Model Cost
}

// Name returns "cpu".
func (CPU) Name() string { return "cpu" }

// Cost returns c.Model.
func (c CPU) Cost() Cost { return c.Model }

// Run runs the tasks of batch in order on the calling goroutine. A task that
// panics yields a *PanicError and the others still run.
func (CPU) Run(batch []Task) []error {
	errs := make([]error, len(batch))
	for i, t := range batch {
		errs[i] = runTask(t)
	}
	return errs
}

// runTask runs t, turning a panic into a *PanicError.
func runTask(t Task) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError(r)
		}
	}()
	if t == nil {
		return ErrNilTask
	}
	return t()
}

// PanicError is the error of a task, or a backend, that panicked: the
// recovered value and the stack of the panicking goroutine.
type PanicError struct {
	Value any
	Stack []byte
}

func newPanicError(v any) *PanicError { return &PanicError{Value: v, Stack: debug.Stack()} }

func (e *PanicError) Error() string { return fmt.Sprintf("dispatch: panic: %v", e.Value) }

// Unwrap returns the panic value if it is an error (a runtime.Error, say).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
