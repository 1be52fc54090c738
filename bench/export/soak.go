package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/kexlab/kexlab/bench"
)

// ErrSoak: a `kexlab wg bench -soak` result is malformed. Every error of
// ReadSoak wraps it.
var ErrSoak = errors.New("wg soak result: malformed")

// Bounds of a soak result: far beyond any real run (a soak of weeks, a
// process of a thousand CPU-years), so that every rate computed from one
// is finite.
const (
	maxSoakSeconds  = 1e7  // a window, a sample time (about 4 months)
	maxSoakCPU      = 1e12 // CPU seconds of a process
	maxSoakCount    = 1e15 // context switches, handshakes
	maxSoakRSS      = 1e14 // bytes
	minSoakInterval = 1e-3 // seconds between two samples
	maxSoakCombos   = 1000
	maxSoakProcs    = 64
	maxSoakName     = 256 // bytes of a mode, source, role, side or label
)

// ReadSoak decodes a `kexlab wg bench -soak -results` file. It returns nil,
// nil when b is not one (not JSON, or no "format": "kexlab-wg-soak/1"), so that
// a caller can try other formats, and an error wrapping ErrSoak for one
// that does not hold together: unknown fields, a missing or unknown name,
// a number that is negative, not finite or beyond the bounds above,
// samples not in time order or less than 1 ms apart, cumulative counters
// that decrease, fewer than two samples of a process, a role measured
// twice on one side.
func ReadSoak(b []byte) (*bench.SoakResult, error) {
	var probe struct {
		Format string `json:"format"`
	}
	// The first JSON value decides (data after it is an error below).
	if json.NewDecoder(bytes.NewReader(b)).Decode(&probe) != nil || probe.Format != bench.SoakFormat {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r bench.SoakResult
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSoak, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrSoak)
	}
	if err := checkSoak(&r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSoak, err)
	}
	return &r, nil
}

// within reports whether every v is finite and in [0, limit].
func within(limit float64, vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || v < 0 || v > limit {
			return false
		}
	}
	return true
}

func checkSoak(r *bench.SoakResult) error {
	switch {
	case len(r.Label) > maxSoakName || len(r.Order) > maxSoakName:
		return errors.New("label or order too long")
	case !within(maxSoakSeconds, r.Seconds, r.SampleSeconds, r.KeepaliveSeconds) || r.Seconds == 0 || r.SampleSeconds == 0:
		return fmt.Errorf("window %v s, sample interval %v s, keepalive %v s", r.Seconds, r.SampleSeconds, r.KeepaliveSeconds)
	case len(r.Combos) == 0 || len(r.Combos) > maxSoakCombos:
		return fmt.Errorf("%d combinations, want 1 to %d", len(r.Combos), maxSoakCombos)
	}
	for i := range r.Combos {
		c := &r.Combos[i]
		if err := checkSoakCombo(c); err != nil {
			return fmt.Errorf("combination %d (%.40q %.40q): %v", i, c.Mode, c.Source, err)
		}
	}
	return nil
}

func checkSoakCombo(c *bench.SoakCombo) error {
	switch {
	case !name(c.Mode) || !name(c.Source) || len(c.SourceName) > maxSoakName:
		return errors.New("a missing or overlong mode or source")
	case !within(maxSoakSeconds, c.WarmupSeconds):
		return fmt.Errorf("warm-up of %v s", c.WarmupSeconds)
	case c.Handshakes < 0 || c.WarmupHandshakes < 0 || c.Handshakes > maxSoakCount || c.WarmupHandshakes > maxSoakCount:
		return fmt.Errorf("%d handshakes, %d in the warm-up", c.Handshakes, c.WarmupHandshakes)
	case len(c.Processes) == 0 || len(c.Processes) > maxSoakProcs:
		return fmt.Errorf("%d processes, want 1 to %d", len(c.Processes), maxSoakProcs)
	}
	seen := map[[2]string]bool{}
	for _, p := range c.Processes {
		switch p.Role {
		case bench.SoakDaemon, bench.SoakDevice, bench.SoakIdle:
		default:
			return fmt.Errorf("unknown role %.40q", p.Role)
		}
		if !name(p.Side) || seen[[2]string{p.Role, p.Side}] {
			return fmt.Errorf("%s: a missing, overlong or repeated side %.40q", p.Role, p.Side)
		}
		seen[[2]string{p.Role, p.Side}] = true
		if err := checkSoakSamples(p.Samples); err != nil {
			return fmt.Errorf("%s %.40s: %v", p.Role, p.Side, err)
		}
	}
	return nil
}

func name(s string) bool { return s != "" && len(s) <= maxSoakName }

func checkSoakSamples(ss []bench.SoakSample) error {
	if len(ss) < 2 {
		return fmt.Errorf("%d samples, want at least 2", len(ss))
	}
	for i, s := range ss {
		if !within(maxSoakSeconds, s.T) || !within(maxSoakCPU, s.CPUSeconds, s.TickCPUSeconds) ||
			!within(maxSoakCount, s.Voluntary, s.Involuntary) || !within(maxSoakRSS, s.RSSBytes) {
			return fmt.Errorf("sample %d: a negative, non-finite or out-of-range number", i)
		}
		if i == 0 {
			continue
		}
		p := ss[i-1]
		if s.T-p.T < minSoakInterval {
			return fmt.Errorf("sample %d: %v s after the one before, want at least %v s", i, s.T-p.T, minSoakInterval)
		}
		if s.CPUSeconds < p.CPUSeconds || s.TickCPUSeconds < p.TickCPUSeconds || s.Voluntary < p.Voluntary || s.Involuntary < p.Involuntary {
			return fmt.Errorf("sample %d: a cumulative counter decreased", i)
		}
	}
	return nil
}

// WriteSoak writes r as indented JSON (what ReadSoak reads).
func WriteSoak(w io.Writer, r *bench.SoakResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(r)
}
