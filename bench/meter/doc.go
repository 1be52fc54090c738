// Package meter reads the clocks and counters the harness samples around
// each measurement: the CPU time of the calling thread and RAPL energy
// counters.
//
// # CPU time
//
// [ThreadCPU] is the CPU time of the calling OS thread from
// clock_gettime(CLOCK_THREAD_CPUTIME_ID) (Linux clock_gettime(2): the
// scheduler's nanosecond runtime of the thread, user and system), falling
// back to getrusage(RUSAGE_THREAD) (getrusage(2), user+system, which on
// many kernels advances only at scheduler ticks and so reads 0 for short
// samples). The caller must hold the thread with runtime.LockOSThread for
// two readings to bracket its own work. Elsewhere it returns an error
// wrapping errors.ErrUnsupported and the harness records no CPU time.
//
// # Energy
//
// [OpenRAPL] reads Intel RAPL through the Linux powercap framework
// (Documentation/power/powercap/powercap.rst): every zone
// /sys/class/powercap/intel-rapl:N (a package) and intel-rapl:N:M (its
// subzones: core, uncore, dram) has a name, energy_uj (a counter in
// microjoules) and max_energy_range_uj (the counter's range: it wraps to 0
// after it). Since 2020 energy_uj is readable only by root on most
// distributions; when no zone is readable OpenRAPL returns an error that
// says why, and reports carry that reason instead of a number.
//
// RAPL measures a whole package (or its cores), not a process: the energy
// of a sample includes whatever else ran on the package meanwhile, and the
// counters advance about once a millisecond, so samples much shorter than
// that read as 0 or one step. Compare energy only from runs on an otherwise
// idle machine.
package meter
