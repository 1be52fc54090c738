package export

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench"
)

func goodSoak() *bench.SoakResult {
	proc := func(role, side string, cpu, wake float64) bench.SoakProcess {
		p := bench.SoakProcess{Role: role, Side: side}
		for i := range 4 {
			f := float64(i)
			p.Samples = append(p.Samples, bench.SoakSample{T: 60 * f, CPUSeconds: 1 + cpu*f, TickCPUSeconds: 1 + cpu*f,
				Voluntary: 100 + wake*f, Involuntary: 10 + f, RSSBytes: 8e6})
		}
		return p
	}
	return &bench.SoakResult{Format: bench.SoakFormat, Label: "lab", Machine: bench.Machine{Cores: 2, Time: "2026-01-01T00:00:00Z"},
		Seconds: 180, SampleSeconds: 60, KeepaliveSeconds: 25, Order: "sequential",
		Combos: []bench.SoakCombo{{Mode: "fresh", Source: "file", SourceName: "/tmp/k", Started: time.Unix(0, 0).UTC(),
			WarmupSeconds: 1.5, Handshakes: 1, WarmupHandshakes: 1,
			Processes: []bench.SoakProcess{proc("daemon", "a", 0.01, 120), proc("daemon", "b", 0.02, 60),
				proc("device", "a", 0.005, 70), proc("idle", "a", 0.001, 10)}}}}
}

func marshalSoak(t testing.TB, r *bench.SoakResult) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadSoak: a soak result round-trips and summarises; other formats
// are not soak results; broken ones are refused with ErrSoak and a reason.
func TestReadSoak(t *testing.T) {
	r, err := ReadSoak(marshalSoak(t, goodSoak()))
	if err != nil || r == nil || len(r.Combos) != 1 || len(r.Combos[0].Processes) != 4 {
		t.Fatalf("%v %+v", err, r)
	}
	s, ok := r.Combos[0].Summarize(bench.SoakDaemon)
	// Daemon a: 0.01 CPU s per minute = 0.6 s/h; b: 1.2 s/h; pooled over
	// 2 × 3 intervals.
	if !ok || s.Processes != 2 || s.CPU.N != 6 || math.Abs(s.CPU.Median-0.9) > 1e-9 || math.Abs(s.CPU.Min-0.6) > 1e-9 ||
		math.Abs(s.CPU.Max-1.2) > 1e-9 || math.Abs(s.CPU.Window-0.9) > 1e-9 || math.Abs(s.Wakeups.Median-(90+1)*60) > 1e-6 || s.RSSBytes != 8e6 {
		t.Errorf("daemon summary %+v", s)
	}
	if _, ok := r.Combos[0].Summarize("nothing"); ok {
		t.Error("a summary of a role without processes")
	}
	for _, other := range []string{`{"format":"kexlab-results/1"}`, `{"format":"kexlab-load/1"}`, `[]`, `not json`, ``} {
		if r, err := ReadSoak([]byte(other)); r != nil || err != nil {
			t.Errorf("%q: %v %v", other, r, err)
		}
	}
	for want, mut := range map[string]func(*bench.SoakResult){
		"window":           func(r *bench.SoakResult) { r.Seconds = 0 },
		"sample interval":  func(r *bench.SoakResult) { r.SampleSeconds = -1 },
		"0 combinations":   func(r *bench.SoakResult) { r.Combos = nil },
		"mode":             func(r *bench.SoakResult) { r.Combos[0].Mode = "" },
		"warm-up":          func(r *bench.SoakResult) { r.Combos[0].WarmupSeconds = 1e300 },
		"handshakes":       func(r *bench.SoakResult) { r.Combos[0].Handshakes = -1 },
		"0 processes":      func(r *bench.SoakResult) { r.Combos[0].Processes = nil },
		"unknown role":     func(r *bench.SoakResult) { r.Combos[0].Processes[0].Role = "ghost" },
		"repeated side":    func(r *bench.SoakResult) { r.Combos[0].Processes[1].Side = "a" },
		"1 samples":        func(r *bench.SoakResult) { p := &r.Combos[0].Processes[0]; p.Samples = p.Samples[:1] },
		"out-of-range":     func(r *bench.SoakResult) { r.Combos[0].Processes[0].Samples[1].Voluntary = 1e300 },
		"after the one":    func(r *bench.SoakResult) { r.Combos[0].Processes[0].Samples[1].T = 1e-9 },
		"counter decrease": func(r *bench.SoakResult) { r.Combos[0].Processes[2].Samples[3].CPUSeconds = 0.5 },
		"label":            func(r *bench.SoakResult) { r.Label = strings.Repeat("x", 1000) },
	} {
		r := goodSoak()
		mut(r)
		_, err := ReadSoak(marshalSoak(t, r))
		if !errors.Is(err, ErrSoak) || !strings.Contains(err.Error(), strings.TrimPrefix(want, "counter ")) {
			t.Errorf("%s: %v", want, err)
		}
	}
	good := string(marshalSoak(t, goodSoak()))
	for _, bad := range []string{
		strings.Replace(good, `"order"`, `"extra":1,"order"`, 1),
		good + " {}",
		strings.Replace(good, `"seconds":180`, `"seconds":"180"`, 1),
		strings.Replace(good, `"t":60`, `"t":1e999`, 1),
	} {
		if _, err := ReadSoak([]byte(bad)); !errors.Is(err, ErrSoak) {
			t.Errorf("accepted or untyped: %v", err)
		}
	}
	// Not JSON at all: not a soak result (the report tries other formats).
	if r, err := ReadSoak([]byte(strings.Replace(good, `"t":60`, `"t":NaN`, 1))); r != nil || err != nil {
		t.Errorf("NaN: %v %v", r, err)
	}
}

// FuzzReadSoak: no input panics; an accepted result encodes back to one
// that is accepted again, and its summaries are finite.
func FuzzReadSoak(f *testing.F) {
	f.Add(marshalSoak(f, goodSoak()))
	f.Add([]byte(`{"format":"kexlab-wg-soak/1","seconds":1,"sample_seconds":1,"combos":[{"mode":"m","source":"s","processes":[{"role":"idle","side":"a","samples":[{"t":0},{"t":0.001,"voluntary":1e15}]}]}]}`))
	f.Add([]byte(`{"format":"kexlab-wg-soak/1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ReadSoak(b)
		if err != nil {
			if !errors.Is(err, ErrSoak) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if r == nil {
			return
		}
		again, err := ReadSoak(marshalSoak(t, r))
		if err != nil || again == nil {
			t.Fatalf("accepted result does not round-trip: %v", err)
		}
		for _, c := range r.Combos {
			for _, role := range []string{bench.SoakDaemon, bench.SoakDevice, bench.SoakIdle} {
				s, ok := c.Summarize(role)
				if !ok {
					continue
				}
				for _, v := range []float64{s.CPU.Median, s.CPU.Min, s.CPU.Max, s.CPU.Window, s.Wakeups.Median, s.Wakeups.Window, s.RSSBytes} {
					if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
						t.Fatalf("summary of %s: %+v", role, s)
					}
				}
			}
		}
	})
}
