//go:build linux

package meter

import (
	"syscall"
	"time"
	"unsafe"
)

// ThreadCPUClock names what ThreadCPU measures on this system.
const ThreadCPUClock = "thread CPU time, clock_gettime(CLOCK_THREAD_CPUTIME_ID) (getrusage(RUSAGE_THREAD) as fallback), goroutine locked to its OS thread"

// clockThreadCPUTimeID is CLOCK_THREAD_CPUTIME_ID of <linux/time.h>.
const clockThreadCPUTimeID = 3

// ThreadCPU returns the CPU time consumed so far by the calling OS thread.
func ThreadCPU() (time.Duration, error) {
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno == 0 {
		return time.Duration(ts.Nano()), nil
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
