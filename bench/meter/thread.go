package meter

import (
	"runtime"
	"time"
)

// LockThread pins the calling goroutine to its OS thread, so that
// ThreadCPU measures the goroutine's own work, and returns the function that
// unpins it. Benchmarks use it as `defer meter.LockThread()()`.
func LockThread() (unlock func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

var processStart = time.Now()

// ThreadCPUOrWall returns ThreadCPU, or, where the thread CPU clock cannot
// be read, the wall time since the process started: differences of either
// time the work between two calls.
func ThreadCPUOrWall() time.Duration {
	if d, err := ThreadCPU(); err == nil {
		return d
	}
	return time.Since(processStart)
}
