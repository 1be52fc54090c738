//go:build linux

package netlab

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Stats are a process's cumulative counters since it started, read from
// /proc and from its CPU clock.
type Stats struct {
	// CPU is the process's CPU time, user and system, of all its threads
	// (exited ones included): the kernel's process CPU clock
	// (clock_gettime on the clock of the process, CPUCLOCK_SCHED), to the
	// nanosecond. Where that clock cannot be read it is TickCPU and
	// CPUClock is false.
	CPU      time.Duration
	CPUClock bool
	// TickCPU is utime + stime from /proc/PID/stat (fields 14 and 15), in
	// clock ticks of 10 ms (USER_HZ = 100 on Linux).
	TickCPU time.Duration
	// Voluntary and Involuntary are the context switches of the live
	// threads (/proc/PID/task/*/status): a voluntary one is the process
	// going to sleep, so Voluntary counts its wakeups; an involuntary one
	// is a preemption. The switches of threads that have exited are not
	// in them (Go's runtime keeps its threads).
	Voluntary, Involuntary uint64
	// PerThread holds the live threads' context switches by thread id
	// (SwitchCounter keeps the counts of threads that exit).
	PerThread map[int]Switches
	// RSS is the resident set (VmRSS), in bytes.
	RSS uint64
	// Threads is the number of threads.
	Threads int
}

// Wakeups is Voluntary + Involuntary.
func (s Stats) Wakeups() uint64 { return s.Voluntary + s.Involuntary }

// Switches are a thread's context switches.
type Switches struct{ Voluntary, Involuntary uint64 }

// SwitchCounter sums a process's context switches over every thread seen
// in successive Stats, exited threads included (with their counts when
// last seen), so that its sums never decrease.
type SwitchCounter struct {
	last map[int]Switches
}

// Add takes the threads of s and returns the sums over every thread seen
// so far.
func (c *SwitchCounter) Add(s Stats) Switches {
	if c.last == nil {
		c.last = make(map[int]Switches)
	}
	for tid, sw := range s.PerThread {
		l := c.last[tid]
		c.last[tid] = Switches{max(l.Voluntary, sw.Voluntary), max(l.Involuntary, sw.Involuntary)}
	}
	var sum Switches
	for _, sw := range c.last {
		sum.Voluntary += sw.Voluntary
		sum.Involuntary += sw.Involuntary
	}
	return sum
}

// ErrNoProcess: the process does not exist (it has exited).
var ErrNoProcess = errors.New("netlab: no such process")

// userHZ is the unit of /proc/PID/stat's times (sysconf(_SC_CLK_TCK)),
// 100 on every Linux architecture.
const userHZ = 100

// ReadStats reads the Stats of process pid.
func ReadStats(pid int) (Stats, error) {
	var s Stats
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return s, fmt.Errorf("%w: %d", ErrNoProcess, pid)
		}
		return s, err
	}
	// The command name (field 2) is in parentheses and may hold any byte;
	// the fields after the last ')' start with field 3.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return s, fmt.Errorf("netlab: /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return s, fmt.Errorf("netlab: /proc/%d/stat: %d fields", pid, len(f)+2)
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return s, fmt.Errorf("netlab: /proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	s.TickCPU = time.Duration(ut+st) * (time.Second / userHZ)
	s.CPU = s.TickCPU
	if d, err := processCPUClock(pid); err == nil {
		s.CPU, s.CPUClock = d, true
	}
	if err := readStatus(filepath.Join(dir, "status"), func(k string, v uint64) {
		switch k {
		case "VmRSS":
			s.RSS = v * 1024
		case "Threads":
			s.Threads = int(v)
		}
	}); err != nil {
		return s, err
	}
	tasks, err := os.ReadDir(filepath.Join(dir, "task"))
	if err != nil {
		return s, err
	}
	s.PerThread = make(map[int]Switches, len(tasks))
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		var sw Switches
		err = readStatus(filepath.Join(dir, "task", t.Name(), "status"), func(k string, v uint64) {
			switch k {
			case "voluntary_ctxt_switches":
				sw.Voluntary = v
			case "nonvoluntary_ctxt_switches":
				sw.Involuntary = v
			}
		})
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) { // a thread that just exited
			continue
		}
		if err != nil {
			return s, err
		}
		s.PerThread[tid] = sw
		s.Voluntary += sw.Voluntary
		s.Involuntary += sw.Involuntary
	}
	return s, nil
}

// readStatus calls f with every "Key:\tnumber [kB]" line of a
// /proc/.../status file.
func readStatus(path string, f func(key string, v uint64)) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		if v, err := strconv.ParseUint(fields[0], 10, 64); err == nil {
			f(k, v)
		}
	}
	return sc.Err()
}

// processCPUClock reads the CPU clock of process pid: clockid
// MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) = (~pid << 3) | 2 (Linux's
// include/linux/posix-timers.h), what clock_getcpuclockid(3) returns.
func processCPUClock(pid int) (time.Duration, error) {
	id := int(int32(^uint32(pid)<<3 | 2))
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(id), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, e
	}
	return time.Duration(ts.Nano()), nil
}
