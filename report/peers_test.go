package report

import (
	"math"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

func TestPeerTests(t *testing.T) {
	r := &bench.Results{Format: bench.Format, Label: "p", Source: "kexlab compare", CPUClock: "thread",
		Schemes: []bench.SchemeInfo{{Name: "srp"}, {Name: "spake2-hkdf"},
			{Name: "peer srp", Peer: &bench.PeerOf{Scheme: "srp", Op: bench.OpFull, Differs: "big numbers"}},
			{Name: "peer spake2", Peer: &bench.PeerOf{Scheme: "spake2-hkdf", Op: bench.OpFull}},
			{Name: "peer opaque no ksf", Peer: &bench.PeerOf{}}, // no kexlab row
			{Name: "peer missing", Peer: &bench.PeerOf{Scheme: "opaque", Op: bench.OpFull}}}}
	add := func(scheme string, base float64, cpu bool) {
		for i := 0; i < 20; i++ {
			v := base * (1 + float64(i)/100)
			s := bench.Sample{Scheme: scheme, Op: bench.OpFull, Iter: i, WallNs: int64(1.1 * v)}
			if cpu {
				s.CPUNs = int64(v)
			}
			r.Samples = append(r.Samples, s)
		}
	}
	add("srp", 2e6, true)
	add("peer srp", 4e6, true) // kexlab twice as fast
	add("spake2-hkdf", 1e6, true)
	add("peer spake2", 1e6, false) // no CPU clock in the driver: wall time
	ts := PeerTests(r)
	if len(ts) != 3 {
		t.Fatalf("%d peer tests, want 3 (the one without a kexlab row left out): %+v", len(ts), ts)
	}
	if a := ts[0]; a.Kexlab != "srp full" || a.Metric != "CPU time" || math.Abs(a.Ratio-0.5) > 0.01 || a.Verdict != "kexlab faster" || a.Differs != "big numbers" {
		t.Errorf("srp: %+v", a)
	}
	if b := ts[1]; b.Metric != "wall time" || math.Abs(b.Ratio-1) > 0.01 || b.Verdict != "no significant difference" {
		t.Errorf("spake2: %+v", b)
	}
	if c := ts[2]; !strings.HasPrefix(c.Verdict, "not measurable: 0 samples of opaque full") {
		t.Errorf("missing kexlab row: %+v", c)
	}
	html := render(t, r)
	for _, want := range []string{`class="peers"`, "kexlab faster", "big numbers", "Independent implementations measured in the same run"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
