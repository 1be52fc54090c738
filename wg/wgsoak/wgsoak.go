// Package wgsoak measures what the WireGuard PSK rotator daemon (`kexlab
// wg run`, package wg/daemon) costs over a long run, beside an idle
// WireGuard (issue 20, item 6): CPU time, wakeups and memory per hour, for
// each combination of mode and key source.
//
// # The lab
//
// Each combination runs in a lab of its own (package wg/netlab): two
// network namespaces joined by a veth pair, a userspace WireGuard device
// (wireguard-go, a process) in each, and in each a daemon — the kexlab
// binary's `wg run -config FILE`, a separate process — with the same mode
// and the same key (a key file, or one PKCS#11 token or TPM that both
// daemons use). Side a's peer has a persistent keepalive (25 s by
// default), which starts the first handshake and then, since WireGuard
// re-keys on the first packet sent once a session is 120 s old, a
// handshake about every two minutes; after each one the daemons rotate the
// PSK. A second lab, started first and kept for the whole run, holds the
// baseline: the same two WireGuard devices with the same keepalive and no
// daemon — an idle WireGuard.
//
// # What is measured
//
// After a warm-up (the first handshake done and the PSK rotated on both
// sides, so start-up costs are left out), the run samples, at the same
// instants, six processes: the two daemons, the two devices beside them
// and the two idle devices. A sample is each process's cumulative
// counters since it started (package netlab's Stats): CPU time (user and
// system, all threads, from the kernel's process CPU clock, to the
// nanosecond; utime + stime of /proc/PID/stat beside it as a check, to
// 10 ms), context switches summed over its threads (voluntary ones are
// wakeups from sleep, involuntary ones preemptions; "wakeups" below is
// their sum) and the resident set (VmRSS). The window of Config.Duration
// is cut into about Duration/Sample equal intervals (one minute by
// default). Each interval gives a rate per hour (its increase ÷ its
// length × 3600); a role (daemon, device beside it, idle device) is
// summarised over both sides' intervals: n = 2 × intervals, the median and
// the minimum and maximum, and the rate over the whole window (its mean),
// which is the figure of cost — with a handshake every two minutes, a
// one-minute interval holds one or none, so the median of the intervals
// can leave out the handshakes' share. Handshakes are counted from side
// a's last-handshake time, read at every sample (so at most one per
// interval); the baseline devices are not read during the window.
//
// The devices beside the daemons are not idle: each daemon reads its
// device once per poll interval (1 s by default) through the UAPI socket,
// which the device serves; the difference from the idle pair is that part
// of the daemon's cost. The run's own reads (one per sample, of side a's
// device) are in the device's figures too. Work done outside the daemon's
// process is not in its figures: a TPM's (swtpm is a process of its own),
// or a PKCS#11 token's when it is a device or a daemon; SoftHSM2 is a
// library, so its work is the daemon's.
//
// Combinations run one after another, each in a new lab for the whole
// window (Duration is per combination), while the idle pair runs
// throughout: every combination is compared with the baseline measured
// over the same minutes. The machine is named in the result; run it on an
// otherwise idle machine.
package wgsoak

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/daemon"
)

// Defaults of Config.
const (
	DefaultSample        = time.Minute
	DefaultKeepalive     = 25 * time.Second
	DefaultWarmupTimeout = time.Minute
)

// ErrConfig: the Config cannot run.
var ErrConfig = errors.New("wg soak: bad configuration")

// Config configures a soak run.
type Config struct {
	// Exe is the kexlab binary (default os.Executable()): its `wg run
	// -config FILE` is the daemon, and it runs the devices as netlab
	// helpers (it must call netlab.MaybeRunHelper first in main).
	Exe string
	// Env is added to the environment of every process started (the
	// tests run their own binary as kexlab).
	Env []string
	// Modes to measure (default all four), for every source.
	Modes   []wg.Mode
	Sources []Source
	// Duration is the measured window of each combination.
	Duration time.Duration
	// Sample is the sampling interval (default DefaultSample).
	Sample time.Duration
	// Keepalive is side a's persistent keepalive, whole seconds (default
	// DefaultKeepalive).
	Keepalive time.Duration
	// WarmupTimeout bounds each lab's start and warm-up (default
	// DefaultWarmupTimeout).
	WarmupTimeout time.Duration
	// Dir holds, per combination, the daemons' configurations, states and
	// the lab's logs (logs.txt) in a subdirectory SOURCE-MODE, replaced if
	// it exists ("": a temporary directory, removed at the end).
	Dir   string
	Label string
	// Progress receives a line per sample (nil: none).
	Progress io.Writer
}

// Source is a key source both daemons of a lab use.
type Source struct {
	Kind string // "file", "pkcs11" or "tpm": the row's name
	Name string // which key, for the result (a path, a token)
	// Exactly one of these.
	KeyFile string
	PKCS11  *PKCS11
	TPM     *TPM
	// TPMB is side b's TPM if it cannot share TPM (a swtpm socket serves
	// one client at a time); nil: TPM.
	TPMB *TPM
}

// PKCS11 and TPM are the daemon configuration's "pkcs11" and "tpm"
// objects (package wg/daemon).
type (
	PKCS11 = daemon.P11Config
	TPM    = daemon.TPMConfig
)

// AllModes are the rotator's modes, in the order they are measured.
var AllModes = []wg.Mode{wg.Timestamp, wg.HashRatchet, wg.HardwareRatchet, wg.Fresh}

// check fills in the defaults and checks c.
func (c *Config) check() error {
	if len(c.Modes) == 0 {
		c.Modes = AllModes
	}
	if c.Sample == 0 {
		c.Sample = DefaultSample
	}
	if c.Keepalive == 0 {
		c.Keepalive = DefaultKeepalive
	}
	if c.WarmupTimeout == 0 {
		c.WarmupTimeout = DefaultWarmupTimeout
	}
	switch {
	case c.Duration < time.Second:
		return fmt.Errorf("%w: a window of %v (want at least 1s)", ErrConfig, c.Duration)
	case c.Sample < 100*time.Millisecond || c.Sample > c.Duration:
		return fmt.Errorf("%w: a sampling interval of %v (want 100ms to the window, %v)", ErrConfig, c.Sample, c.Duration)
	case c.Keepalive < time.Second || c.Keepalive%time.Second != 0 || c.Keepalive > 65535*time.Second:
		return fmt.Errorf("%w: a keepalive of %v (want whole seconds, 1s to 65535s)", ErrConfig, c.Keepalive)
	case c.WarmupTimeout < 0:
		return fmt.Errorf("%w: a warm-up timeout of %v", ErrConfig, c.WarmupTimeout)
	case len(c.Sources) == 0:
		return fmt.Errorf("%w: no key source", ErrConfig)
	}
	for _, s := range c.Sources {
		n := 0
		for _, set := range []bool{s.KeyFile != "", s.PKCS11 != nil, s.TPM != nil} {
			if set {
				n++
			}
		}
		if n != 1 || s.Kind == "" || (s.TPMB != nil && s.TPM == nil) {
			return fmt.Errorf("%w: source %q: want a kind and exactly one of key file, PKCS#11, TPM", ErrConfig, s.Kind)
		}
	}
	for _, m := range c.Modes {
		if _, err := wg.ParseMode(m.String()); err != nil {
			return fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	return nil
}

// Intervals is the number of sampling intervals of a window of d sampled
// every sample: d/sample rounded, at least 1. The window is cut into that
// many equal intervals.
func Intervals(d, sample time.Duration) int {
	if sample <= 0 {
		return 1
	}
	return max(1, int((d+sample/2)/sample))
}

// Table writes r as a terminal table: per combination, the handshakes in
// the window, n, and per role the rate per hour over the whole window
// with the median [min–max] of the interval rates, and what the rotator
// adds to a host (SoakCombo.Added).
func Table(w io.Writer, r *bench.SoakResult) error {
	fmt.Fprintf(w, "per hour: over the window (median [min–max] of the intervals); window %s per combination, sampled every %s, keepalive %s; n = processes × intervals\n",
		secs(r.Seconds), secs(r.SampleSeconds), secs(r.KeepaliveSeconds))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMBINATION\tHANDSHAKES\tN\tDAEMON CPU s/h\tDAEMON WAKEUPS/h\tDAEMON RSS\tWG BESIDE IT CPU s/h\tWAKEUPS/h\tIDLE WG CPU s/h\tWAKEUPS/h\tADDED CPU s/h\tWAKEUPS/h")
	for _, c := range r.Combos {
		cells := []string{c.Mode + " " + c.Source, fmt.Sprint(c.Handshakes)}
		if d, ok := c.Summarize(bench.SoakDaemon); ok {
			cells = append(cells, fmt.Sprintf("%d×%d", d.Processes, d.CPU.N/d.Processes), d.CPU.String(), d.Wakeups.String(), fmt.Sprintf("%.1f MB", d.RSSBytes/1e6))
		} else {
			cells = append(cells, "–", "–", "–", "–")
		}
		for _, role := range []string{bench.SoakDevice, bench.SoakIdle} {
			if s, ok := c.Summarize(role); ok {
				cells = append(cells, s.CPU.String(), s.Wakeups.String())
			} else {
				cells = append(cells, "–", "–")
			}
		}
		if cpu, wake, ok := c.Added(); ok {
			cells = append(cells, bench.SoakNum(cpu), bench.SoakNum(wake))
		} else {
			cells = append(cells, "–", "–")
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}
