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
// moments apart, and drift of the machine cancels. kexlab compare
// alternates which of the two it times first, iteration by iteration. The
// ratio is on the measuring thread's CPU time when the run has it (time
// waiting for a core, which a second busy core adds to wall time, is not
// in it), on wall time otherwise.
type Limit struct {
	Scheme, Op, FloorOp string
	Ops                 string  // the floor's operations, "; "-separated
	Metric              string  // "CPU time" or "wall time"
	Exchange, Floor     float64 // median time of each, ns
	// Ratio summarises the paired ratios exchange/floor (kept by
	// StatsRule): its median and the 95% interval of that median.
	Ratio stats.Summary
	Err   string
}

// Limits returns a Limit for every scheme and op of r that has floor
// samples.
func Limits(r *bench.Results) []Limit {
	metric, sel := "CPU time", func(s bench.Sample) float64 { return float64(s.CPUNs) }
	if r.CPUClock == "" {
		metric, sel = "wall time", func(s bench.Sample) float64 { return float64(s.WallNs) }
	}
	byIter := func(scheme, op string) map[int]float64 {
		m := map[int]float64{}
		for _, s := range r.Samples {
			if s.Scheme == scheme && s.Op == op {
				m[s.Iter] = sel(s)
			}
		}
		return m
	}
	var out []Limit
	for _, si := range r.Schemes {
		for _, op := range []string{bench.OpFull, bench.OpOnline} {
			fop := bench.FloorOf(op)
			floor := byIter(si.Name, fop)
			if len(floor) == 0 && fop == bench.OpFloorOnline {
				fop = bench.OpFloor // the floor has no password part
				floor = byIter(si.Name, fop)
			}
			if len(floor) == 0 {
				continue
			}
			l := Limit{Scheme: si.Name, Op: op, FloorOp: fop, Ops: strings.Join(si.FloorOps, "; "), Metric: metric}
			var ex, fl, ratios []float64
			for it, x := range byIter(si.Name, op) {
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
