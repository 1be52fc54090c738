//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package dispatch

import "time"

// processClock names what processTime measures.
const processClock = "wall time (no getrusage here), every core busy"

var epoch = time.Now()

// processTime returns the wall time since the package's tests started.
func processTime() time.Duration { return time.Since(epoch) }
