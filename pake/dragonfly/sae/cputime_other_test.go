//go:build !linux

package sae

import "time"

var start = time.Now()

// threadCPU falls back to wall time where RUSAGE_THREAD is not available.
func threadCPU() time.Duration { return time.Since(start) }

func lockThread() func() { return func() {} }
