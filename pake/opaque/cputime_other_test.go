//go:build !linux

package opaque

import "time"

var start = time.Now()

// threadCPU falls back to wall-clock time where no per-thread CPU clock is
// available.
func threadCPU() time.Duration { return time.Since(start) }
