package report

import (
	"context"
	"image/color"
	"image/png"
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
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--user-data-dir=" + filepath.Join(dir, "profile")}
	out, err := exec.CommandContext(ctx, browser, append(flags, "--dump-dom", "file://"+path)...).Output()
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
	out, err = exec.CommandContext(ctx, browser, append(flags, "--dump-dom", "file://"+path)...).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom = string(out)
	for _, want := range []string{`id="findings"`, `class="findings"`, "Profile study — Whole picture", "Profile recommended — Whole picture",
		"<b>agrees</b>", "<b>disagrees</b>", "Energy per operation"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM of the profiles run lacks %q", want)
		}
	}
	shot := filepath.Join(dir, "report.png")
	if _, err := exec.CommandContext(ctx, browser, append(flags, "--hide-scrollbars", "--window-size=1280,1600",
		"--screenshot="+shot, "file://"+path)...).CombinedOutput(); err != nil {
		t.Fatalf("chromium screenshot: %v", err)
	}
	checkScreenshot(t, shot, 1280, 1600)
	if keep := os.Getenv("KEXLAB_REPORT_SHOTS"); keep != "" {
		b, _ := os.ReadFile(shot)
		if err := os.MkdirAll(keep, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(keep, "report-findings.png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkScreenshot decodes a PNG and checks its size and that it shows a
// page: many colours, and ink (non-white pixels) in its top half, where
// the findings table is, and in its bottom half (figures).
func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot %d×%d, want %d×%d", b.Dx(), b.Dy(), w, h)
	}
	colours := map[color.RGBA]bool{}
	var ink [2]int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			colours[c] = true
			if c.R < 200 || c.G < 200 || c.B < 200 {
				ink[2*(y-b.Min.Y)/b.Dy()]++
			}
		}
	}
	half := b.Dx() * b.Dy() / 2
	if len(colours) < 16 || ink[0] < half/100 || ink[1] < half/200 {
		t.Errorf("screenshot looks blank: %d colours, ink %d / %d pixels in the top and bottom halves", len(colours), ink[0], ink[1])
	}
}
