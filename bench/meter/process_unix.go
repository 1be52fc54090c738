//go:build unix

package meter

import (
	"syscall"
	"time"
)

// ProcessCPUClock names what ProcessCPU measures on this system.
const ProcessCPUClock = "process CPU time, getrusage(RUSAGE_SELF) user+system"

// ProcessCPU returns the CPU time of the whole process so far: every
// goroutine's, the runtime's and the garbage collector's.
func ProcessCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
