package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/report/internal/headless"
)

// TestChromiumRendersReport opens a report in headless Chromium (when one
// is installed; scripts/check-report.sh installs it) and checks the
// rendered DOM still has every figure and table: the page needs no network
// and no script. `make test` installs Chromium and sets
// KEXLAB_REQUIRE_CHROMIUM=1, which turns a missing or failing browser into
// a test failure instead of a skip.
func TestChromiumRendersReport(t *testing.T) {
	b := headless.Open(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte(render(t, fakeRun("box", true))), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, err := b.DOM(path)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if n := strings.Count(dom, "<svg"); n != 6 {
		t.Errorf("rendered DOM has %d figures, want 6 (the whole picture, balanced, augmented, registration, bytes, energy)", n)
	}
	if m := headless.Contains(dom, `class="summary"`, `class="significance"`, `class="outliers"`, "energy: measured with RAPL"); m != nil {
		t.Errorf("rendered DOM lacks %q", m)
	}

	// A run of both profiles, as make report measures it: the findings
	// section and each profile's figures render, and a screenshot of the
	// page's top (the findings) is not blank. KEXLAB_REPORT_SHOTS keeps it.
	r := findingsRun(true)
	for i := range r.Schemes {
		if n := r.Schemes[i].Name; n == "srp" || n == "spake2plus" {
			r.Schemes[i].Profiles = []string{"study", "recommended"}
		}
	}
	path = filepath.Join(dir, "profiles.html")
	if err := os.WriteFile(path, []byte(render(t, r)), 0o644); err != nil {
		t.Fatal(err)
	}
	if dom, err = b.DOM(path); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if m := headless.Contains(dom, `id="findings"`, `class="findings"`, "Profile study — Whole picture", "Profile recommended — Whole picture",
		"<b>agrees</b>", "<b>disagrees</b>", "Energy per operation"); m != nil {
		t.Errorf("rendered DOM of the profiles run lacks %q", m)
	}
	b.Shoot(t, path, "report-findings.png")
}
