package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/kexlab/kexlab/bench"
)

// maxLoadLatencyMS is the ceiling of kexlab load's histogram (10 min).
const maxLoadLatencyMS = 600000

// ReadLoad decodes a `kexlab load -o` result. It returns nil, nil when b is
// not one (no "format": "kexlab-load/1" object), so that a caller can try
// the other formats, and an error for a load result that does not hold
// together: a missing scheme, an unknown loop, negative or non-finite
// numbers, percentiles out of order.
func ReadLoad(b []byte) (*bench.LoadResult, error) {
	var probe struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(b, &probe) != nil || probe.Format != bench.LoadFormat {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l bench.LoadResult
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("load result: %w", err)
	}
	if err := checkLoad(&l); err != nil {
		return nil, err
	}
	return &l, nil
}

// finite reports whether every v is a finite number, not negative.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return false
		}
	}
	return true
}

// checkLoad reports a load result that does not hold together (see
// ReadLoad).
func checkLoad(l *bench.LoadResult) error {
	lat := l.Latency
	switch {
	case l.Scheme == "":
		return fmt.Errorf("load result: no scheme")
	case l.Loop != "closed" && l.Loop != "open":
		return fmt.Errorf("load result: loop %q, want closed or open", l.Loop)
	case l.Concurrency < 1 || l.OK < 0 || l.Drained < 0 || lat.N < 0:
		return fmt.Errorf("load result: concurrency %d, ok %d, n %d", l.Concurrency, l.OK, lat.N)
	case !finite(l.Rate, l.Seconds, l.Throughput, lat.Min, lat.Mean, lat.P50, lat.P90, lat.P99, lat.P999, lat.Max):
		return fmt.Errorf("load result: a negative or non-finite number")
	case l.Rate > 1e6 || l.Throughput > 1e9 || l.Seconds > 1e7 || lat.Max > maxLoadLatencyMS:
		// The generator's own limits: at most 1e6/s offered, a 10-minute
		// histogram ceiling.
		return fmt.Errorf("load result: rate, throughput, seconds or latency beyond what kexlab load measures")
	case lat.N > 0 && !(lat.Min <= lat.P50 && lat.P50 <= lat.P90 && lat.P90 <= lat.P99 && lat.P99 <= lat.P999 && lat.P999 <= lat.Max):
		return fmt.Errorf("load result: latency percentiles out of order")
	}
	for k, n := range l.Errors {
		if n < 0 {
			return fmt.Errorf("load result: %d errors of kind %q", n, k)
		}
	}
	return nil
}

// ReadServiceStudy decodes a `kexlab load-study -o` result. It returns nil,
// nil when b is not one (no "format": "kexlab-service-study/1"), and an
// error for one that does not hold together: each load point is checked
// as ReadLoad checks a load result, and every number must be finite and
// not negative.
func ReadServiceStudy(b []byte) (*bench.ServiceStudy, error) {
	var probe struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(b, &probe) != nil || probe.Format != bench.ServiceStudyFormat {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var st bench.ServiceStudy
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("service study: %w", err)
	}
	bad := func(vs ...float64) bool {
		return !finite(vs...) || slices.ContainsFunc(vs, func(v float64) bool { return v > 1e12 })
	}
	if bad(st.PointSeconds, st.WarmupSeconds) || st.Accounts < 0 {
		return nil, fmt.Errorf("service study: a negative or non-finite shape")
	}
	for _, d := range st.Dispatch {
		if d.Scheme == "" || bad(d.TMs, d.KMs) || math.IsNaN(d.R2) || math.IsInf(d.R2, 0) || d.Reps < 0 {
			return nil, fmt.Errorf("service study: dispatcher fit of %q: a missing scheme or a negative or non-finite number", d.Scheme)
		}
		for _, p := range d.Points {
			if p.Size < 1 || bad(p.Ms) {
				return nil, fmt.Errorf("service study: dispatcher fit of %s: batch %d of %v ms", d.Scheme, p.Size, p.Ms)
			}
		}
	}
	for _, p := range st.Throughput {
		if p.Scheme == "" || p.MaxBatch < 1 || p.Conns < 1 || bad(p.ServerCPUS, p.PerCore) {
			return nil, fmt.Errorf("service study: throughput point of %q: a missing field or a bad number", p.Scheme)
		}
		if err := checkLoad(&p.Result); err != nil {
			return nil, fmt.Errorf("service study: %s, %d connections: %w", p.Scheme, p.Conns, err)
		}
	}
	for _, p := range st.Latency {
		if p.Scheme == "" || bad(p.Fraction) {
			return nil, fmt.Errorf("service study: latency point of %q: a missing scheme or a bad fraction", p.Scheme)
		}
		if err := checkLoad(&p.Result); err != nil {
			return nil, fmt.Errorf("service study: %s at %v of the peak: %w", p.Scheme, p.Fraction, err)
		}
	}
	for _, s := range st.Schemes {
		if s.Scheme == "" || (s.Kind != "pake" && s.Kind != "hash") || s.PeakConns < 0 || s.PeakBatch < 0 || s.LimitN < 0 ||
			bad(s.PerCoreRuns...) || bad(s.Peak, s.PeakPerCore, s.LimitMs, s.LimitQ1, s.LimitQ3, s.LimitPerCore, s.PctLimit, s.UnloadedP50, s.P99At70, s.Ratio) {
			return nil, fmt.Errorf("service study: scheme %q: a missing name, an unknown kind or a bad number", s.Scheme)
		}
	}
	return &st, nil
}
