package report

import (
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

// TestSoakReport: a soak result alone renders its table: per combination
// the window rate with median and range, n, RSS, and the cost added per
// host (daemon + its device − the idle device).
func TestSoakReport(t *testing.T) {
	proc := func(role, side string, cpuPerMin, wakePerMin float64) bench.SoakProcess {
		p := bench.SoakProcess{Role: role, Side: side}
		for i := range 3 {
			f := float64(i)
			p.Samples = append(p.Samples, bench.SoakSample{T: 60 * f, CPUSeconds: cpuPerMin * f, Voluntary: wakePerMin * f, RSSBytes: 12e6})
		}
		return p
	}
	r := &bench.SoakResult{Format: bench.SoakFormat, Label: "bench-box", Machine: bench.Machine{CPUModel: "Test CPU", Cores: 2},
		Seconds: 120, SampleSeconds: 60, KeepaliveSeconds: 25, Order: "sequential",
		Combos: []bench.SoakCombo{{Mode: "hardware-ratchet", Source: "file", Handshakes: 1, WarmupHandshakes: 1, WarmupSeconds: 2,
			Processes: []bench.SoakProcess{proc("daemon", "a", 0.02, 100), proc("daemon", "b", 0.02, 100),
				proc("device", "a", 0.01, 50), proc("device", "b", 0.01, 50), proc("idle", "a", 0.005, 20), proc("idle", "b", 0.005, 20)}}}}
	var b strings.Builder
	if err := WriteInputs(&b, Inputs{Soaks: []*bench.SoakResult{r}}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	// Daemon: 0.02 s per minute = 1.2 s/h, 100 wakeups per minute = 6k/h;
	// added: 1.2 + 0.6 − 0.3 = 1.5 s/h and 6k + 3k − 1.2k = 7.8k/h.
	for _, want := range []string{"cost over time", "bench-box", "Test CPU", "hardware-ratchet", "1 (warm-up 1)", "2 × 2",
		"1.2 (1.2 [1.2–1.2])", "6k (6k [6k–6k])", "12.0 MB", "<td>1.5</td>", "<td>7.8k</td>", "2 min per combination"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "RAPL") {
		t.Error("a soak-only report speaks of runs' energy")
	}
}
