package report

import (
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

// wifiRun is a run in the shape kexlab wifi -results writes: per suite
// "<key> KDF", "<key> MIC", "<key> MIC-talk", "<key> handshake".
func wifiRun(source string) *bench.Results {
	r := &bench.Results{Format: bench.Format, Source: source}
	for si, suite := range []string{"sae", "ascon", "spix"} {
		for oi, op := range []string{"KDF", "MIC", "MIC-talk", "handshake"} {
			name := suite + " " + op
			r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: name, Suite: suite})
			for i := range 8 {
				r.Samples = append(r.Samples, bench.Sample{Scheme: name, Op: bench.OpFull, Iter: i,
					WallNs: int64(1000*(oi+1)*(si+1) + i)})
			}
		}
	}
	return r
}

// TestWifiPairsSameOperation: a kexlab wifi run compares KDF with KDF, MIC
// with MIC, MIC-talk with MIC-talk, handshake with handshake, and nothing
// across operations ("sae MIC" vs "ascon handshake" was the bug); other
// runs still compare every pair.
func TestWifiPairsSameOperation(t *testing.T) {
	runs, err := Analyze([]*bench.Results{wifiRun("kexlab wifi"), wifiRun("kexlab compare")})
	if err != nil {
		t.Fatal(err)
	}
	wifi, other := runs[0], runs[1]
	// 4 operations × C(3, 2) suite pairs.
	if len(wifi.Pairs) != 4*3 {
		t.Errorf("%d wifi pairs, want 12", len(wifi.Pairs))
	}
	seen := map[string]int{}
	for _, p := range wifi.Pairs {
		oa, ob := wifiOperation(p.A), wifiOperation(p.B)
		if oa != ob {
			t.Errorf("pair across operations: %q vs %q", p.A, p.B)
		}
		seen[oa]++
	}
	for _, op := range []string{"KDF", "MIC", "MIC-talk", "handshake"} {
		if seen[op] != 3 {
			t.Errorf("%d %s pairs, want 3", seen[op], op)
		}
	}
	if _, ok := pairOf(wifi.Pairs, "sae MIC", "ascon handshake"); ok {
		t.Error(`"sae MIC" vs "ascon handshake" compared`)
	}
	if _, ok := pairOf(wifi.Pairs, "sae MIC-talk", "ascon MIC"); ok {
		t.Error("talk-shape MIC compared with whole-frame MIC")
	}
	if _, ok := pairOf(wifi.Pairs, "sae MIC-talk", "spix MIC-talk"); !ok {
		t.Error("MIC-talk pair missing")
	}
	if n := len(other.Pairs); n != 12*11/2 {
		t.Errorf("other source: %d pairs, want every pair (66)", n)
	}
	for _, c := range [][2]string{{"sae KDF", "KDF"}, {"ascon MIC-talk", "MIC-talk"}, {"handshake", "handshake"}, {"x y z", "z"}} {
		if got := wifiOperation(c[0]); got != c[1] {
			t.Errorf("wifiOperation(%q) = %q", c[0], got)
		}
	}
	// The report renders such a run.
	if html := render(t, wifiRun("kexlab wifi")); !strings.Contains(html, "spix MIC-talk") || !strings.Contains(html, "same operation") {
		t.Error("the report lacks the wifi benchmarks or the pairing rule")
	}
}

func pairOf(pairs []Pair, x, y string) (Pair, bool) {
	for _, p := range pairs {
		if _, ok := p.VerdictOf(x, y); ok {
			return p, true
		}
	}
	return Pair{}, false
}
