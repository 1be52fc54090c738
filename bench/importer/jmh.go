package importer

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/kexlab/kexlab/bench"
)

type jmhResult struct {
	Benchmark     string            `json:"benchmark"`
	Mode          string            `json:"mode"`
	Threads       int               `json:"threads"`
	Forks         int               `json:"forks"`
	JDKVersion    string            `json:"jdkVersion"`
	VMName        string            `json:"vmName"`
	Params        map[string]string `json:"params"`
	PrimaryMetric struct {
		ScoreUnit        string            `json:"scoreUnit"`
		RawData          [][]jmhFloat      `json:"rawData"`
		RawDataHistogram [][][][2]jmhFloat `json:"rawDataHistogram"`
	} `json:"primaryMetric"`
	// SecondaryMetrics stay undecoded until used: only kexlab's RAPL
	// metrics are, so a profiler's metric (gc.alloc.rate, often "NaN")
	// never rejects a file.
	SecondaryMetrics map[string]json.RawMessage `json:"secondaryMetrics"`
	// NotSupported and Energy are kexlab's additions (jvm/, Study.java):
	// a case the provider does not support, recorded without samples, and
	// why energy was not measured.
	NotSupported string `json:"kexlabNotSupported"`
	Energy       string `json:"kexlabEnergy"`
	// kexlab's JCE study (jvm/): an A/A control's canonical case and the
	// machine, load and settings of the run.
	Alias *struct {
		Of  string `json:"of"`
		Why string `json:"why"`
	} `json:"kexlabAlias"`
	Machine *jmhMachine `json:"kexlabMachine"`
}

// jmhMachine is what kexlab's JCE study records about its run.
type jmhMachine struct {
	Cores       int      `json:"cores"`
	CPUModel    string   `json:"cpuModel"`
	OS          string   `json:"os"`
	Arch        string   `json:"arch"`
	Kernel      string   `json:"kernel"`
	Java        string   `json:"java"`
	Time        string   `json:"time"`
	LoadStart   string   `json:"loadStart"`
	LoadEnd     string   `json:"loadEnd"`
	LoadPerFork []string `json:"loadPerFork"`
	Forks       int      `json:"forks"`
	N           int      `json:"n"`
	Seed        uint64   `json:"seed"`
	BudgetSec   int64    `json:"budgetSec"`
}

type jmhMetric struct {
	ScoreUnit string       `json:"scoreUnit"`
	RawData   [][]jmhFloat `json:"rawData"`
}

// jmhFloat is a JMH number. JMH's JSON writer (JSONResultFormat.emit)
// writes the values JSON has no number for as strings: "NaN", "+INF" and
// "-INF"; "Infinity" and "-Infinity" (Java's Double.toString) are read as
// well. Fields kexlab does not use are not decoded at all; in those it
// uses, a non-finite value is decoded here and refused where it is used,
// with an error that names it.
type jmhFloat float64

// UnmarshalJSON reads a JSON number or one of JMH's non-finite strings.
func (f *jmhFloat) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		var v float64
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*f = jmhFloat(v)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	switch s {
	case "NaN":
		*f = jmhFloat(math.NaN())
	case "+INF", "INF", "Infinity", "+Infinity":
		*f = jmhFloat(math.Inf(1))
	case "-INF", "-Infinity":
		*f = jmhFloat(math.Inf(-1))
	default:
		return fmt.Errorf("value %q is not a number", s)
	}
	return nil
}

// raplPrefix names the secondary metrics of kexlab's RAPL profiler
// (jvm/, RaplProfiler.java): "·rapl.DOMAIN" in µJ/op, one value per
// iteration, aligned with the primary metric's rawData.
const raplPrefix = "·rapl."

// JMH parses a JMH JSON result file.
func JMH(b []byte) (*bench.Results, error) {
	var in []jmhResult
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("%w: JMH JSON: %v", ErrFormat, err)
	}
	r := newResults("jmh")
	for i, res := range in {
		if res.Benchmark == "" {
			return nil, fmt.Errorf("%w: JMH result %d has no benchmark name", ErrFormat, i)
		}
		if r.Machine.GoVersion == "" && res.JDKVersion != "" {
			r.Machine.GoVersion = strings.TrimSpace("JDK " + res.JDKVersion + " " + res.VMName)
		}
		factor, rate, err := unitNs(res.PrimaryMetric.ScoreUnit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", res.Benchmark, err)
		}
		var samples []bench.Sample
		push := func(f jmhFloat) error {
			if len(samples) >= MaxSamples || len(r.Samples)+len(samples) >= MaxTotal {
				return nil
			}
			v := float64(f)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: %s: primary metric score %v (JMH writes NaN or ±INF for an iteration that measured nothing)", ErrFormat, res.Benchmark, v)
			}
			ns, ok := toNs(v, factor, rate)
			if !ok {
				return fmt.Errorf("%w: %s: score %v out of range", ErrFormat, res.Benchmark, v)
			}
			samples = append(samples, bench.Sample{WallNs: ns})
			return nil
		}
		for _, fork := range res.PrimaryMetric.RawData {
			for _, v := range fork {
				if err := push(v); err != nil {
					return nil, err
				}
			}
		}
		if len(samples) == 0 {
			for _, fork := range res.PrimaryMetric.RawDataHistogram {
				for _, iter := range fork {
					for _, vc := range iter {
						if count := float64(vc[1]); !(count >= 0) || math.IsInf(count, 0) {
							return nil, fmt.Errorf("%w: %s: histogram count %v", ErrFormat, res.Benchmark, count)
						}
						for c := 0.0; c < float64(vc[1]) && len(samples) < MaxSamples && len(r.Samples)+len(samples) < MaxTotal; c++ {
							if err := push(vc[0]); err != nil {
								return nil, err
							}
						}
					}
				}
			}
		}
		if err := jmhEnergy(r, res, samples); err != nil {
			return nil, err
		}
		add(r, jmhName(res), samples)
		si := &r.Schemes[len(r.Schemes)-1]
		if res.NotSupported != "" && len(samples) == 0 {
			si.Error = res.NotSupported
		}
		if a := res.Alias; a != nil && a.Of != "" {
			canon := res
			canon.Params = maps.Clone(res.Params)
			canon.Params["transformation"] = a.Of
			si.AliasOf = &bench.AliasOf{Scheme: jmhName(canon), Why: a.Why}
		}
		if m := res.Machine; m != nil && r.Machine.Cores == 0 {
			r.Machine.Cores, r.Machine.CPUModel, r.Machine.OS, r.Machine.Arch = m.Cores, m.CPUModel, m.OS, m.Arch
			r.Machine.Kernel, r.Machine.Time = m.Kernel, m.Time
			r.Machine.GoVersion = strings.TrimSpace("Java " + m.Java)
			r.Machine.LoadAvg = m.LoadStart
			if m.LoadEnd != "" {
				r.Machine.LoadAvg += " at the start; " + m.LoadEnd + " at the end"
			}
			if len(m.LoadPerFork) > 2 {
				r.Machine.LoadAvg += "; after each fork: " + strings.Join(m.LoadPerFork[1:], " | ")
			}
			r.Settings = bench.Settings{N: m.N, MinN: m.N, BudgetNs: m.BudgetSec * 1e9, Seed: m.Seed}
			r.Label = "JCE study"
		}
		if res.Energy != "" && !r.Energy.Measured {
			r.Energy.Reason = strings.TrimPrefix(res.Energy, "not measured: ")
		}
	}
	return r, nil
}

// jmhEnergy attaches the RAPL secondary metrics of res to its samples
// (which come from rawData, fork by fork, iteration by iteration, in the
// same order). A metric whose shape differs from rawData is an error.
func jmhEnergy(r *bench.Results, res jmhResult, samples []bench.Sample) error {
	for name, raw := range res.SecondaryMetrics {
		domain, ok := strings.CutPrefix(name, raplPrefix)
		if !ok {
			continue
		}
		var m jmhMetric
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%w: %s: %s: %v", ErrFormat, res.Benchmark, name, err)
		}
		if m.ScoreUnit != "uJ/op" {
			return fmt.Errorf("%w: %s: %s in %q, want uJ/op", ErrFormat, res.Benchmark, name, m.ScoreUnit)
		}
		var vs []float64
		for _, fork := range m.RawData {
			for _, v := range fork {
				vs = append(vs, float64(v))
			}
		}
		if len(vs) == 0 {
			continue
		}
		iters := 0
		for _, fork := range res.PrimaryMetric.RawData {
			iters += len(fork)
		}
		if len(vs) != iters {
			return fmt.Errorf("%w: %s: %s has %d values for %d iterations", ErrFormat, res.Benchmark, name, len(vs), iters)
		}
		for i, v := range vs[:len(samples)] { // samples may be capped
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: %s: %s value %v", ErrFormat, res.Benchmark, name, v)
			}
			if samples[i].EnergyUJ == nil {
				samples[i].EnergyUJ = map[string]float64{}
			}
			samples[i].EnergyUJ[domain] = v
		}
		r.Energy.Measured, r.Energy.Reason = true, ""
		r.Energy.Meter = "RAPL /sys/class/powercap around each JMH iteration (µJ per operation)"
		if !slices.Contains(r.Energy.Domains, domain) {
			r.Energy.Domains = append(r.Energy.Domains, domain)
			sort.Strings(r.Energy.Domains)
		}
	}
	return nil
}

// jmhName is the benchmark's short name (class.method) with its mode and
// parameters, e.g. "Sig.sign:avgt[alg=EC]".
func jmhName(res jmhResult) string {
	name := res.Benchmark
	if parts := strings.Split(name, "."); len(parts) >= 2 {
		name = strings.Join(parts[len(parts)-2:], ".")
	}
	if res.Mode != "" {
		name += ":" + res.Mode
	}
	if len(res.Params) > 0 {
		keys := make([]string, 0, len(res.Params))
		for k := range res.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + "=" + res.Params[k]
		}
		name += "[" + strings.Join(keys, ",") + "]"
	}
	return name
}
