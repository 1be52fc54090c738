// Package export writes [bench.Results] as results.json (every sample and
// the machine), results.csv (one row per sample) and Go benchmark format
// text (golang.org/design/14313-benchmark-format: one line per sample, so
// benchstat reads it), and loads results.json back.
package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/internal/fileio"
)

// MaxJSON bounds the size of a results.json that LoadJSON accepts (and of
// any results file that `kexlab report` reads): 256 MiB, roughly a million
// samples at the 200 to 300 bytes one takes in results.json.
const MaxJSON = 256 << 20

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *bench.Results) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(r)
}

// ReadJSON parses a results.json document and checks that it is one this
// version understands and that its samples are consistent.
func ReadJSON(rd io.Reader) (*bench.Results, error) {
	dec := json.NewDecoder(io.LimitReader(rd, MaxJSON))
	var r bench.Results
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("results.json: %w", err)
	}
	if r.Format != bench.Format {
		return nil, fmt.Errorf("results.json: format %q, want %q", r.Format, bench.Format)
	}
	known := map[string]bool{}
	for _, s := range r.Schemes {
		if s.Name == "" || known[s.Name] {
			return nil, fmt.Errorf("results.json: empty or duplicate scheme name %q", s.Name)
		}
		known[s.Name] = true
	}
	for i, s := range r.Samples {
		if !known[s.Scheme] {
			return nil, fmt.Errorf("results.json: sample %d of unknown scheme %q", i, s.Scheme)
		}
		if s.Op == "" || s.WallNs < 0 || s.CPUNs < 0 {
			return nil, fmt.Errorf("results.json: sample %d: empty op or negative time", i)
		}
	}
	return &r, nil
}

// LoadJSON reads a results.json file: a regular file of at most MaxJSON
// bytes (fileio.ReadFile).
func LoadJSON(path string) (*bench.Results, error) {
	b, err := fileio.ReadFile(path, MaxJSON)
	if err != nil {
		return nil, err
	}
	r, err := ReadJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// CSVHeader is the first row of results.csv.
var CSVHeader = []string{"label", "scheme", "op", "seq", "iter", "wall_ns", "cpu_ns",
	"allocs", "alloc_bytes", "wire_bytes", "size", "study_size", "energy_package_uj"}

// WriteCSV writes one row per sample.
func WriteCSV(w io.Writer, r *bench.Results) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, s := range r.Samples {
		si, _ := r.Scheme(s.Scheme)
		energy := ""
		if e, ok := bench.Energy(s); ok {
			energy = strconv.FormatFloat(e, 'f', -1, 64)
		}
		row := []string{r.Label, s.Scheme, s.Op, strconv.Itoa(s.Seq), strconv.Itoa(s.Iter),
			strconv.FormatInt(s.WallNs, 10), strconv.FormatInt(s.CPUNs, 10),
			strconv.FormatUint(s.Allocs, 10), strconv.FormatUint(s.AllocBytes, 10),
			strconv.Itoa(s.WireBytes), strconv.Itoa(si.Size), strconv.Itoa(si.StudySize), energy}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteBenchfmt writes the samples as Go benchmark result lines, one per
// sample, named BenchmarkPAKE/<scheme>/<op>, preceded by configuration
// lines describing the machine.
func WriteBenchfmt(w io.Writer, r *bench.Results) error {
	var b strings.Builder
	conf := [][2]string{
		{"goos", r.Machine.OS}, {"goarch", r.Machine.Arch},
		{"pkg", "github.com/kexlab/kexlab/bench"}, {"cpu", r.Machine.CPUModel},
		{"label", r.Label}, {"go", r.Machine.GoVersion}, {"kernel", r.Machine.Kernel},
		{"governor", r.Machine.Governor}, {"source", r.Source},
	}
	for _, c := range conf {
		if v := oneLine(c[1]); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", c[0], v)
		}
	}
	for _, s := range r.Samples {
		fmt.Fprintf(&b, "BenchmarkPAKE/%s/%s 1 %d ns/op", benchName(s.Scheme), benchName(s.Op), s.WallNs)
		if s.CPUNs > 0 {
			fmt.Fprintf(&b, " %d cpu-ns/op", s.CPUNs)
		}
		fmt.Fprintf(&b, " %d B/op %d allocs/op", s.AllocBytes, s.Allocs)
		if s.Op == bench.OpFull && s.WireBytes > 0 {
			fmt.Fprintf(&b, " %d wire-B/op", s.WireBytes)
		}
		if e, ok := bench.Energy(s); ok {
			fmt.Fprintf(&b, " %g pkg-µJ/op", e)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// benchName makes s usable inside a benchmark name: no spaces, no
// characters that benchfmt reserves.
func benchName(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// files are what WriteAll writes.
var files = []struct {
	name  string
	write func(io.Writer, *bench.Results) error
}{{"results.json", WriteJSON}, {"results.csv", WriteCSV}, {"bench.txt", WriteBenchfmt}}

// Names returns the names of the files WriteAll writes into its directory
// (so that a caller can check the directory before a long run).
func Names() []string {
	var ns []string
	for _, f := range files {
		ns = append(ns, f.name)
	}
	return ns
}

// WriteAll writes results.json, results.csv and bench.txt into dir and
// returns their paths.
func WriteAll(dir string, r *bench.Results) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	var errs []error
	for _, f := range files {
		p := dir + string(os.PathSeparator) + f.name
		errs = append(errs, writeFile(p, r, f.write))
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, errors.Join(errs...)
}

func writeFile(path string, r *bench.Results, write func(io.Writer, *bench.Results) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
