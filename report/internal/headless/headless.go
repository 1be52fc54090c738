// Package headless drives Debian's Chromium for the tests that render
// kexlab's HTML reports: the DOM after rendering (--dump-dom) and a PNG
// screenshot, which CheckPNG checks for size and content. It is imported
// by tests only; `make test` installs Chromium and sets
// KEXLAB_REQUIRE_CHROMIUM=1, turning a missing browser into a failure.
package headless

import (
	"context"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Open returns the installed Chromium for a test, or skips the test —
// fails it when KEXLAB_REQUIRE_CHROMIUM is set, as make test sets it.
func Open(t testing.TB) *Browser {
	t.Helper()
	b, err := Find(t.TempDir())
	if err != nil {
		if os.Getenv("KEXLAB_REQUIRE_CHROMIUM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return b
}

// Shoot takes a 1280×1600 screenshot of the HTML file at path, checks it
// (CheckPNG) and keeps it as name in KEXLAB_REPORT_SHOTS.
func (b *Browser) Shoot(t testing.TB, path, name string) {
	t.Helper()
	shot := filepath.Join(b.dir, name)
	if err := b.Screenshot(path, shot, 1280, 1600); err != nil {
		t.Fatalf("chromium screenshot: %v", err)
	}
	if err := CheckPNG(shot, 1280, 1600); err != nil {
		t.Error(err)
	}
	if err := Keep(shot, os.Getenv("KEXLAB_REPORT_SHOTS"), name); err != nil {
		t.Fatal(err)
	}
}

// Browser is a Chromium binary with its own profile directory.
type Browser struct {
	path, dir string
}

// Find returns the installed Chromium, or an error saying none is.
func Find(dir string) (*Browser, error) {
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(b); err == nil {
			return &Browser{path: p, dir: dir}, nil
		}
	}
	return nil, fmt.Errorf("no Chromium installed (scripts/check-report.sh installs one)")
}

func (b *Browser) run(args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
		"--user-data-dir=" + filepath.Join(b.dir, "profile")}
	return exec.CommandContext(ctx, b.path, append(flags, args...)...).Output()
}

// DOM renders the HTML file at path and returns the DOM.
func (b *Browser) DOM(path string) (string, error) {
	out, err := b.run("--dump-dom", "file://"+path)
	return string(out), err
}

// Screenshot renders path in a w×h window into the PNG file shot.
func (b *Browser) Screenshot(path, shot string, w, h int) error {
	_, err := b.run(fmt.Sprintf("--window-size=%d,%d", w, h), "--screenshot="+shot, "file://"+path)
	return err
}

// CheckPNG decodes a screenshot and checks that it is w×h and shows a
// page: at least 16 colours, and ink (non-white pixels) in both its top
// and its bottom half.
func CheckPNG(path string, w, h int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	bd := img.Bounds()
	if bd.Dx() != w || bd.Dy() != h {
		return fmt.Errorf("screenshot %d×%d, want %d×%d", bd.Dx(), bd.Dy(), w, h)
	}
	colours := map[color.RGBA]bool{}
	var ink [2]int
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			colours[c] = true
			if c.R < 200 || c.G < 200 || c.B < 200 {
				ink[2*(y-bd.Min.Y)/bd.Dy()]++
			}
		}
	}
	half := bd.Dx() * bd.Dy() / 2
	if len(colours) < 16 || ink[0] < half/100 || ink[1] < half/200 {
		return fmt.Errorf("screenshot looks blank: %d colours, ink %d / %d pixels in the top and bottom halves", len(colours), ink[0], ink[1])
	}
	return nil
}

// Keep copies a screenshot to dir/name when dir is not empty (make test
// passes KEXLAB_REPORT_SHOTS).
func Keep(shot, dir, name string) error {
	if dir == "" {
		return nil
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), b, 0o644)
}

// Contains returns the wants the DOM lacks.
func Contains(dom string, wants ...string) []string {
	var missing []string
	for _, w := range wants {
		if !strings.Contains(dom, w) {
			missing = append(missing, w)
		}
	}
	return missing
}
