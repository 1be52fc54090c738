package export

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

func sample() *bench.Results {
	return &bench.Results{
		Format: bench.Format, Label: "box 1", Source: "kexlab compare",
		Machine: bench.Machine{OS: "linux", Arch: "amd64", CPUModel: "Fake  CPU\n2GHz", Cores: 2},
		Schemes: []bench.SchemeInfo{{Name: "spake2", Size: 194, StudySize: 130}, {Name: "srp", Augmented: true, Size: 849}},
		Samples: []bench.Sample{
			{Scheme: "spake2", Op: bench.OpFull, WallNs: 1000, CPUNs: 900, Allocs: 3, AllocBytes: 100, WireBytes: 194},
			{Scheme: "srp", Op: bench.OpRegister, WallNs: 5000, EnergyUJ: map[string]float64{"package-0": 12, "core": 5}},
			{Scheme: "srp", Op: bench.OpFull, Seq: 1, WallNs: 7000, WireBytes: 849},
		},
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	r, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Samples) != 3 || r.Samples[1].EnergyUJ["package-0"] != 12 || r.Label != "box 1" {
		t.Fatalf("round trip lost data: %+v", r)
	}
}

func TestReadJSONRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"format":         `{"format":"other/1"}`,
		"unknown scheme": `{"format":"kexlab-results/1","schemes":[{"name":"a"}],"samples":[{"scheme":"b","op":"full"}]}`,
		"duplicate":      `{"format":"kexlab-results/1","schemes":[{"name":"a"},{"name":"a"}]}`,
		"negative":       `{"format":"kexlab-results/1","schemes":[{"name":"a"}],"samples":[{"scheme":"a","op":"full","wall_ns":-1}]}`,
		"syntax":         `{"format":`,
	} {
		if _, err := ReadJSON(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || len(rows[0]) != len(CSVHeader) {
		t.Fatalf("rows %v", rows)
	}
	if got := strings.Join(rows[1], ","); got != "box 1,spake2,full,0,0,1000,900,3,100,194,194,130," {
		t.Errorf("row 1 %q", got)
	}
	if rows[2][12] != "12" {
		t.Errorf("energy column %q, want package domains only (12)", rows[2][12])
	}
}

// TestBenchfmt checks the lines against the benchmark format:
// "Benchmark<Name> <iterations> (<value> <unit>)+" and "key: value".
func TestBenchfmt(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^Benchmark\S+ \d+( [0-9.e+-]+ \S+)+$`)
	conf := regexp.MustCompile(`^[a-z][^\s:]*: \S.*$`)
	var bl []string
	for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "Benchmark"):
			if !line.MatchString(l) {
				t.Errorf("bad result line %q", l)
			}
			bl = append(bl, l)
		case !conf.MatchString(l):
			t.Errorf("bad config line %q", l)
		}
	}
	if len(bl) != 3 || bl[0] != "BenchmarkPAKE/spake2/full 1 1000 ns/op 900 cpu-ns/op 100 B/op 3 allocs/op 194 wire-B/op" {
		t.Errorf("result lines %q", bl)
	}
	if !strings.Contains(buf.String(), "cpu: Fake CPU 2GHz\n") || !strings.Contains(buf.String(), "label: box 1\n") {
		t.Errorf("config lines missing:\n%s", buf.String())
	}
	if !strings.Contains(bl[1], " 12 pkg-µJ/op") {
		t.Errorf("energy missing: %q", bl[1])
	}
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteAll(dir, sample())
	if err != nil || len(paths) != 3 {
		t.Fatal(paths, err)
	}
	r, err := LoadJSON(filepath.Join(dir, "results.json"))
	if err != nil || len(r.Samples) != 3 {
		t.Fatal(err)
	}
}

func FuzzReadJSON(f *testing.F) {
	var buf bytes.Buffer
	WriteJSON(&buf, sample())
	f.Add(buf.Bytes())
	f.Add([]byte(`{"format":"kexlab-results/1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ReadJSON(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteJSON(&out, r); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadJSON(&out); err != nil {
			t.Fatalf("re-read of accepted document failed: %v", err)
		}
		WriteCSV(&out, r)
		WriteBenchfmt(&out, r)
	})
}
