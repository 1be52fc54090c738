package providers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/report/internal/headless"
)

// The provider study's page in headless Chromium: the A/A verdict and the
// counts at the top, the RQ answers, a figure per family and the tables
// render; a screenshot of the top is not blank (make test keeps it in
// out/report-shots/providers.png).
func TestChromiumRendersProviders(t *testing.T) {
	b := headless.Open(t)
	r := providerRun()
	for _, p := range []string{"JDK", "BC"} {
		for _, k := range []int{2048, 3072} {
			name := pname(p, "RSA", k, "SHA256withRSA", 100, "sign")
			r.Schemes = append(r.Schemes, bench.SchemeInfo{Name: name})
			for i := int64(0); i < 8; i++ {
				r.Samples = append(r.Samples, bench.Sample{Scheme: name, Op: bench.OpFull, WallNs: int64(k)*1000 + i*int64(len(p))})
			}
		}
	}
	r.Machine.LoadAvg = "0.20 0.10 0.05"
	var buf bytes.Buffer
	if err := writeHTML(&buf, Study([]*bench.Results{r})); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "providers.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, err := b.DOM(path)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if m := headless.Contains(dom, `id="counts"`, `id="answers"`, `class="ranking"`, `class="steps"`, `class="prices"`,
		"symmetric encryption: time per operation by provider", "signatures: time per operation by provider", `class="pairs"`); m != nil {
		t.Errorf("rendered DOM lacks %q", m)
	}
	b.Shoot(t, path, "providers.png")
}
