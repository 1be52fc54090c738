// Package importer reads benchmark results of other harnesses into
// [bench.Results], so that the same statistics (package bench/stats) and
// the same report (package report) serve them.
//
// Two formats are read:
//
//   - JMH JSON (java -jar benchmarks.jar -rf json): an array of results,
//     each with "benchmark", "mode", "params" and "primaryMetric" holding
//     "scoreUnit" and either "rawData" (one array of iteration scores per
//     fork) or, in sample-time mode, "rawDataHistogram" (per fork, per
//     iteration, [value, count] pairs). Every iteration score (or every
//     histogram value, repeated count times, capped) becomes a sample.
//     Throughput units (ops/s …) are inverted into time per operation.
//     Format: the JMH result writer (org.openjdk.jmh.results.format
//     JSONResultFormat) as shown in the JMH samples and in
//     jzillmann/jmh-visualizer's example data.
//   - Android Jetpack Microbenchmark JSON (androidx.benchmark, the
//     *-benchmarkData.json file): "context" (build, cpuCoreCount,
//     cpuLocked, cpuMaxFreqHz) and "benchmarks", each with "name",
//     "className", "params" and "metrics": a map from a metric name to
//     {minimum, maximum, median, runs}. "timeNs".runs are the samples;
//     "allocationCount".runs become Sample.Allocs. Energy metrics (names
//     starting with "energy" and ending "Uws", microwatt-seconds, i.e.
//     microjoules, as PowerMetric writes them) become Sample.EnergyUJ, under
//     "total" for energyTotalUws or their sum otherwise. Format: androidx
//     benchmark ResultWriter (its ResultWriterTest shows the layout) and the
//     PowerMetric reference on developer.android.com.
//
// Every imported sample has Op [bench.OpFull] and names its benchmark in
// Scheme. Nothing panics on any input; fuzz targets check that.
package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/kexlab/kexlab/bench"
)

// MaxSamples bounds the samples taken from one benchmark (histograms can
// describe millions of observations).
const MaxSamples = 100000

// MaxTotal bounds the samples taken from one file.
const MaxTotal = 1000000

// ErrFormat reports input that is not in the expected format.
var ErrFormat = errors.New("importer: unrecognised format")

// Detect parses b as JMH or Jetpack JSON. It returns (nil, nil) when b is
// neither (for example a kexlab results.json) and an error when b looks
// like one of them but is malformed.
func Detect(b []byte) (*bench.Results, error) {
	trimmed := strings.TrimLeft(string(b), " \t\r\n")
	switch {
	case strings.HasPrefix(trimmed, "["):
		return JMH(b)
	case strings.HasPrefix(trimmed, "{"):
		var probe struct {
			Format     string          `json:"format"`
			Benchmarks json.RawMessage `json:"benchmarks"`
		}
		if err := json.Unmarshal(b, &probe); err != nil {
			return nil, nil // let the results.json reader report it
		}
		if probe.Format == "" && probe.Benchmarks != nil {
			return Jetpack(b)
		}
	}
	return nil, nil
}

func newResults(source string) *bench.Results {
	return &bench.Results{
		Format: bench.Format,
		Source: source,
		Energy: bench.EnergyStatus{Reason: "the " + source + " file has no energy metric"},
	}
}

// add appends one benchmark's samples under a unique name.
func add(r *bench.Results, name string, samples []bench.Sample) {
	base := name
	for i := 2; ; i++ {
		if _, dup := r.Scheme(name); !dup {
			break
		}
		name = fmt.Sprintf("%s#%d", base, i)
	}
	r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: name, N: len(samples)})
	for i, s := range samples {
		s.Scheme, s.Op, s.Iter, s.Seq = name, bench.OpFull, i, len(r.Samples)
		r.Samples = append(r.Samples, s)
	}
}

// unitNs returns the factor from a JMH score unit to nanoseconds per
// operation and whether the unit is a rate (operations per time) to invert.
func unitNs(unit string) (factor float64, rate bool, err error) {
	per := map[string]float64{"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "min": 60e9}
	if t, ok := strings.CutSuffix(unit, "/op"); ok {
		if f, ok := per[t]; ok {
			return f, false, nil
		}
	}
	if t, ok := strings.CutPrefix(unit, "ops/"); ok {
		if f, ok := per[t]; ok {
			return f, true, nil
		}
	}
	return 0, false, fmt.Errorf("%w: unsupported score unit %q", ErrFormat, unit)
}

// toNs converts a score to int64 nanoseconds, rejecting what does not fit.
func toNs(v, factor float64, rate bool) (int64, bool) {
	if rate {
		if !(v > 0) {
			return 0, false
		}
		v = factor / v
	} else {
		v *= factor
	}
	if math.IsNaN(v) || v < 0 || v > float64(100*365*24*time.Hour) {
		return 0, false
	}
	return int64(math.Round(v)), true
}
