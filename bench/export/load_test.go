package export

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench"
)

func goodLoad() bench.LoadResult {
	return bench.LoadResult{Format: bench.LoadFormat, Scheme: "opaque", Loop: "open", Concurrency: 8, Rate: 200,
		Seconds: 3, OK: 600, Throughput: 200, Started: time.Unix(0, 0).UTC(), Errors: map[string]int{"rate_limited": 2},
		Latency: bench.LoadLatency{N: 600, Min: 1, Mean: 3, P50: 2.5, P90: 5, P99: 9, P999: 12, Max: 14}}
}

// TestReadLoad: a load result round-trips; other formats are not load
// results; broken ones are refused with a reason.
func TestReadLoad(t *testing.T) {
	good := goodLoad()
	b, _ := json.Marshal(good)
	l, err := ReadLoad(b)
	if err != nil || l == nil || l.Scheme != "opaque" || l.Latency != good.Latency || l.Errors["rate_limited"] != 2 {
		t.Fatalf("%v %+v", err, l)
	}
	for _, other := range []string{`{"format":"kexlab-results/1"}`, `[]`, `not json`, ``} {
		if l, err := ReadLoad([]byte(other)); l != nil || err != nil {
			t.Errorf("%q: %v %v", other, l, err)
		}
	}
	for want, mut := range map[string]func(*bench.LoadResult){
		"no scheme":      func(l *bench.LoadResult) { l.Scheme = "" },
		"loop":           func(l *bench.LoadResult) { l.Loop = "sideways" },
		"concurrency 0":  func(l *bench.LoadResult) { l.Concurrency = 0 },
		"negative":       func(l *bench.LoadResult) { l.Throughput = -1 },
		"out of order":   func(l *bench.LoadResult) { l.Latency.P99 = 100 },
		"errors of kind": func(l *bench.LoadResult) { l.Errors["x"] = -1 },
	} {
		l := goodLoad()
		mut(&l)
		b, _ := json.Marshal(l)
		if _, err := ReadLoad(b); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
	if _, err := ReadLoad([]byte(`{"format":"kexlab-load/1","scheme":"x","extra":1}`)); err == nil {
		t.Error("an unknown field was accepted")
	}
}

// FuzzReadLoad: any input is a load result that holds together, not one,
// or an error; never a panic.
func FuzzReadLoad(f *testing.F) {
	b, _ := json.Marshal(goodLoad())
	f.Add(b)
	f.Add([]byte(`{"format":"kexlab-load/1","latency_ms":{"n":1,"p50":1e400}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ReadLoad(b)
		if l != nil && err != nil {
			t.Fatal("both a result and an error")
		}
		if l != nil && (l.Scheme == "" || l.Concurrency < 1) {
			t.Fatalf("accepted %+v", l)
		}
	})
}

// FuzzReadServiceStudy: any input is a study that holds together, not
// one, or an error; never a panic.
func FuzzReadServiceStudy(f *testing.F) {
	st := bench.ServiceStudy{Format: bench.ServiceStudyFormat, PointSeconds: 2, Accounts: 8,
		Dispatch:   []bench.DispatchFit{{Scheme: "opaque", Points: []bench.BatchDelay{{Size: 1, Ms: 0.4}, {Size: 8, Ms: 3.1}}, KMs: 0.39, R2: 0.99}},
		Throughput: []bench.ThroughputPoint{{Scheme: "opaque", MaxBatch: 64, Conns: 4, Result: goodLoad()}},
		Latency:    []bench.LatencyPoint{{Scheme: "opaque", Fraction: 0.7, Result: goodLoad()}},
		Schemes:    []bench.SchemeSummary{{Scheme: "opaque", Kind: "pake", Peak: 500, LimitMs: 0.4}}}
	b, _ := json.Marshal(st)
	f.Add(b)
	if got, err := ReadServiceStudy(b); err != nil || got == nil {
		f.Fatalf("the seed study: %v", err)
	}
	f.Add([]byte(`{"format":"kexlab-service-study/1","schemes":[{"scheme":"x","kind":"pake","peak":-1}]}`))
	f.Add([]byte(`{"format":"kexlab-service-study/1","latency":[{"scheme":"x","fraction":0.5,"result":{"loop":"open"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ReadServiceStudy(b)
		if st != nil && err != nil {
			t.Fatal("both a study and an error")
		}
		if st == nil {
			return
		}
		for _, p := range st.Throughput {
			if p.Conns < 1 || p.Result.Concurrency < 1 || p.Result.Throughput < 0 {
				t.Fatalf("accepted %+v", p)
			}
		}
		for _, s := range st.Schemes {
			if s.Kind != "pake" && s.Kind != "hash" {
				t.Fatalf("accepted %+v", s)
			}
		}
	})
}
