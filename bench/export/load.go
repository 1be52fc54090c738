package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

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
	lat := l.Latency
	finite := func(vs ...float64) bool {
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return false
			}
		}
		return true
	}
	switch {
	case l.Scheme == "":
		return nil, fmt.Errorf("load result: no scheme")
	case l.Loop != "closed" && l.Loop != "open":
		return nil, fmt.Errorf("load result: loop %q, want closed or open", l.Loop)
	case l.Concurrency < 1 || l.OK < 0 || lat.N < 0:
		return nil, fmt.Errorf("load result: concurrency %d, ok %d, n %d", l.Concurrency, l.OK, lat.N)
	case !finite(l.Rate, l.Seconds, l.Throughput, lat.Min, lat.Mean, lat.P50, lat.P90, lat.P99, lat.P999, lat.Max):
		return nil, fmt.Errorf("load result: a negative or non-finite number")
	case l.Rate > 1e6 || l.Throughput > 1e9 || l.Seconds > 1e7 || lat.Max > maxLoadLatencyMS:
		// The generator's own limits: at most 1e6/s offered, a 10-minute
		// histogram ceiling.
		return nil, fmt.Errorf("load result: rate, throughput, seconds or latency beyond what kexlab load measures")
	case lat.N > 0 && !(lat.Min <= lat.P50 && lat.P50 <= lat.P90 && lat.P90 <= lat.P99 && lat.P99 <= lat.P999 && lat.P999 <= lat.Max):
		return nil, fmt.Errorf("load result: latency percentiles out of order")
	}
	for k, n := range l.Errors {
		if n < 0 {
			return nil, fmt.Errorf("load result: %d errors of kind %q", n, k)
		}
	}
	return &l, nil
}
