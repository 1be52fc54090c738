package providers

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

func pname(provider, alg string, size int, tr string, n int, op string) string {
	return "PrimitiveBench.run:avgt[algorithm=" + alg + ",dataLength=" + strconv.Itoa(n) + ",keySize=" + strconv.Itoa(size) +
		",op=" + op + ",provider=" + provider + ",transformation=" + tr + "]"
}

// providerRun is a synthetic JMH import: JDK clearly faster than BC on
// AES-GCM, Conscrypt without AES-192, BC's default "AES" faster than its
// GCM, and key sizes indistinguishable.
func providerRun() *bench.Results {
	r := &bench.Results{Source: "jmh", Energy: bench.EnergyStatus{Reason: "not measured: no RAPL"}}
	add := func(name string, base int64, errText string) {
		r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: name, Error: errText})
		if errText != "" {
			return
		}
		for i := int64(0); i < 8; i++ {
			r.Samples = append(r.Samples, bench.Sample{Scheme: name, Op: bench.OpFull, WallNs: base + i*(i%3)})
		}
	}
	add(pname("JDK", "AES", 128, "AES/GCM/NoPadding", 100, "encrypt"), 1000, "")
	add(pname("BC", "AES", 128, "AES/GCM/NoPadding", 100, "encrypt"), 5000, "")
	add(pname("Conscrypt", "AES", 128, "AES/GCM/NoPadding", 100, "encrypt"), 1001, "")
	add(pname("BC", "AES", 192, "AES/GCM/NoPadding", 100, "encrypt"), 5001, "")
	add(pname("Conscrypt", "AES", 192, "AES/GCM/NoPadding", 100, "encrypt"), 0, "not supported: key size")
	add(pname("BC", "AES", 128, "AES", 100, "encrypt"), 2000, "")
	add("Other.bench:avgt", 10, "")
	return r
}

func TestTables(t *testing.T) {
	study := Study([]*bench.Results{providerRun()})
	if len(study) != 1 {
		t.Fatalf("runs %d", len(study))
	}
	find := func(kind, title string) Table {
		for _, tb := range study[0].Tables {
			if tb.Kind == kind && tb.Title == title {
				return tb
			}
		}
		t.Fatalf("no table %s %s", kind, title)
		return Table{}
	}
	// Provider vs provider: all three pairs one Holm family of 3.
	tb := find(ProviderVsProvider, "AES-128 AES/GCM/NoPadding encrypt, 100 B")
	if len(tb.Items) != 3 || len(tb.Pairs) != 3 {
		t.Fatalf("items %d pairs %d", len(tb.Items), len(tb.Pairs))
	}
	if v := tb.Verdict("JDK", "BC", false); v != "better" {
		t.Errorf("JDK vs BC: %q", v)
	}
	if v := tb.Verdict("BC", "Conscrypt", false); v != "worse" {
		t.Errorf("BC vs Conscrypt: %q", v)
	}
	if v := tb.Verdict("JDK", "Conscrypt", false); v != "no significant difference" {
		t.Errorf("JDK vs Conscrypt: %q", v)
	}
	if len(tb.EnergyPairs) != 0 {
		t.Error("energy compared without energy")
	}
	// Not supported: a row with the reason, no pair.
	tb = find(ProviderVsProvider, "AES-192 AES/GCM/NoPadding encrypt, 100 B")
	if len(tb.Items) != 2 || tb.Items[1].Err != "not supported: key size" || len(tb.Pairs) != 0 {
		t.Errorf("unsupported table %+v", tb)
	}
	// Key sizes per provider.
	tb = find(KeySizeVsKeySize, "BC: AES AES/GCM/NoPadding encrypt, 100 B")
	if len(tb.Items) != 2 || tb.Items[0].Label != "128" || tb.Verdict("128", "192", false) != "no significant difference" {
		t.Errorf("key sizes %+v", tb)
	}
	// Default vs recommended: the default first, compared with the others only.
	tb = find(DefaultVsRecommended, "BC: AES-128 encrypt, 100 B")
	if tb.Items[0].Label != "AES (default)" || tb.Verdict("AES (default)", "AES/GCM/NoPadding", false) != "better" {
		t.Errorf("defaults %+v", tb)
	}
	for _, tb := range study[0].Tables {
		if tb.Kind == DefaultVsRecommended && !tb.Items[0].Case.Default() {
			t.Errorf("default table without default: %s", tb.Title)
		}
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	other := &bench.Results{Source: "jmh", Schemes: []bench.SchemeInfo{{Name: "x.y:avgt"}}}
	if ok, err := WriteFiles(filepath.Join(dir, "none.html"), []*bench.Results{other}, &log, Options{}); ok || err != nil {
		t.Fatalf("no study: %v %v", ok, err)
	}
	if Has([]*bench.Results{other}) || !Has([]*bench.Results{providerRun()}) {
		t.Error("Has")
	}
	html := filepath.Join(dir, "p.html")
	if ok, err := WriteFiles(html, []*bench.Results{providerRun()}, &log, Options{}); !ok || err != nil {
		t.Fatalf("%v %v", ok, err)
	}
	h, _ := os.ReadFile(html)
	txt, _ := os.ReadFile(filepath.Join(dir, "p.txt"))
	for _, want := range []string{"provider vs provider: AES-128 AES/GCM/NoPadding encrypt, 100 B", `class="better">better`, "not supported: key size"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if !strings.Contains(string(txt), "provider vs provider — AES-128 AES/GCM/NoPadding encrypt, 100 B") || !strings.Contains(string(txt), "better") {
		t.Errorf("text:\n%s", txt)
	}
	if !strings.Contains(log.String(), "p.html") {
		t.Errorf("log %q", log.String())
	}
}

func TestEnergy(t *testing.T) {
	r := providerRun()
	for i := range r.Samples {
		// Energy opposite to time: BC cheapest.
		e := 100.0 + float64(i%4)
		if strings.Contains(r.Samples[i].Scheme, "provider=BC") {
			e = 10 + float64(i%4)
		}
		r.Samples[i].EnergyUJ = map[string]float64{"package-0": e}
	}
	r.Energy = bench.EnergyStatus{Measured: true, Meter: "RAPL", Domains: []string{"package-0"}}
	study := Study([]*bench.Results{r})
	for _, tb := range study[0].Tables {
		if tb.Kind != ProviderVsProvider || tb.Title != "AES-128 AES/GCM/NoPadding encrypt, 100 B" {
			continue
		}
		if tb.Items[0].Energy == nil || len(tb.EnergyPairs) != 3 {
			t.Fatalf("energy %+v", tb)
		}
		if tb.Verdict("BC", "JDK", true) != "better" || tb.Verdict("BC", "JDK", false) != "worse" {
			t.Errorf("energy %q time %q", tb.Verdict("BC", "JDK", true), tb.Verdict("BC", "JDK", false))
		}
		return
	}
	t.Fatal("table missing")
}

// An A/A control: the OID alias of HmacSHA256 beside it. Equal samples
// pass the check; an alias 5× slower makes the run unreliable. Alias cases
// stay out of the comparison tables; the counts add up.
func TestAAControls(t *testing.T) {
	build := func(aliasBase int64) *bench.Results {
		r := providerRun()
		canon := pname("JDK", "HmacSHA256", 256, "HmacSHA256", 100, "mac")
		alias := pname("JDK", "HmacSHA256", 256, "1.2.840.113549.2.9", 100, "mac")
		r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: canon},
			bench.SchemeInfo{Name: alias, AliasOf: &bench.AliasOf{Scheme: canon, Why: "one service"}})
		for i := int64(0); i < 15; i++ {
			r.Samples = append(r.Samples, bench.Sample{Scheme: canon, Op: bench.OpFull, WallNs: 900 + i%5},
				bench.Sample{Scheme: alias, Op: bench.OpFull, WallNs: aliasBase + (i+2)%5})
		}
		r.Machine.LoadAvg = "0.50 0.40 0.30"
		r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: pname("BC", "DSA", 2048, "AlgorithmParameterGenerator", 0, "keygen"),
			Error: "not measured: the run's time budget of 10 s"}, bench.SchemeInfo{Name: pname("ACCP", "AES", 128, "AES", 100, "encrypt"),
			Error: "failed: boom"})
		return r
	}
	ok := Study([]*bench.Results{build(900)})[0]
	if ok.Unreliable != "" || len(ok.AA) != 1 || ok.AA[0].Verdict.String() != "no significant difference" {
		t.Errorf("equal A/A: %q %+v", ok.Unreliable, ok.AA)
	}
	if ok.Total != 10 || ok.Measured != 7 || ok.Unsupported != 1 || ok.Failed != 1 || ok.Budget != 1 {
		t.Errorf("counts: %d = %d + %d + %d + %d", ok.Total, ok.Measured, ok.Unsupported, ok.Failed, ok.Budget)
	}
	for _, tb := range ok.Tables {
		for _, it := range tb.Items {
			if strings.Contains(it.Case.Transformation, "1.2.840") {
				t.Errorf("alias case in table %s", tb.Title)
			}
		}
	}
	bad := Study([]*bench.Results{build(4500)})[0]
	if !strings.Contains(bad.Unreliable, "1 of 1 A/A control") {
		t.Errorf("5× slower alias: %q", bad.Unreliable)
	}
	var buf bytes.Buffer
	if err := writeHTML(&buf, []Run{bad}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="unreliable"`, "UNRELIABLE RUN", "0.50 0.40 0.30", `class="aa"`, `class="pairs"`, "10 cases: 7 measured"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// The paper's rule: unadjusted p at 0.05, cells ⊕/⊖/⊙.
func TestPaperRule(t *testing.T) {
	run := StudyWith([]*bench.Results{providerRun()}, Options{PaperRule: true})[0]
	if run.Rule != PaperRule {
		t.Errorf("rule %q", run.Rule)
	}
	var tb Table
	for _, x := range run.Tables {
		if x.Title == "AES-128 AES/GCM/NoPadding encrypt, 100 B" && x.Kind == ProviderVsProvider {
			tb = x
		}
	}
	m := tb.matrixMarks(false, true)
	joined := ""
	for _, row := range m.cells {
		joined += strings.Join(row, " ") + "\n"
	}
	if !strings.Contains(joined, "⊕") || !strings.Contains(joined, "⊖") || !strings.Contains(joined, "⊙") {
		t.Errorf("marks:\n%s", joined)
	}
	for _, p := range tb.Pairs {
		if want := p.P <= 0.05; want != (p.Verdict.String() != "no significant difference") {
			t.Errorf("%s vs %s: p %v, verdict %v", p.A, p.B, p.P, p.Verdict)
		}
	}
}

// With energy measured, each family gets an energy-against-time figure.
func TestEnergyFigures(t *testing.T) {
	r := providerRun()
	r.Energy = bench.EnergyStatus{Measured: true, Meter: "RAPL", Domains: []string{"package-0"}}
	for i := range r.Samples {
		r.Samples[i].EnergyUJ = map[string]float64{"package-0": float64(r.Samples[i].WallNs) / 100}
	}
	run := Study([]*bench.Results{r})[0]
	if figs := EnergyFigures(run); len(figs) != 1 || !strings.Contains(figs[0], "symmetric encryption: energy against time") {
		t.Errorf("energy figures: %d", len(figs))
	}
	if figs := EnergyFigures(Study([]*bench.Results{providerRun()})[0]); len(figs) != 0 {
		t.Error("an energy figure without energy")
	}
}

// Signatures: NONEwithRSA and SHA1withRSA (the paper's defaults) each
// against each recommended one; the matrix has the defaults as rows.
func TestSignatureDefaults(t *testing.T) {
	r := &bench.Results{Source: "jmh"}
	for i, tr := range []string{"NONEwithRSA", "SHA1withRSA", "SHA256withRSA", "RSASSA-PSS"} {
		name := pname("JDK", "RSA", 2048, tr, 100, "sign")
		r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: name})
		for k := int64(0); k < 8; k++ {
			r.Samples = append(r.Samples, bench.Sample{Scheme: name, Op: bench.OpFull, WallNs: 1000*int64(i+1) + k})
		}
	}
	var tb Table
	for _, x := range Study([]*bench.Results{r})[0].Tables {
		if x.Kind == DefaultVsRecommended {
			tb = x
		}
	}
	if tb.Title != "JDK: RSA-2048 sign" || len(tb.Pairs) != 4 {
		t.Fatalf("table %q with %d pairs, want 2 defaults × 2 recommended", tb.Title, len(tb.Pairs))
	}
	m := tb.matrix(false)
	if len(m.rows) != 2 || len(m.cols) != 2 || !strings.HasSuffix(m.rows[0], "(default)") {
		t.Errorf("matrix rows %v cols %v", m.rows, m.cols)
	}
	s := Summaries(Study([]*bench.Results{r})[0])
	if len(s) != 1 || s[0].Family != "signatures" || len(s[0].Prices) != 4 {
		t.Errorf("summaries %+v", s)
	}
}

// HMACs of one provider across digest lengths, sorted by length; the
// OID alias stays out.
func TestDigestTable(t *testing.T) {
	r := &bench.Results{Source: "jmh"}
	for i, m := range []struct {
		tr   string
		bits int
	}{{"HmacSHA512", 512}, {"HmacMD5", 128}, {"HmacSHA256", 256}, {"1.2.840.113549.2.9", 256}} {
		name := pname("JDK", map[bool]string{true: "HmacSHA256", false: m.tr}[strings.HasPrefix(m.tr, "1.")], m.bits, m.tr, 100, "mac")
		r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: name})
		for k := int64(0); k < 8; k++ {
			r.Samples = append(r.Samples, bench.Sample{Scheme: name, Op: bench.OpFull, WallNs: 100*int64(i+1) + k})
		}
	}
	var tb Table
	for _, x := range Study([]*bench.Results{r})[0].Tables {
		if x.Kind == DigestVsDigest {
			tb = x
		}
	}
	if tb.Title != "JDK: HMAC, 100 B" || len(tb.Items) != 3 || tb.Items[0].Label != "HmacMD5" || tb.Items[2].Label != "HmacSHA512" {
		t.Fatalf("digest table %q %+v", tb.Title, tb.Items)
	}
	s := Summaries(Study([]*bench.Results{r})[0])
	if len(s) != 1 || len(s[0].Digests) != 2 {
		t.Errorf("digest steps %+v", s)
	}
}

// A significant difference under 5 % is no difference (MinEffect); the
// paper's rule still calls it.
func TestMinEffect(t *testing.T) {
	r := &bench.Results{Source: "jmh"}
	for i, p := range []string{"JDK", "BC"} {
		name := pname(p, "HmacSHA1", 160, "HmacSHA1", 100, "mac")
		r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: name})
		for k := int64(0); k < 10; k++ {
			r.Samples = append(r.Samples, bench.Sample{Scheme: name, Op: bench.OpFull, WallNs: 1000 + 20*int64(i) + k})
		}
	}
	for _, opt := range []Options{{}, {PaperRule: true}} {
		for _, tb := range StudyWith([]*bench.Results{r}, opt)[0].Tables {
			if tb.Kind != ProviderVsProvider {
				continue
			}
			p := tb.Pairs[0]
			if opt.PaperRule {
				if p.Verdict.String() != "better" || p.Negligible {
					t.Errorf("paper rule: %+v", p)
				}
			} else if p.PAdj >= 0.05 || p.Verdict.String() != "no significant difference" || !p.Negligible {
				t.Errorf("2 %% apart: Holm p %v, verdict %v, negligible %v", p.PAdj, p.Verdict, p.Negligible)
			}
		}
	}
}
