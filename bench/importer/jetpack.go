package importer

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/kexlab/kexlab/bench"
)

type jetpackFile struct {
	Context struct {
		Build struct {
			Brand, Device, Model string
			Version              struct {
				SDK int `json:"sdk"`
			} `json:"version"`
		} `json:"build"`
		CPUCoreCount int   `json:"cpuCoreCount"`
		CPULocked    bool  `json:"cpuLocked"`
		CPUMaxFreqHz int64 `json:"cpuMaxFreqHz"`
	} `json:"context"`
	Benchmarks []struct {
		Name      string `json:"name"`
		ClassName string `json:"className"`
		Metrics   map[string]struct {
			Runs []float64 `json:"runs"`
		} `json:"metrics"`
	} `json:"benchmarks"`
}

// Jetpack parses an Android Jetpack Microbenchmark JSON file.
func Jetpack(b []byte) (*bench.Results, error) {
	var in jetpackFile
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("%w: Jetpack JSON: %v", ErrFormat, err)
	}
	r := newResults("jetpack")
	c := in.Context
	r.Machine = bench.Machine{
		Host:     strings.TrimSpace(c.Build.Brand + " " + c.Build.Model),
		CPUModel: strings.TrimSpace(fmt.Sprintf("%s (max %d Hz, locked %v)", c.Build.Device, c.CPUMaxFreqHz, c.CPULocked)),
		Cores:    c.CPUCoreCount,
		OS:       fmt.Sprintf("android (SDK %d)", c.Build.Version.SDK),
	}
	r.Label = r.Machine.Host
	energyAny := false
	rails := map[string]bool{}
	for i, bm := range in.Benchmarks {
		if bm.Name == "" {
			return nil, fmt.Errorf("%w: Jetpack benchmark %d has no name", ErrFormat, i)
		}
		t, ok := bm.Metrics["timeNs"]
		if !ok {
			return nil, fmt.Errorf("%w: Jetpack benchmark %q has no timeNs metric", ErrFormat, bm.Name)
		}
		runs := t.Runs
		if n := min(MaxSamples, MaxTotal-len(r.Samples)); len(runs) > n {
			runs = runs[:max(n, 0)]
		}
		samples := make([]bench.Sample, len(runs))
		for j, v := range runs {
			ns, ok := toNs(v, 1, false)
			if !ok {
				return nil, fmt.Errorf("%w: %s: timeNs %v out of range", ErrFormat, bm.Name, v)
			}
			samples[j].WallNs = ns
		}
		if a, ok := bm.Metrics["allocationCount"]; ok && len(a.Runs) >= len(samples) {
			for j := range samples {
				if v := a.Runs[j]; v >= 0 && v < math.MaxUint32 {
					samples[j].Allocs = uint64(v)
				}
			}
		}
		// Energy metrics, aligned with the time runs when they have as many.
		var names []string
		for k, m := range bm.Metrics {
			if strings.HasPrefix(k, "energy") && strings.HasSuffix(k, "Uws") && len(m.Runs) >= len(samples) {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		for _, k := range names {
			for j := range samples {
				v := bm.Metrics[k].Runs[j]
				if !(v >= 0) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("%w: %s: %s %v", ErrFormat, bm.Name, k, v)
				}
				if samples[j].EnergyUJ == nil {
					samples[j].EnergyUJ = map[string]float64{}
				}
				// "total" is energyTotalUws, or the sum of the metrics
				// when the file has no total; every rail is kept under
				// its own name for kexlab report -rail.
				if k == "energyTotalUws" || !contains(names, "energyTotalUws") {
					samples[j].EnergyUJ["total"] += v
				}
				if rail := railName(k); rail != "total" {
					samples[j].EnergyUJ[rail] = v
					rails[rail] = true
				}
				energyAny = true
			}
		}
		name := bm.Name
		if cls := bm.ClassName; cls != "" {
			name = cls[strings.LastIndex(cls, ".")+1:] + "." + name
		}
		add(r, name, samples)
	}
	if energyAny {
		domains := []string{"total"}
		for k := range rails {
			domains = append(domains, k)
		}
		sort.Strings(domains[1:])
		r.Energy = bench.EnergyStatus{Measured: true, Meter: "Jetpack PowerMetric (energy*Uws)", Domains: domains}
	}
	return r, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// railName turns a Jetpack energy metric into the name of its power rail
// or category: energyComponentCpuBigUws → "cpu.big", energyCpuUws →
// "cpu", energyTotalUws → "total".
func railName(metric string) string {
	m := strings.TrimSuffix(strings.TrimPrefix(metric, "energy"), "Uws")
	m = strings.TrimPrefix(m, "Component")
	var parts []string
	start := 0
	for i := 1; i <= len(m); i++ {
		if i == len(m) || (m[i] >= 'A' && m[i] <= 'Z') {
			parts = append(parts, strings.ToLower(m[start:i]))
			start = i
		}
	}
	return strings.Join(parts, ".")
}
