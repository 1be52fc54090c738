package dispatch

import (
	"time"

	"github.com/kexlab/kexlab/bench/meter"
)

// processClock names what processTime measures.
var processClock = meter.ProcessCPUClock

var epoch = time.Now()

// processTime returns the process's CPU time (meter.ProcessCPU), or the
// wall time since the package's tests started where there is none (then
// every core is busy with the benchmark).
func processTime() time.Duration {
	if d, err := meter.ProcessCPU(); err == nil {
		return d
	}
	processClock = "wall time (no process CPU time here), every core busy"
	return time.Since(epoch)
}
