package report

import (
	"strings"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/stats"
)

// Limit is a scheme's distance from its primitive limit in one run: the
// ratio of an exchange (OpFull or OpOnline) to the unavoidable operations
// (bench.OpFloor or bench.OpFloorOnline) timed right after it. Samples are
// paired by their iteration, so each ratio compares two measurements taken
// moments apart, and drift of the machine cancels.
type Limit struct {
	Scheme, Op, FloorOp string
	Ops                 string  // the floor's operations, "; "-separated
	Exchange, Floor     float64 // median wall time of each, ns
	// Ratio summarises the paired ratios exchange/floor (kept by
	// StatsRule): its median and the 95% interval of that median.
	Ratio stats.Summary
	Err   string
}

// Limits returns a Limit for every scheme and op of r that has floor
// samples.
func Limits(r *bench.Results) []Limit {
	var out []Limit
	for _, si := range r.Schemes {
		for _, op := range []string{bench.OpFull, bench.OpOnline} {
			fop := bench.FloorOf(op)
			floor := byIter(r, si.Name, fop)
			if len(floor) == 0 && fop == bench.OpFloorOnline {
				fop = bench.OpFloor // the floor has no password part
				floor = byIter(r, si.Name, fop)
			}
			if len(floor) == 0 {
				continue
			}
			l := Limit{Scheme: si.Name, Op: op, FloorOp: fop, Ops: strings.Join(si.FloorOps, "; ")}
			var ex, fl, ratios []float64
			for it, x := range byIter(r, si.Name, op) {
				if f, ok := floor[it]; ok && f > 0 {
					ex, fl = append(ex, x), append(fl, f)
					ratios = append(ratios, x/f)
				}
			}
			if len(ratios) == 0 {
				continue
			}
			l.Exchange, l.Floor = median(Kept(ex)), median(Kept(fl))
			sum, err := stats.Summarize(Kept(ratios))
			if err != nil {
				l.Err = err.Error()
			}
			l.Ratio = sum
			out = append(out, l)
		}
	}
	return out
}

// byIter maps each sample of scheme and op to its wall time by iteration.
func byIter(r *bench.Results, scheme, op string) map[int]float64 {
	m := map[int]float64{}
	for _, s := range r.Samples {
		if s.Scheme == scheme && s.Op == op {
			m[s.Iter] = float64(s.WallNs)
		}
	}
	return m
}
