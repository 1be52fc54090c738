package server

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target (runtime/debug.SetGCPercent)
// that TuneGC sets and kexlab serve runs with. A login allocates short-lived
// big-number scratch — about 1 MB at srp-3072, where filippo.io/bigmod has
// no fixed-size code and allocates per multiplication — while the
// service's live heap is a few megabytes, so Go's default of 100 collects
// every few logins and each collection marks the HTTP server's and the
// store's heap again. At 400 the heap may grow to five times the live heap
// (tens of megabytes); BenchmarkLogin at srp-3072 went from 78 % to 81 %
// of the primitive limit.
const GCPercent = 400

// TuneGC sets GCPercent for the process unless the GOGC environment
// variable is set (an operator's setting wins).
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
