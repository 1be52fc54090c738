// Package dispatch is the batch dispatcher of the PAKE authentication
// service (package server): the heavy server-side step of a login — the
// modular exponentiations of SRP, the scalar multiplications of SPAKE2+ and
// CPace, the OPRF evaluation of OPAQUE — is submitted as a Task to one
// bounded queue that feeds one worker per core, and the workers hand the
// queued tasks, in batches, to a Backend.
//
// It follows the Heterogeneous-PAKE design (R. Wei et al., "Heterogeneous-
// PAKE: Bridging the Gap between PAKE Protocols and Their Real-World
// Deployment", ACSAC 2021, doi:10.1145/3485832.3485877): requests are
// grouped into batches of up to B tasks (Config.MaxBatch) or until a short
// deadline passes (Config.MaxDelay, 200 µs by default), and a batch that is
// big enough goes to an accelerator (a GPU), the others to the CPU.
//
// # Cost model
//
// The seed's model: a backend runs a batch of n tasks in time T + k·n, T
// being the latency of one batch (its fixed overhead: on a GPU a kernel
// launch and the copies to and from the device; on the CPU about zero) and
// k the cost of one task (Cost). A batch of n tasks costs n·k on one CPU
// worker and about T on the accelerator, so the accelerator pays off once
// the batch holds more than
//
//	t = ⌈T/k⌉
//
// tasks, T the accelerator's batch latency and k the CPU's per-task cost
// (Threshold; where the accelerator's own per-task cost kₐ is not
// negligible, t = ⌈T/(k−kₐ)⌉, the same rule). Batches larger than t go to
// the accelerator, the others to the CPU backend. Calibrate measures T and
// k at start-up by timing batches of several sizes and fitting the line
// time = T + k·size by least squares; Config.Threshold overrides t.
//
// # Batching
//
// A worker takes the oldest queued task and then whatever else is queued,
// up to B. With an accelerator it may then wait for more tasks, until B are
// there or MaxDelay has passed since the first one was submitted, so that a
// batch can grow past t; one worker collects at a time, so that concurrent
// collectors do not split the arrivals between them. It waits only when
// that can pay: never if t ≥ B, and not when the recent arrival rate (a
// moving average) predicts that the batch would still hold t tasks or fewer
// at the deadline — a lone task under light load goes to the CPU at once
// rather than waiting for a batch that will not come. (On Linux a Go timer
// below 1 ms fires after about 1 ms when every thread is idle, since the
// runtime then sleeps in epoll_wait, which counts milliseconds; under load
// it is precise.)
//
// With the CPU backend alone a worker never waits and takes at most its
// share of the queue, 1 + queued/workers tasks: the CPU backend runs a
// batch one task after another on the worker's goroutine, so waiting would
// only add latency and a bigger share would leave other workers idle.
// Batches of more than one task then appear only when tasks queue up
// anyway, under load.
//
// The queue is bounded (Config.QueueDepth): when it is full, Do fails at
// once with ErrOverloaded, so that the HTTP layer answers 503 or 429 rather
// than letting requests pile up. A panic in a task is recovered and
// returned to its caller as a *PanicError; it never kills a worker.
//
// # Typed operations (the GPU backend)
//
// A GPU cannot run a Go closure, so the GPU backend (behind a build tag,
// never in the default build) will need typed operations: a value such as
// a batch of modular exponentiations at one modulus or of P-256 scalar
// multiplications, which it packs into device buffers. They will fit
// without breaking a caller or a backend written against this API:
//
//   - an Op interface (its kind, its inputs, where its output goes) and a
//     method DoOp(ctx, Op, fallback Task) on Dispatcher, whose job carries
//     both the op and a Task computing the same thing on the CPU;
//   - an optional interface OpBackend{ RunOps(ops []Op) []error } that a
//     backend implements when it understands the op set; a worker finds it
//     by a type assertion and hands it batches of ops of one kind, and any
//     other backend (the CPU) gets the fallback tasks as now.
//
// Backend.Run's contract already reports per task, in its []error, why a
// task did not run; a task that a backend neither ran nor reported fails
// with ErrBackend, so no backend can drop a caller's work silently.
package dispatch
