package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChromiumRendersReport opens a report in headless Chromium (when one
// is installed; scripts/check-report.sh installs it) and checks the
// rendered DOM still has every figure and table: the page needs no network
// and no script. `make test` installs Chromium and sets
// KEXLAB_REQUIRE_CHROMIUM=1, which turns a missing or failing browser into
// a test failure instead of a skip.
func TestChromiumRendersReport(t *testing.T) {
	skip := t.Skipf
	if os.Getenv("KEXLAB_REQUIRE_CHROMIUM") != "" {
		skip = t.Fatalf
	}
	var browser string
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		skip("no Chromium installed (scripts/check-report.sh installs one)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte(render(t, fakeRun("box", true))), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+path)
	out, err := cmd.Output()
	if err != nil {
		skip("chromium did not run here: %v", err)
	}
	dom := string(out)
	if n := strings.Count(dom, "<svg"); n != 6 {
		t.Errorf("rendered DOM has %d figures, want 6 (the whole picture, balanced, augmented, registration, bytes, energy)", n)
	}
	for _, want := range []string{`class="summary"`, `class="significance"`, `class="outliers"`, "energy: measured with RAPL"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
}
