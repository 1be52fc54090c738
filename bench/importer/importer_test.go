package importer

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func walls(r *bench.Results, name string) []int64 {
	var out []int64
	for _, s := range r.Samples {
		if s.Scheme == name {
			out = append(out, s.WallNs)
		}
	}
	return out
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestJMH(t *testing.T) {
	r, err := Detect(read(t, "jmh.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Source != "jmh" || len(r.Schemes) != 3 {
		t.Fatalf("source %q, schemes %+v", r.Source, r.Schemes)
	}
	// avgt in us/op: both forks' iterations, in nanoseconds.
	if got := walls(r, "KeyAgreementBench.ecdh:avgt[curve=secp256r1,provider=SunEC]"); !equal(got, []int64{140000, 150000, 160000, 145000, 150500, 155000}) {
		t.Errorf("avgt samples %v", got)
	}
	// thrpt in ops/s: 1e9/ops ns per op.
	if got := walls(r, "KeyAgreementBench.x25519:thrpt"); !equal(got, []int64{50000, 40000, 25000}) {
		t.Errorf("thrpt samples %v", got)
	}
	// sample mode: the histogram expanded by counts.
	if got := walls(r, "KeyAgreementBench.ecdh:sample"); !equal(got, []int64{150000, 150000, 152000, 149000}) {
		t.Errorf("histogram samples %v", got)
	}
	if r.Energy.Measured {
		t.Error("JMH has no energy")
	}
}

func TestJetpack(t *testing.T) {
	r, err := Detect(read(t, "jetpack.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Source != "jetpack" || r.Machine.Cores != 8 || r.Label != "google Pixel 5" {
		t.Fatalf("results %+v", r)
	}
	name := "PakeBenchmark.spake2FullRun"
	if got := walls(r, name); !equal(got, []int64{1000000, 1100000, 1300000, 1050000}) {
		t.Errorf("spake2 samples %v", got)
	}
	if got := walls(r, "PakeBenchmark.cpaceFullRun"); !equal(got, []int64{700000, 800000, 900000}) {
		t.Errorf("cpace samples %v", got)
	}
	e := r.Values(name, bench.OpFull, bench.Energy)
	if len(e) != 4 || e[0] != 100 || e[3] != 130 {
		t.Errorf("energy %v, want energyTotalUws runs", e)
	}
	if !r.Energy.Measured {
		t.Error("energy not marked measured")
	}
	// Each rail is kept: the Android study's figure is the cpu.big rail.
	if want := []string{"total", "cpu.big"}; strings.Join(r.Energy.Domains, ",") != strings.Join(want, ",") {
		t.Errorf("energy domains %v, want %v", r.Energy.Domains, want)
	}
	if err := r.SelectRail("gpu"); err == nil || !strings.Contains(err.Error(), "total, cpu.big") {
		t.Errorf("unknown rail: %v", err)
	}
	if err := r.SelectRail("cpu.big"); err != nil {
		t.Fatal(err)
	}
	if e := r.Values(name, bench.OpFull, r.EnergyValue); len(e) != 4 || e[0] != 10 || e[3] != 13 {
		t.Errorf("cpu.big energy %v, want energyComponentCpuBigUws runs", e)
	}
	for metric, rail := range map[string]string{"energyComponentCpuBigUws": "cpu.big", "energyCpuUws": "cpu",
		"energyTotalUws": "total", "energyComponentDisplayUws": "display", "energyComponentCpuLittleUws": "cpu.little"} {
		if got := railName(metric); got != rail {
			t.Errorf("railName(%s) = %s, want %s", metric, got, rail)
		}
	}
	if r.Samples[0].Allocs != 40 {
		t.Errorf("allocs %d", r.Samples[0].Allocs)
	}
}

func TestDetectOther(t *testing.T) {
	r, err := Detect([]byte(`{"format":"kexlab-results/1","schemes":[]}`))
	if r != nil || err != nil {
		t.Errorf("kexlab results detected as import: %v %v", r, err)
	}
}

func TestRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"jmh unit":       `[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"furlongs","rawData":[[1]]}}]`,
		"jmh name":       `[{"primaryMetric":{"scoreUnit":"ns/op","rawData":[[1]]}}]`,
		"jmh negative":   `[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawData":[[-1]]}}]`,
		"jmh zero rate":  `[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ops/s","rawData":[[0]]}}]`,
		"jetpack notime": `{"benchmarks":[{"name":"x","metrics":{}}]}`,
		"jetpack syntax": `{"benchmarks":[{"name":"x","metrics":{"timeNs":{"runs":["a"]}}}]}`,
	} {
		if _, err := Detect([]byte(doc)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err %v, want ErrFormat", name, err)
		}
	}
}

func FuzzJMH(f *testing.F) {
	b, _ := os.ReadFile("testdata/jmh.json")
	f.Add(b)
	f.Add([]byte(`[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawDataHistogram":[[[[1,1e300]]]]}}]`))
	if b, err := os.ReadFile("testdata/jmh_nan.json"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := JMH(b); err == nil {
			check(t, r)
		}
	})
}

func FuzzJetpack(f *testing.F) {
	b, _ := os.ReadFile("testdata/jetpack.json")
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := Jetpack(b); err == nil {
			check(t, r)
		}
	})
}

// check asserts what the report relies on.
func check(t *testing.T, r *bench.Results) {
	names := map[string]bool{}
	for _, s := range r.Schemes {
		if names[s.Name] {
			t.Fatalf("duplicate name %q", s.Name)
		}
		names[s.Name] = true
	}
	for _, s := range r.Samples {
		if !names[s.Scheme] || s.WallNs < 0 {
			t.Fatalf("bad sample %+v", s)
		}
	}
}
