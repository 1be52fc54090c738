// Package wgbench measures what the WireGuard PSK rotator of package wg
// costs: `kexlab wg bench` of issue 7, "latency of one hardware operation
// per key source and of one PSK update per mode, n/median/spread, as JSON
// for kexlab report".
//
// The thesis this rotator rebuilds ("WireGuardKeyStore vs. WireGuardHSM",
// Bochum 2022) measured 21–400 ms per hardware operation on phones (a
// SmartCard-HSM, the Android KeyStore/TEE); the sources on a Linux machine
// (a key file, SoftHSM2 or a real PKCS#11 token, a TPM or its simulator)
// range from about a microsecond to tens of milliseconds, so the rows
// below say where a rotation's time goes on a given machine.
//
// [Run] measures, for the in-memory file source it always adds (a random
// key, named "file") and every source of [Config].Sources, these rows (the
// names of the [bench.SchemeInfo]s, Suite "wg"):
//
//   - "derive <source>": one keysource.Source.Derive of a 109-byte input
//     (the hardware ratchet's input, wg.HardwareRatchetInput): the
//     hardware operation alone.
//   - "update timestamp <source>": wg.TimestampPSK of the current hour,
//     then the PSK applied to an in-process wireguard-go device with an
//     update-only peer set (wgdev.GoDevice.SetPSK: public_key=…,
//     update_only=true, preshared_key=… through IpcSetOperation), as a
//     rotator does after a handshake. One Derive and one IpcSet.
//   - "update hash-ratchet <source>": wg.HashStep (one HMAC-SHA256 in
//     software, no hardware) and the IpcSet.
//   - "update hardware-ratchet <source>": wg.Step (one Derive) and the
//     IpcSet.
//   - "update fresh <source>": one whole fresh-mode step, the work of both
//     rotators of the tunnel (wg/fresh.go): the initiator's wg.NewOffer
//     (ML-KEM-768 key generation), the responder's wg.Answer
//     (encapsulation), the initiator's Offer.Finish (decapsulation), then
//     wg.Step (one Derive) and the IpcSet on each side, each on its own
//     wireguard-go device. It is two rotators' work, unlike the other
//     update rows, which are one rotator's; the sample's Steps give each
//     side's part. The transfer of the two messages through the tunnel is
//     not included.
//
// Every update sample records Steps ("psk": computing the next PSK,
// "set": the IpcSet), so the report shows the split between the key
// schedule and the device.
//
// Every row is measured Config.N times after one untimed warm-up, the
// samples of all rows interleaved in a seeded random order (as bench.Compare
// does), so that drift of the machine spreads over every row instead of
// biasing whichever ran last. A sample records wall time (monotonic clock)
// and, where the clock is readable, CPU time of the measuring thread
// (package bench/meter; the goroutine stays locked to its OS thread, so
// PKCS#11 calls made through cgo count, while a TPM simulator's or a
// token's own work in another process or device does not; the two
// readings of the clock, system calls, add about half a microsecond, so on
// the fastest rows CPU time can exceed wall time), and heap allocations of
// the process (wireguard-go's own goroutines included). Energy is not measured: RAPL counters
// advance about once a millisecond, coarser than most of these
// operations, and a token's or TPM's power is drawn outside the CPU
// package that RAPL meters.
//
// The result is a [bench.Results] (Source "kexlab wg bench", every sample
// kept, Op bench.OpFull) that package bench/export writes and `kexlab
// report` renders.
package wgbench

import (
	"errors"
	"fmt"
	"time"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
)

// Source is the value of bench.Results.Source of a run of this package.
const Source = "kexlab wg bench"

// Suite is the bench.SchemeInfo.Suite of every row.
const Suite = "wg"

// FileSourceName is the name of the file source Run always measures.
const FileSourceName = "file"

// Modes are the update rows Run measures when Config.Modes is nil.
var Modes = []wg.Mode{wg.Timestamp, wg.HashRatchet, wg.HardwareRatchet, wg.Fresh}

// Config selects what Run measures.
type Config struct {
	// Sources are measured after the in-memory file source that Run always
	// measures first. Their names must differ from each other and from
	// FileSourceName. Run does not close them.
	Sources []keysource.Source
	// N is the number of samples of every row, at least 2.
	N int
	// Modes are the update rows per source; nil means Modes.
	Modes []wg.Mode
	// Seed fixes the interleaved order of the samples.
	Seed uint64
	// Label names the run in reports; "" means the host name.
	Label string
}

// ErrConfig: the configuration is invalid (N below 2, duplicate source
// names, an unknown mode).
var ErrConfig = errors.New("wgbench: invalid configuration")

// DeriveName is the row name of one Derive on source.
func DeriveName(source string) string { return "derive " + source }

// UpdateName is the row name of one PSK update in mode on source.
func UpdateName(mode wg.Mode, source string) string { return "update " + mode.String() + " " + source }

// Run measures every row of cfg and returns all samples. It fails, without
// panicking, if a source or a device fails (a Derive error, a panic in a
// source); the error names the row where it can.
func Run(cfg Config) (res *bench.Results, err error) {
	at := "setup" // what runs, for the error of a panic
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("wgbench: %s panicked: %v", at, p)
		}
	}()
	if cfg.N < 2 {
		return nil, fmt.Errorf("%w: N = %d, need at least 2", ErrConfig, cfg.N)
	}
	modes := cfg.Modes
	if modes == nil {
		modes = Modes
	}
	file, err := newFileSource()
	if err != nil {
		return nil, err
	}
	defer file.Close()
	sources := append([]keysource.Source{file}, cfg.Sources...)
	seen := map[string]bool{}
	for _, s := range sources {
		if s == nil {
			return nil, fmt.Errorf("%w: nil source", ErrConfig)
		}
		if seen[s.Name()] {
			return nil, fmt.Errorf("%w: two sources named %q", ErrConfig, s.Name())
		}
		seen[s.Name()] = true
	}

	res = &bench.Results{
		Format:   bench.Format,
		Label:    cfg.Label,
		Source:   Source,
		Machine:  bench.DescribeMachine(),
		Settings: bench.Settings{N: cfg.N, MinN: cfg.N, Warmup: 1, Seed: cfg.Seed},
		Energy:   bench.EnergyStatus{Reason: energyReason},
		Started:  time.Now().UTC(),
	}
	if res.Label == "" {
		res.Label = res.Machine.Host
	}
	t, err := newTunnel()
	if err != nil {
		return nil, err
	}
	defer t.close()
	var rows []row
	for _, src := range sources {
		rows = append(rows, deriveRow(src, t.pair))
		for _, m := range modes {
			at = UpdateName(m, src.Name())
			r, err := updateRow(src, m, t)
			if err != nil {
				return nil, fmt.Errorf("wgbench: %s: %w", UpdateName(m, src.Name()), err)
			}
			rows = append(rows, r)
		}
	}
	at = "sampling"
	for _, r := range rows {
		res.Schemes = append(res.Schemes, bench.SchemeInfo{Name: r.name, Suite: Suite, Planned: cfg.N, N: cfg.N})
	}
	if err := sample(res, rows, cfg.N, cfg.Seed); err != nil {
		return nil, err
	}
	res.Finished = time.Now().UTC()
	return res, nil
}

const energyReason = "kexlab wg bench measures time only: RAPL counters advance about once a millisecond, " +
	"coarser than most of these operations, and a token's or TPM's power is drawn outside the CPU package"

// Row is the summary of one row of a run, for a terminal table.
type Row struct {
	Name string
	Wall stats.Summary  // ns
	CPU  *stats.Summary // ns; nil when not measured
}

// Summarize summarises the wall (and CPU) time of every row of r, in r's
// order.
func Summarize(r *bench.Results) ([]Row, error) {
	var out []Row
	for _, si := range r.Schemes {
		w, err := stats.Summarize(r.Values(si.Name, bench.OpFull, bench.Wall))
		if err != nil {
			return nil, fmt.Errorf("wgbench: %s: %w", si.Name, err)
		}
		row := Row{Name: si.Name, Wall: w}
		if c, err := stats.Summarize(r.Values(si.Name, bench.OpFull, bench.CPU)); err == nil && c.N == w.N {
			row.CPU = &c
		}
		out = append(out, row)
	}
	return out, nil
}
