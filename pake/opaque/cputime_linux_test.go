//go:build linux

package opaque

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time used by the calling OS thread, so that a
// benchmark on a loaded machine can time work without the time it spent
// descheduled. Callers lock their goroutine to its thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
