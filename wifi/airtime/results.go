package airtime

import (
	"time"

	"github.com/kexlab/kexlab/bench"
)

// Results turns measurements into the results format that `kexlab report`
// reads: per suite the benchmarks "<key> KDF", "<key> MIC" (the MIC over
// whole frames, in the handshakes), "<key> MIC-talk" (the talk's 4-block
// MIC, when measured) and "<key> handshake", every sample kept. The last
// word of a name is the operation: the report compares only benchmarks of
// the same operation.
func Results(ms []*Measurement, label string) *bench.Results {
	r := &bench.Results{Format: bench.Format, Label: label, Source: "kexlab wifi",
		Machine: bench.DescribeMachine(), Started: time.Now().UTC(),
		Energy: bench.EnergyStatus{Reason: "kexlab wifi measures time only"}}
	for _, m := range ms {
		for _, part := range []struct {
			name string
			xs   []float64
		}{{"KDF", m.KDF}, {"MIC", m.MIC}, {"MIC-talk", m.MICTalk}, {"handshake", m.Handshake}} {
			if len(part.xs) == 0 {
				continue
			}
			name := m.Key + " " + part.name
			r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: name, Suite: m.Suite, N: len(part.xs)})
			for i, x := range part.xs {
				r.Samples = append(r.Samples, bench.Sample{Scheme: name, Op: bench.OpFull, Seq: len(r.Samples), Iter: i, WallNs: int64(x)})
			}
		}
	}
	r.Finished = time.Now().UTC()
	return r
}
