package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

// TestLoadSection: load results alone make a report with their table and
// the latency–throughput figure; with runs, both appear.
func TestLoadSection(t *testing.T) {
	loads := []*bench.LoadResult{
		{Format: bench.LoadFormat, Scheme: "opaque", Loop: "closed", Concurrency: 4, OK: 900, Throughput: 300,
			Latency: bench.LoadLatency{N: 900, Min: 1, P50: 2, P90: 4, P99: 8, P999: 9, Max: 10}},
		{Format: bench.LoadFormat, Scheme: "opaque", Loop: "open", Concurrency: 16, Rate: 250, OK: 750, Throughput: 250,
			Latency: bench.LoadLatency{N: 750, Min: 1, P50: 3, P90: 5, P99: 12.5, P999: 20, Max: 30}, Errors: map[string]int{"unavailable": 3}},
	}
	var b bytes.Buffer
	if err := WriteAll(&b, nil, loads); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"Service load (kexlab load)", ">250.0/s<", ">12.5 ms<", "unavailable 3", "p99 latency against throughput"} {
		if !strings.Contains(s, want) {
			t.Errorf("report has no %q", want)
		}
	}
	b.Reset()
	if err := WriteAll(&b, []*bench.Results{fakeRun("run", false)}, loads); err != nil || !strings.Contains(b.String(), "Service load") || !strings.Contains(b.String(), "Run: run") {
		t.Errorf("with a run: %v", err)
	}
	if err := WriteAll(&b, nil, nil); err == nil {
		t.Error("an empty report was written")
	}
}

// A service study alone makes a report: its tables, the seed's peaks
// beside ours, the fitted dispatcher model and the four figures, and the
// targets' verdicts from the numbers.
func TestServiceStudyReport(t *testing.T) {
	l := bench.LoadResult{Format: bench.LoadFormat, Scheme: "srp-2048", Loop: "closed", Concurrency: 4, Seconds: 2, OK: 1600, Throughput: 800,
		Latency: bench.LoadLatency{N: 1600, Min: 1, Mean: 5, P50: 4, P90: 8, P99: 12, P999: 15, Max: 16}}
	open := l
	open.Loop, open.Rate = "open", 560
	st := &bench.ServiceStudy{Format: bench.ServiceStudyFormat, PointSeconds: 2, Accounts: 128,
		Dispatch: []bench.DispatchFit{{Scheme: "srp-2048", Backend: "cpu (1 worker)", Points: []bench.BatchDelay{{Size: 1, Ms: 0.62}, {Size: 32, Ms: 19.7}}, KMs: 0.616, R2: 0.9999, Reps: 5, Threshold: "none: no accelerator"}},
		Throughput: []bench.ThroughputPoint{{Scheme: "srp-2048", MaxBatch: 64, Conns: 1, Result: l}, {Scheme: "srp-2048", MaxBatch: 64, Conns: 4, Result: l},
			{Scheme: "bcrypt-10", MaxBatch: 64, Conns: 1, Result: l}},
		Latency: []bench.LatencyPoint{{Scheme: "srp-2048", Fraction: 0.5, Result: open}, {Scheme: "srp-2048", Fraction: 0.7, Result: open}},
		Schemes: []bench.SchemeSummary{
			{Scheme: "srp-2048", Kind: "pake", Peak: 800, PeakConns: 4, PeakBatch: 64, PeakPerCore: 750, PerCoreRuns: []float64{700, 750, 800},
				LimitMs: 0.65, LimitPerCore: 1538, PctLimit: 48.8, UnloadedP50: 2.4, P99At70: 22, Ratio: 9.2},
			{Scheme: "bcrypt-10", Kind: "hash", Peak: 33, PeakConns: 8, PeakBatch: 64, PeakPerCore: 17, LimitMs: 58, LimitPerCore: 17.2, PctLimit: 98.8, UnloadedP50: 59, P99At70: 70, Ratio: 1.19},
		}}
	var b strings.Builder
	if err := WriteAll(&b, nil, nil, st); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{"Service study", "30000/s", "750.0/s [700.0, 800.0], n = 3", "49 %", "missed", "99 %", "met",
		"Throughput against connections", "p99 latency against offered load", "Delay of one dispatcher", "password-hash (orange)",
		"none: no accelerator", "Every load point"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "RAPL") || strings.Contains(html, "0 run(s)") {
		t.Error("a report without runs speaks of runs' energy")
	}
}
