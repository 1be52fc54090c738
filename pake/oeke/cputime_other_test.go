//go:build !linux

package oeke

import "time"

var start = time.Now()

// threadCPU falls back to wall time where the thread CPU clock is not read.
func threadCPU() time.Duration { return time.Since(start) }

func lockThread() func() { return func() {} }
