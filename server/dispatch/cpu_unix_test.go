//go:build linux || darwin || freebsd || netbsd || openbsd

package dispatch

import (
	"syscall"
	"time"
)

// processClock names what processTime measures.
const processClock = "process CPU time, getrusage(RUSAGE_SELF) user+system"

// processTime returns the CPU time of the whole process so far: every
// goroutine's, the runtime's and the garbage collector's.
func processTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
