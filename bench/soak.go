package bench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// SoakFormat is the Format of a SoakResult (`kexlab wg bench -soak`).
const SoakFormat = "kexlab-wg-soak/1"

// SoakResult is the cost of the WireGuard PSK rotator daemon over a long
// run (package wg/wgsoak): per combination of mode and key source, the
// cumulative counters of the daemons, of the WireGuard devices beside
// them and of an idle WireGuard pair without a daemon, sampled at the
// same instants, which package report renders.
type SoakResult struct {
	Format  string  `json:"format"`
	Label   string  `json:"label,omitempty"`
	Machine Machine `json:"machine"`
	// The shape of the run.
	Seconds          float64     `json:"seconds"`           // measured window of each combination
	SampleSeconds    float64     `json:"sample_seconds"`    // sampling interval
	KeepaliveSeconds float64     `json:"keepalive_seconds"` // persistent keepalive of side a
	Order            string      `json:"order"`             // how the combinations were scheduled
	Combos           []SoakCombo `json:"combos"`
}

// SoakCombo is one combination's lab run.
type SoakCombo struct {
	Mode   string `json:"mode"`   // timestamp, hash-ratchet, hardware-ratchet, fresh
	Source string `json:"source"` // file, pkcs11, tpm
	// SourceName says which key (a path, a token, a TPM).
	SourceName string    `json:"source_name,omitempty"`
	Started    time.Time `json:"started"` // the start of the measured window
	// WarmupSeconds is the time from starting the lab to the end of the
	// warm-up: the first handshake done and the PSK rotated on both sides.
	WarmupSeconds float64 `json:"warmup_seconds"`
	// Handshakes counts the handshakes completed in the measured window
	// (changes of the last-handshake time of side a's peer, read at every
	// sample), WarmupHandshakes those before it.
	Handshakes       int `json:"handshakes"`
	WarmupHandshakes int `json:"warmup_handshakes"`
	// Processes are the measured processes: roles SoakDaemon, SoakDevice
	// and SoakIdle, on sides "a" and "b".
	Processes []SoakProcess `json:"processes"`
}

// The roles of a SoakProcess.
const (
	SoakDaemon = "daemon" // a `kexlab wg run` daemon
	SoakDevice = "device" // the WireGuard device (wireguard-go) the daemon rotates
	SoakIdle   = "idle"   // a WireGuard device with no daemon: the baseline
)

// SoakProcess is one process's counters at every sample of the window.
type SoakProcess struct {
	Role    string       `json:"role"`
	Side    string       `json:"side"`
	Samples []SoakSample `json:"samples"`
}

// SoakSample is a process's cumulative counters since it started, read at
// T seconds into the window (the first sample is at T = 0).
type SoakSample struct {
	T float64 `json:"t"`
	// CPUSeconds is user + system time of all threads (the process CPU
	// clock, ns resolution); TickCPUSeconds the same from /proc/PID/stat
	// (10 ms resolution), a cross-check.
	CPUSeconds     float64 `json:"cpu_s"`
	TickCPUSeconds float64 `json:"tick_cpu_s"`
	// Voluntary and Involuntary are context switches (summed over the
	// threads): voluntary ones are wakeups from sleep, involuntary ones
	// preemptions.
	Voluntary   float64 `json:"voluntary"`
	Involuntary float64 `json:"involuntary"`
	RSSBytes    float64 `json:"rss_bytes"`
}

// Wakeups is Voluntary + Involuntary.
func (s SoakSample) Wakeups() float64 { return s.Voluntary + s.Involuntary }

// PerHour returns the process's rates per hour in each sampling interval:
// CPU seconds per hour and wakeups (context switches) per hour.
func (p SoakProcess) PerHour() (cpu, wakeups []float64) {
	for i := 1; i < len(p.Samples); i++ {
		a, b := p.Samples[i-1], p.Samples[i]
		dt := b.T - a.T
		if dt <= 0 {
			continue
		}
		cpu = append(cpu, (b.CPUSeconds-a.CPUSeconds)/dt*3600)
		wakeups = append(wakeups, (b.Wakeups()-a.Wakeups())/dt*3600)
	}
	return cpu, wakeups
}

// WindowPerHour is the rates over the whole window: the last sample less
// the first, per hour of the window (zeros with fewer than two samples).
func (p SoakProcess) WindowPerHour() (cpu, wakeups float64) {
	n := len(p.Samples)
	if n < 2 || p.Samples[n-1].T <= p.Samples[0].T {
		return 0, 0
	}
	a, b := p.Samples[0], p.Samples[n-1]
	dt := b.T - a.T
	return (b.CPUSeconds - a.CPUSeconds) / dt * 3600, (b.Wakeups() - a.Wakeups()) / dt * 3600
}

// SoakStat summarises per-hour rates: the median, minimum and maximum of
// N interval rates, and the rate over the whole window (the mean, which a
// handshake every two minutes makes the figure of cost: the median of
// one-minute intervals can miss the handshakes' share).
type SoakStat struct {
	N                int
	Median, Min, Max float64
	Window           float64 // mean over the processes of their window rates
}

// SoakSummary summarises the processes of one role of a combination.
type SoakSummary struct {
	Processes int
	// CPU (seconds per hour) and Wakeups (per hour) pool the interval
	// rates of every process of the role: N = processes × intervals.
	CPU, Wakeups SoakStat
	// RSSBytes is the largest resident set at the last sample.
	RSSBytes float64
}

// Summarize summarises c's processes of role (ok false if it has none
// with an interval).
func (c SoakCombo) Summarize(role string) (s SoakSummary, ok bool) {
	var cpu, wake []float64
	for _, p := range c.Processes {
		if p.Role != role || len(p.Samples) < 2 {
			continue
		}
		pc, pw := p.PerHour()
		if len(pc) == 0 {
			continue
		}
		wc, ww := p.WindowPerHour()
		s.Processes++
		s.CPU.Window += wc
		s.Wakeups.Window += ww
		cpu, wake = append(cpu, pc...), append(wake, pw...)
		s.RSSBytes = max(s.RSSBytes, p.Samples[len(p.Samples)-1].RSSBytes)
	}
	if s.Processes == 0 {
		return s, false
	}
	s.CPU.Window /= float64(s.Processes)
	s.Wakeups.Window /= float64(s.Processes)
	s.CPU.N, s.CPU.Median, s.CPU.Min, s.CPU.Max = spread(cpu)
	s.Wakeups.N, s.Wakeups.Median, s.Wakeups.Min, s.Wakeups.Max = spread(wake)
	return s, true
}

// spread is the number, median, minimum and maximum of xs (not empty).
func spread(xs []float64) (n int, median, lo, hi float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	n = len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return n, median, s[0], s[n-1]
}

// String formats s as "window (median [min–max])", each with three
// significant digits and k or M for thousands and millions.
func (s SoakStat) String() string {
	return fmt.Sprintf("%s (%s [%s–%s])", SoakNum(s.Window), SoakNum(s.Median), SoakNum(s.Min), SoakNum(s.Max))
}

// SoakNum formats a rate with three significant digits, k and M for
// thousands and millions.
func SoakNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}

// Added is what the rotator adds to one host, per hour over the window:
// the daemon's rate plus its device's less the idle device's (each the
// mean over the sides), CPU seconds and wakeups; ok is false unless c
// has all three roles.
func (c SoakCombo) Added() (cpu, wakeups float64, ok bool) {
	d, okD := c.Summarize(SoakDaemon)
	dev, okV := c.Summarize(SoakDevice)
	idle, okI := c.Summarize(SoakIdle)
	if !okD || !okV || !okI {
		return 0, 0, false
	}
	return d.CPU.Window + dev.CPU.Window - idle.CPU.Window, d.Wakeups.Window + dev.Wakeups.Window - idle.Wakeups.Window, true
}
