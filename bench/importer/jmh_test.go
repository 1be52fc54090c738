package importer

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

// TestJMHProviders reads kexlab's additions to JMH JSON (jvm/, the JCE
// provider study): RAPL secondary metrics per iteration, a case recorded
// as not supported, and the reason energy was not measured.
func TestJMHProviders(t *testing.T) {
	r, err := Detect(read(t, "jmh_providers.json"))
	if err != nil {
		t.Fatal(err)
	}
	gcm := "PrimitiveBench.run:avgt[algorithm=AES,dataLength=100,keySize=128,op=encrypt,provider=BC,transformation=AES/GCM/NoPadding]"
	if got := walls(r, gcm); !equal(got, []int64{1000, 2000, 1500}) {
		t.Errorf("samples %v", got)
	}
	// Energy: the package domain per iteration, in fork order.
	e := r.Values(gcm, bench.OpFull, bench.Energy)
	if len(e) != 3 || e[0] != 1.5 || e[1] != 2.5 || e[2] != 2.0 {
		t.Errorf("energy %v", e)
	}
	if d := r.Samples[2].EnergyUJ["dram"]; d != 0.3 {
		t.Errorf("dram %v", d)
	}
	if !r.Energy.Measured || strings.Join(r.Energy.Domains, ",") != "dram,package-0" {
		t.Errorf("energy status %+v", r.Energy)
	}
	un := "PrimitiveBench.run:avgt[algorithm=AES,dataLength=100,keySize=192,op=encrypt,provider=Conscrypt,transformation=AES/GCM/NoPadding]"
	si, ok := r.Scheme(un)
	if !ok || si.N != 0 || !strings.HasPrefix(si.Error, "not supported: Conscrypt") {
		t.Errorf("unsupported case %+v", si)
	}
}

func TestJMHEnergyReason(t *testing.T) {
	doc := `[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawData":[[1]]},"kexlabEnergy":"not measured: no powercap"}]`
	r, err := Detect([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if r.Energy.Measured || r.Energy.Reason != "no powercap" { // the report says "not measured: " itself
		t.Errorf("energy %+v", r.Energy)
	}
}

func TestJMHEnergyRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"shape":    `[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawData":[[1,2]]},"secondaryMetrics":{"·rapl.package-0":{"scoreUnit":"uJ/op","rawData":[[1]]}}}]`,
		"unit":     `[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawData":[[1]]},"secondaryMetrics":{"·rapl.package-0":{"scoreUnit":"J","rawData":[[1]]}}}]`,
		"negative": `[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawData":[[1]]},"secondaryMetrics":{"·rapl.package-0":{"scoreUnit":"uJ/op","rawData":[[-1]]}}}]`,
	} {
		if _, err := Detect([]byte(doc)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err %v, want ErrFormat", name, err)
		}
	}
}

func FuzzJMHProviders(f *testing.F) {
	b, _ := os.ReadFile("testdata/jmh_providers.json")
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := JMH(b); err == nil {
			check(t, r)
			for _, s := range r.Samples {
				for _, v := range s.EnergyUJ {
					if !(v >= 0) {
						t.Fatalf("energy %v", v)
					}
				}
			}
		}
	})
}

// TestJMHNaNSecondary: JMH writes NaN and infinities as strings ("NaN",
// "+INF"), and profilers such as -prof gc often do in their secondary
// metrics; a metric kexlab does not use must not reject the file.
func TestJMHNaNSecondary(t *testing.T) {
	r, err := Detect(read(t, "jmh_nan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := walls(r, "SignatureBench.sign:avgt[alg=Ed25519]"); !equal(got, []int64{50500, 52000}) {
		t.Errorf("samples %v", got)
	}
	if r.Energy.Measured {
		t.Errorf("energy %+v from a GC metric", r.Energy)
	}
}

// TestJMHNonFinitePrimary: a NaN or infinite score in what kexlab does use
// (the primary metric, a RAPL metric) is refused, naming the value.
func TestJMHNonFinitePrimary(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"raw NaN": {`[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawData":[[1,"NaN"]]}}]`,
			"a.b: primary metric score NaN"},
		"raw +INF": {`[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawData":[["+INF"]]}}]`,
			"a.b: primary metric score +Inf"},
		"rate -INF": {`[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ops/s","rawData":[["-INF"]]}}]`,
			"a.b: primary metric score -Inf"},
		"histogram value NaN": {`[{"benchmark":"a.b","mode":"sample","primaryMetric":{"scoreUnit":"ns/op","rawDataHistogram":[[[["NaN",2]]]]}}]`,
			"a.b: primary metric score NaN"},
		"histogram count NaN": {`[{"benchmark":"a.b","mode":"sample","primaryMetric":{"scoreUnit":"ns/op","rawDataHistogram":[[[[1,"NaN"]]]]}}]`,
			"a.b: histogram count NaN"},
		"histogram count +INF": {`[{"benchmark":"a.b","mode":"sample","primaryMetric":{"scoreUnit":"ns/op","rawDataHistogram":[[[[1,"+INF"]]]]}}]`,
			"a.b: histogram count +Inf"},
		"rapl NaN": {`[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawData":[[1]]},"secondaryMetrics":{"·rapl.package-0":{"scoreUnit":"uJ/op","rawData":[["NaN"]]}}}]`,
			"a.b: ·rapl.package-0 value NaN"},
		"other string": {`[{"benchmark":"a.b","primaryMetric":{"scoreUnit":"ns/op","rawData":[["fast"]]}}]`,
			`value "fast" is not a number`},
	} {
		_, err := Detect([]byte(c.doc))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want ErrFormat with %q", name, err, c.want)
		}
	}
}

// TestJMHStudyFields reads what kexlab's JCE study harness adds: an A/A
// control's canonical case, the machine with the load per fork, and one
// array of samples per fork.
func TestJMHStudyFields(t *testing.T) {
	in := `[{"benchmark":"org.kexlab.jce.PrimitiveBench.run","mode":"avgt","forks":2,"jdkVersion":"17.0.15","vmName":"OpenJDK",
"params":{"provider":"JDK","algorithm":"HmacSHA256","keySize":"256","transformation":"1.2.840.113549.2.9","dataLength":"100","op":"mac"},
"primaryMetric":{"scoreUnit":"ns/op","rawData":[[900,910],[905,915]]},"secondaryMetrics":{},
"kexlabAlias":{"of":"HmacSHA256","why":"SunJCE maps both names to one Mac service"},
"kexlabEnergy":"not measured: no RAPL here",
"kexlabMachine":{"cores":2,"cpuModel":"Fake CPU","os":"Linux","arch":"amd64","kernel":"6.1","java":"17.0.15 (OpenJDK)",
"time":"2026-11-25T02:00:00Z","loadStart":"0.10 0.20 0.30 1/100 5","loadEnd":"1.00 0.90 0.80 1/100 9",
"loadPerFork":["0.10 0.20 0.30 1/100 5","0.50 0.40 0.30 1/100 7","1.00 0.90 0.80 1/100 9"],"forks":2,"n":4,"seed":7,"budgetSec":1080}}]`
	r, err := Detect([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	name := "PrimitiveBench.run:avgt[algorithm=HmacSHA256,dataLength=100,keySize=256,op=mac,provider=JDK,transformation=1.2.840.113549.2.9]"
	if got := walls(r, name); !equal(got, []int64{900, 910, 905, 915}) {
		t.Errorf("samples %v: want both forks", got)
	}
	si, _ := r.Scheme(name)
	canon := "PrimitiveBench.run:avgt[algorithm=HmacSHA256,dataLength=100,keySize=256,op=mac,provider=JDK,transformation=HmacSHA256]"
	if si.AliasOf == nil || si.AliasOf.Scheme != canon || !strings.Contains(si.AliasOf.Why, "one Mac service") {
		t.Errorf("alias %+v", si.AliasOf)
	}
	m := r.Machine
	if m.Cores != 2 || m.CPUModel != "Fake CPU" || m.Kernel != "6.1" || !strings.Contains(m.LoadAvg, "1.00 0.90 0.80 1/100 9 at the end") ||
		!strings.Contains(m.LoadAvg, "after each fork") || m.GoVersion != "Java 17.0.15 (OpenJDK)" {
		t.Errorf("machine %+v", m)
	}
	if r.Settings.N != 4 || r.Settings.Seed != 7 || r.Energy.Reason != "no RAPL here" {
		t.Errorf("settings %+v, energy %+v", r.Settings, r.Energy)
	}
}
