package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/export"
)

// fakeRun builds a run with two balanced schemes (one clearly faster) and
// one augmented scheme, deterministic values.
func fakeRun(label string, energy bool) *bench.Results {
	r := &bench.Results{
		Format: bench.Format, Label: label, Source: "kexlab compare",
		Machine: bench.Machine{CPUModel: "Fake <CPU> & co", Cores: 2, GoVersion: "go1.26"},
		Schemes: []bench.SchemeInfo{
			{Name: "fast", Size: 130, StudySize: 66, WireCheck: "ok", Messages: []bench.MessageInfo{{Name: "hello", From: "client", Size: 3, StudySize: 2, Actual: 3}}},
			{Name: "slow", Size: 194, StudySize: 130, WireCheck: "ok"},
			{Name: "aug<x>", Augmented: true, Size: 849, StudySize: 848, WireCheck: "ok"},
		},
	}
	if energy {
		r.Energy = bench.EnergyStatus{Measured: true, Meter: "RAPL", Domains: []string{"package-0"}}
	} else {
		r.Energy = bench.EnergyStatus{Reason: "no powercap interface"}
	}
	for i := 0; i < 20; i++ {
		for _, s := range []struct {
			name, op string
			base     int64
		}{{"fast", bench.OpFull, 1000}, {"slow", bench.OpFull, 5000}, {"aug<x>", bench.OpRegister, 300}, {"aug<x>", bench.OpFull, 20000}} {
			smp := bench.Sample{Scheme: s.name, Op: s.op, Iter: i, WallNs: s.base + int64(i*7%13), CPUNs: s.base,
				Steps: []bench.Step{{Party: "client", Name: "new", Ns: 10}, {Party: "client", Name: "pA", Ns: 100}}}
			if i == 0 {
				smp.WallNs = s.base * 50 // one far outlier per series
			}
			if energy {
				smp.EnergyUJ = map[string]float64{"package-0": float64(s.base) / 100}
			}
			r.Samples = append(r.Samples, smp)
		}
	}
	return r
}

func render(t *testing.T, runs ...*bench.Results) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, runs); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// svgs returns the inline SVG fragments and checks each is well-formed XML.
func svgs(t *testing.T, html string) []string {
	t.Helper()
	frags := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(html, -1)
	for _, f := range frags {
		dec := xml.NewDecoder(strings.NewReader(f))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("SVG not well-formed: %v\n%s", err, f)
			}
		}
	}
	return frags
}

func TestReportParts(t *testing.T) {
	html := render(t, fakeRun("box", false))
	for _, want := range []string{
		"<!DOCTYPE html>",
		"energy: not measured: no powercap interface",
		"Whole picture: every scheme&#39;s full exchange",
		"Balanced schemes: full exchange",
		"Augmented schemes: full exchange",
		"Augmented schemes: registration",
		"Full exchange time vs bytes on the wire",
		`class="significance"`, `class="outliers"`, `class="summary"`, `class="steps"`, `class="wire"`,
		"C→S hello: 3 / 2 (wire 3)",
		"Fake &lt;CPU&gt; &amp; co", // escaped
		"aug&lt;x&gt;",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "aug<x>", "<CPU>", "http://", "https://", "Energy per operation"} {
		if strings.Contains(strings.ReplaceAll(html, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	if n := len(svgs(t, html)); n != 5 {
		t.Errorf("%d figures, want 5 (whole picture, balanced, augmented, registration, scatter)", n)
	}
	// Every series has one outlier at 50x its base: all three rules see it,
	// and the 10x-mean rule drops it from the statistics (19 of 20 kept).
	rowRe := regexp.MustCompile(`<tr><td class="l">fast</td><td class="l">full</td><td>19</td><td>1</td><td>1</td><td>1</td></tr>`)
	if !rowRe.MatchString(html) {
		t.Error("outlier row of fast/full not 1/1/1")
	}
	// fast vs slow: all fast samples but the outlier are below all slow
	// ones: significant, fast is better.
	pair := regexp.MustCompile(`(?s)<td class="l">fast</td><td class="l">slow</td>.*?</tr>`).FindString(html)
	if !strings.Contains(pair, "A faster") {
		t.Errorf("fast vs slow verdict: %s", pair)
	}
}

func TestReportEnergyAndMerge(t *testing.T) {
	html := render(t, fakeRun("box", true), fakeRun("box", false))
	for _, want := range []string{
		"energy: measured with RAPL (package-0)",
		"energy: not measured: no powercap interface",
		"Energy per operation (RAPL package",
		"fast — box", "fast — box #2", // merged runs side by side, labels unique
		"Run: box #2",
		`class="across"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := len(svgs(t, html)); n != 6 { // whole picture, balanced, augmented, registration, bytes, energy
		t.Errorf("%d figures, want 6", n)
	}
}

func TestReportFailedScheme(t *testing.T) {
	r := fakeRun("box", false)
	r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: "broken", Error: "server at message 1: invalid message"})
	html := render(t, r)
	if !strings.Contains(html, "not measured: server at message 1: invalid message") {
		t.Error("failed scheme not reported")
	}
	an, _ := Analyze([]*bench.Results{r})
	if rows := an[0].Rows; rows[len(rows)-1].Scheme != "broken" {
		t.Error("failed scheme not last")
	}
}

func TestAnalyze(t *testing.T) {
	an, err := Analyze([]*bench.Results{fakeRun("a", false)})
	if err != nil {
		t.Fatal(err)
	}
	rows := an[0].Rows
	if rows[0].Scheme != "aug<x>" || rows[0].Op != bench.OpRegister || rows[1].Scheme != "fast" {
		t.Errorf("rows not sorted by median: %v %v", rows[0].Scheme, rows[1].Scheme)
	}
	// 3 schemes with full samples: 3 pairs in one Holm family.
	if len(an[0].Pairs) != 3 {
		t.Fatalf("%d pairs", len(an[0].Pairs))
	}
	for _, p := range an[0].Pairs {
		if p.PAdj < p.P {
			t.Errorf("Holm-adjusted p %v below raw %v", p.PAdj, p.P)
		}
	}
	if _, err := Analyze(nil); err == nil {
		t.Error("no runs accepted")
	}
}

func TestCompareRuns(t *testing.T) {
	slow := fakeRun("slow box", false)
	for i := range slow.Samples {
		slow.Samples[i].WallNs *= 3
	}
	an, err := Analyze([]*bench.Results{fakeRun("box", false), slow})
	if err != nil {
		t.Fatal(err)
	}
	across := CompareRuns(an)
	// fast, slow and aug<x> have full samples in both runs.
	if len(across) != 3 {
		t.Fatalf("%d comparisons, want 3", len(across))
	}
	for _, x := range across {
		if x.Run != "slow box" || x.Baseline != "box" || x.Delta <= 0 || x.Verdict.String() != "worse" {
			t.Errorf("%s: %+v", x.Scheme, x)
		}
	}
	if CompareRuns(an[:1]) != nil {
		t.Error("comparisons with one run")
	}
}

// FuzzWrite renders every results.json the loader accepts: no panic, and
// the figures stay well-formed XML.
func FuzzWrite(f *testing.F) {
	var buf bytes.Buffer
	if err := export.WriteJSON(&buf, fakeRun("box", true)); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"format":"kexlab-results/1","schemes":[{"name":"a"}],"samples":[{"scheme":"a","op":"full","wall_ns":0},{"scheme":"a","op":"full","wall_ns":0}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := export.ReadJSON(bytes.NewReader(b))
		if err != nil || len(r.Samples) > 2000 {
			return
		}
		var out bytes.Buffer
		if err := Write(&out, []*bench.Results{r}); err != nil {
			t.Fatal(err)
		}
		svgs(t, out.String())
	})
}

func TestReportGroupsRunsAndImports(t *testing.T) {
	jvm := fakeRun("jvm", false)
	jvm.Source = "jmh"
	html := render(t, fakeRun("a", false), fakeRun("b", false), jvm)
	// The same scheme of runs a and b sits on adjacent rows.
	fig := regexp.MustCompile(`(?s)<svg .*?Balanced schemes.*?</svg>`).FindString(html)
	ia, ib, islow := strings.Index(fig, ">fast — a<"), strings.Index(fig, ">fast — b<"), strings.Index(fig, ">slow — a<")
	if ia < 0 || ib < 0 || islow < 0 || !(ia < ib && ib < islow) {
		t.Errorf("rows not grouped by scheme: fast a %d, fast b %d, slow a %d", ia, ib, islow)
	}
	if !strings.Contains(html, "Imported benchmarks") || !strings.Contains(html, "fast (jmh) — jvm") {
		t.Error("imported run not in its own figure")
	}
	if strings.Contains(fig, "jvm") {
		t.Error("imported run drawn among the balanced schemes")
	}
	// Heap figures of an imported run are unknown, not zero.
	jvmSummary := html[strings.Index(html, `id="run-jvm"`):]
	if !strings.Contains(jvmSummary, "<td>–</td><td>–</td>") {
		t.Error("imported run's allocations not shown as unmeasured")
	}
	if aSummary := html[strings.Index(html, `id="run-a"`):strings.Index(html, `id="run-b"`)]; strings.Contains(aSummary, "<td>–</td><td>–</td>") {
		t.Error("measured run's allocations shown as unmeasured")
	}
}

// The whole picture holds every scheme's full exchange, balanced and
// augmented, on one axis, fastest first.
func TestWholePicture(t *testing.T) {
	html := render(t, fakeRun("box", false))
	svg := func(title string) string {
		for _, f := range strings.Split(html, "<svg ") {
			if strings.Contains(f, "<title>Profile not recorded — "+title) {
				return f[:strings.Index(f, "</svg>")]
			}
		}
		return ""
	}
	fig, bal, aug := svg("Whole picture"), svg("Balanced schemes: full"), svg("Augmented schemes: full")
	if fig == "" {
		t.Fatal("no whole-picture figure")
	}
	rows := func(svg string) int { return strings.Count(svg, "<circle") }
	if rows(fig) == 0 || rows(fig) != rows(bal)+rows(aug) {
		t.Errorf("the whole picture has %d marks, the balanced and augmented figures %d and %d", rows(fig), rows(bal), rows(aug))
	}
}
