package dragonfly

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time the calling OS thread has used
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID), nanosecond accounting). With the
// goroutine locked to its thread it measures work done rather than wall
// time, which the load of other processes on the machine inflates.
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
