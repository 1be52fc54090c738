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
