// Package bench is kexlab's measurement harness: it runs every registered
// PAKE (package pake) through the same loop, timing each party's work, and
// records every sample together with the machine it ran on.
//
// [Compare] is the runner behind `kexlab compare`. After a warm-up it sizes
// the number of samples of each scheme from a calibration so that the whole
// run fits a time budget (never fewer than a floor), then takes the samples
// interleaved across schemes in a seeded random order, so that drift of the
// machine (frequency, load, temperature) spreads over all schemes instead of
// biasing whichever ran last.
//
// A sample is one exchange: both parties created and run to the end with
// pake.Run, every Party.Next call timed separately. For augmented schemes
// the registration is a separate sample (Op "register") taken just before
// the exchange that uses its record. Each sample carries:
//
//   - wall time (time.Now, monotonic clock);
//   - CPU time of the measuring thread (CLOCK_THREAD_CPUTIME_ID, with the
//     goroutine locked to its OS thread; see package meter). Work the Go
//     runtime does on other threads, garbage collection in particular, is
//     not in it; on a loaded machine wall time exceeds it by the time the
//     thread waited for a core;
//   - heap allocations and bytes allocated (runtime.MemStats deltas of
//     Mallocs and TotalAlloc, read outside the timed window). No collection
//     is forced between samples: garbage collection work falls in whichever
//     samples are running when it happens, so allocation-heavy schemes
//     (scrypt) carry their share of it;
//   - bytes on the wire, measured on the transcript (the Info sizes are
//     checked against it once per scheme);
//   - energy from RAPL where a meter is readable, otherwise nothing, with the
//     reason recorded in [Results].Energy.
//
// Every iteration of a scheme with a primitive limit (pake.Floorer) also
// times the limit: after the exchange in one iteration, before it in the
// next, so that the paired ratio exchange/limit carries no order effect.
// Independent implementations ([Config].Peers: package bench/peer runs
// their drivers) are sampled in the same seeded order as the schemes.
//
// The results are plain data ([Results]) that package bench/export writes as
// JSON, CSV and Go benchfmt text and package report turns into HTML.
package bench

import (
	"fmt"
	"strings"
	"time"
)

// Format is the value of [Results].Format written by this version.
const Format = "kexlab-results/1"

// Ops of a [Sample].
const (
	OpFull     = "full"     // one complete exchange: both parties created and run
	OpRegister = "register" // Scheme.Register of an augmented scheme
	// OpOnline is one complete exchange between parties made from
	// credentials prepared beforehand (pake.Preparer): the password
	// stretching (scrypt, PBKDF2, …) is done once, outside the sample, as
	// a client that keeps its derived secret would. Only schemes that
	// implement pake.Preparer have it; OpFull minus OpOnline is the cost of
	// the stretching.
	OpOnline = "online"
	// OpFloor is the scheme's primitive limit (pake.Floorer): the
	// operations any implementation of the scheme has to perform in one
	// complete exchange (group operations, exponentiations, KEM calls and
	// the password processing of OpFull), timed in the same run, in the same
	// interleaved order, right after the exchange it bounds. OpFull/OpFloor
	// is the cost of everything else. Its Steps split it into "online" and
	// "password".
	OpFloor = "floor"
	// OpFloorOnline is the part of OpFloor an exchange between prepared
	// parties pays, the bound of OpOnline. It is recorded only for schemes
	// that have OpOnline and whose floor has a password part; otherwise
	// OpFloor bounds both.
	OpFloorOnline = "floor-online"
)

// FloorOf returns the op whose samples bound op's samples from below (the
// primitive limit), or "" when there is none.
func FloorOf(op string) string {
	switch op {
	case OpFull:
		return OpFloor
	case OpOnline:
		return OpFloorOnline
	}
	return ""
}

// Results is one measurement run on one machine.
type Results struct {
	Format string `json:"format"`
	// Label names the run in merged reports (default: the host name).
	Label string `json:"label"`
	// Source says what produced the samples: "kexlab compare", "jmh",
	// "jetpack".
	Source   string       `json:"source"`
	Machine  Machine      `json:"machine"`
	Settings Settings     `json:"settings"`
	Energy   EnergyStatus `json:"energy"`
	// CPUClock describes what Sample.CPUNs measures ("" when not measured).
	CPUClock string       `json:"cpu_clock,omitempty"`
	Schemes  []SchemeInfo `json:"schemes"`
	Samples  []Sample     `json:"samples"`
	Started  time.Time    `json:"started"`
	Finished time.Time    `json:"finished"`
}

// Settings are the parameters a run was taken with.
type Settings struct {
	N        int    `json:"n"`         // most samples per scheme
	MinN     int    `json:"min_n"`     // floor on samples per scheme
	Warmup   int    `json:"warmup"`    // warm-up exchanges per scheme
	BudgetNs int64  `json:"budget_ns"` // time budget of the whole run
	Seed     uint64 `json:"seed"`      // seed of the sample order
	// Profile is the pake profile the schemes were chosen by ("study",
	// "recommended", "all"; "" when chosen by name).
	Profile string `json:"profile,omitempty"`
}

// EnergyStatus says whether energy was measured and, if not, why.
type EnergyStatus struct {
	Measured bool     `json:"measured"`
	Meter    string   `json:"meter,omitempty"`   // e.g. "RAPL /sys/class/powercap"
	Domains  []string `json:"domains,omitempty"` // e.g. "package-0", "core"
	Reason   string   `json:"reason,omitempty"`  // why not measured
	// Rail, when set, is the one domain (a power rail of an imported
	// Jetpack run, e.g. "cpu.big") whose energy the report shows, instead
	// of the package domains or the total (SelectRail).
	Rail string `json:"rail,omitempty"`
}

// SelectRail makes the report show the energy of one domain of r (a
// Jetpack power rail such as "cpu.big", which the Android study plotted).
// r must have measured it.
func (r *Results) SelectRail(rail string) error {
	if !r.Energy.Measured {
		return fmt.Errorf("bench: %s measured no energy", r.Label)
	}
	for _, d := range r.Energy.Domains {
		if d == rail {
			r.Energy.Rail = rail
			return nil
		}
	}
	return fmt.Errorf("bench: %s has no energy rail %q (it has: %s)", r.Label, rail, strings.Join(r.Energy.Domains, ", "))
}

// EnergyValue is a Values selector for the energy r's report shows: the
// selected rail when there is one, otherwise [Energy].
func (r *Results) EnergyValue(s Sample) (float64, bool) {
	if r.Energy.Rail != "" {
		v, ok := s.EnergyUJ[r.Energy.Rail]
		return v, ok
	}
	return Energy(s)
}

// SchemeInfo describes a measured scheme (or an imported benchmark).
type SchemeInfo struct {
	Name            string        `json:"name"`
	Suite           string        `json:"suite,omitempty"`
	Spec            string        `json:"spec,omitempty"`
	Augmented       bool          `json:"augmented"`
	KeyConfirmation bool          `json:"key_confirmation"`
	Messages        []MessageInfo `json:"messages,omitempty"`
	// Size and StudySize are the totals over Messages.
	Size      int `json:"size"`
	StudySize int `json:"study_size"`
	// WireCheck is "ok" when the transcript's message lengths matched Size,
	// otherwise a description of the mismatch ("" when not checked).
	WireCheck string `json:"wire_check,omitempty"`
	// Planned is the number of samples planned from the calibration; N the
	// number taken (fewer when the run reached its time budget).
	Planned int `json:"planned"`
	N       int `json:"n"`
	// Error is why the scheme could not be measured (its exchange failed).
	Error string `json:"error,omitempty"`
	// CalibrationNs is the estimated cost of one sample (register and
	// exchange, measurement overhead included).
	CalibrationNs int64 `json:"calibration_ns,omitempty"`
	// FloorOps lists the operations of the scheme's primitive limit
	// (OpFloor), e.g. "2 × P-256 ScalarBaseMult"; empty when the scheme
	// does not declare one.
	FloorOps []string `json:"floor_ops,omitempty"`
	// Profiles are the pake profiles the scheme belongs to ("study",
	// "recommended"); empty for imported benchmarks and older files.
	Profiles []string `json:"profiles,omitempty"`
	// Peer is set for a scheme of an independent implementation measured
	// in the same run (kexlab compare -peer).
	Peer *PeerOf `json:"peer,omitempty"`
	// AliasOf is set for an A/A control (see AliasOf).
	AliasOf *AliasOf `json:"alias_of,omitempty"`
}

// AliasOf marks an A/A control: a benchmark of the same implementation as
// Scheme under a second name (kexlab's JCE study: an OID alias a provider
// maps to the same service). Any significant difference between the two is
// the measurement's, not the implementation's.
type AliasOf struct {
	Scheme string `json:"scheme"`
	Why    string `json:"why,omitempty"`
}

// PeerOf relates a peer's scheme to the kexlab scheme it is tested
// against.
type PeerOf struct {
	Scheme  string `json:"scheme"`            // the kexlab scheme ("" when none compares)
	Op      string `json:"op,omitempty"`      // its op: OpFull or OpOnline
	Differs string `json:"differs,omitempty"` // what differs (group, confirmation, KDF)
}

// MessageInfo is one wire message of a scheme, from pake.Info.
type MessageInfo struct {
	Name      string `json:"name"`
	From      string `json:"from"` // "client" or "server"
	Size      int    `json:"size"`
	StudySize int    `json:"study_size"`
	Variable  bool   `json:"variable,omitempty"` // Size is the longest (pake.Message)
	Actual    int    `json:"actual"`             // length seen on the wire
}

// Sample is one measurement.
type Sample struct {
	Scheme string `json:"scheme"`
	Op     string `json:"op"`
	Seq    int    `json:"seq"`  // position in the run's interleaved order
	Iter   int    `json:"iter"` // index among this scheme's samples
	WallNs int64  `json:"wall_ns"`
	CPUNs  int64  `json:"cpu_ns,omitempty"`
	// Allocs and AllocBytes are heap allocations during the sample.
	Allocs     uint64 `json:"allocs"`
	AllocBytes uint64 `json:"alloc_bytes"`
	// WireBytes is the total length of the messages sent.
	WireBytes int `json:"wire_bytes,omitempty"`
	// EnergyUJ is energy per RAPL domain in microjoules, when measured.
	EnergyUJ map[string]float64 `json:"energy_uj,omitempty"`
	Steps    []Step             `json:"steps,omitempty"`
}

// Step is one timed call inside an exchange: creating a party ("new") or
// one Party.Next call, named after the message it produced ("finish" when
// it produced none).
type Step struct {
	Party string `json:"party"` // "client" or "server"
	Name  string `json:"name"`
	Ns    int64  `json:"ns"`
	In    int    `json:"in"`  // bytes consumed
	Out   int    `json:"out"` // bytes produced
}

// Scheme returns the SchemeInfo named name and whether it exists.
func (r *Results) Scheme(name string) (SchemeInfo, bool) {
	for _, s := range r.Schemes {
		if s.Name == name {
			return s, true
		}
	}
	return SchemeInfo{}, false
}

// Values returns the samples of scheme and op as float64 via f, in order.
func (r *Results) Values(scheme, op string, f func(Sample) (float64, bool)) []float64 {
	var out []float64
	for _, s := range r.Samples {
		if s.Scheme != scheme || s.Op != op {
			continue
		}
		if v, ok := f(s); ok {
			out = append(out, v)
		}
	}
	return out
}

// Wall is a Values selector for wall time in nanoseconds.
func Wall(s Sample) (float64, bool) { return float64(s.WallNs), true }

// CPU is a Values selector for CPU time in nanoseconds, when measured.
func CPU(s Sample) (float64, bool) { return float64(s.CPUNs), s.CPUNs > 0 }

// Energy is a Values selector for energy in microjoules, when measured: the
// sum of the RAPL package domains (names starting with "package"), or else
// the domain "total" (what importers record).
func Energy(s Sample) (float64, bool) {
	sum, ok := 0.0, false
	for k, v := range s.EnergyUJ {
		if strings.HasPrefix(k, "package") {
			sum += v
			ok = true
		}
	}
	if !ok {
		sum, ok = s.EnergyUJ["total"]
	}
	return sum, ok
}
