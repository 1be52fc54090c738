package report

import (
	"fmt"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/stats"
)

// PeerTest is kexlab's scheme tested against one independent
// implementation measured in the same run (kexlab compare -peer): the
// ratio kexlab/peer (Hodges–Lehmann on the logarithms, with its interval),
// the Mann–Whitney p (raw and Holm-adjusted over the run's peer tests) and
// Cliff's δ of kexlab against the peer.
type PeerTest struct {
	Kexlab, Peer string // "scheme op" and the peer's scheme
	Differs      string
	Metric       string // "CPU time" when both sides have it, else "wall time"
	Finding             // the statistics (Claim and Study unused)
	Verdict      string
}

// PeerTests returns a PeerTest for every peer scheme of r that names a
// kexlab scheme.
func PeerTests(r *bench.Results) []PeerTest {
	var out []PeerTest
	var ps []float64
	var idx []int
	for _, si := range r.Schemes {
		if si.Peer == nil || si.Peer.Scheme == "" {
			continue
		}
		t := PeerTest{Kexlab: si.Peer.Scheme + " " + si.Peer.Op, Peer: si.Name, Differs: si.Peer.Differs, Metric: "CPU time"}
		xs, ys := Kept(r.Values(si.Peer.Scheme, si.Peer.Op, bench.CPU)), Kept(r.Values(si.Name, bench.OpFull, bench.CPU))
		if len(xs) < 2 || len(ys) < 2 {
			t.Metric = "wall time"
			xs, ys = Kept(r.Values(si.Peer.Scheme, si.Peer.Op, bench.Wall)), Kept(r.Values(si.Name, bench.OpFull, bench.Wall))
		}
		t.A, t.B = t.Kexlab, t.Peer
		switch {
		case len(xs) < 2 || len(ys) < 2:
			t.Verdict = fmt.Sprintf("not measurable: %d samples of %s, %d of the peer", len(xs), t.Kexlab, len(ys))
		default:
			if err := ratioTest(&t.Finding, xs, ys); err != nil {
				t.Verdict = "not measurable: " + err.Error()
				break
			}
			ps = append(ps, t.P)
			idx = append(idx, len(out))
		}
		out = append(out, t)
	}
	adj, err := stats.Holm(ps)
	for k, i := range idx {
		t := &out[i]
		switch {
		case err != nil:
			t.Verdict = "not measurable: " + err.Error()
		case adj[k] >= Alpha:
			t.PAdj, t.Verdict = adj[k], "no significant difference"
		case t.Ratio < 1:
			t.PAdj, t.Verdict, t.Significant = adj[k], "kexlab faster", true
		default:
			t.PAdj, t.Verdict, t.Significant = adj[k], "kexlab slower", true
		}
	}
	return out
}
