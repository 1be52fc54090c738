package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/internal/hsmtest"
)

// TestWGBenchResultsReport runs kexlab wg bench with -results and renders
// the file with kexlab report: every row appears in the HTML.
func TestWGBenchResultsReport(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "wgb.json")
	code, out, errOut := runCLI("wg", "bench", "-n", "4", "-seed", "3", "-label", "wgtest", "-results", res)
	if code != 0 {
		t.Fatalf("wg bench: exit %d\n%s%s", code, out, errOut)
	}
	rows := []string{"derive file", "update timestamp file", "update hash-ratchet file",
		"update hardware-ratchet file", "update fresh file"}
	for _, row := range rows {
		if !strings.Contains(out, row+" ") || !strings.Contains(out, "n=4 median=") {
			t.Errorf("output lacks the row %q:\n%s", row, out)
		}
	}
	r, err := export.LoadJSON(res)
	if err != nil {
		t.Fatal(err)
	}
	if r.Label != "wgtest" || r.Settings.Seed != 3 || len(r.Schemes) != len(rows) || len(r.Samples) != 4*len(rows) {
		t.Errorf("results: label %q seed %d, %d schemes, %d samples", r.Label, r.Settings.Seed, len(r.Schemes), len(r.Samples))
	}
	html := filepath.Join(dir, "wgb.html")
	if code, out, errOut := runCLI("report", "-o", html, res); code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, errOut)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range append(rows, "wgtest", "kexlab wg bench measures time only", "initiator offer") {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestWGBenchFlags(t *testing.T) {
	for _, args := range [][]string{
		{"wg", "bench", "-n", "1"},
		{"wg", "bench", "-json", "a.json", "-results", "b.json"},
		{"wg", "bench", "-nope"},
	} {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, _ := runCLI("wg", "bench", "-n", "2", "-key-file", filepath.Join(t.TempDir(), "missing")); code == 0 {
		t.Error("wg bench with a missing key file succeeded")
	}
}

func TestFmtDur(t *testing.T) {
	for ns, want := range map[float64]string{
		0: "0ns", 812: "812ns", 1234: "1.23µs", 999_999: "1ms", 21_000_000: "21ms", 4.056e8: "406ms", 2.5e9: "2.5s",
	} {
		if got := fmtDur(ns); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", ns, got, want)
		}
	}
}

// TestWGBenchHardwareSources measures real key sources through the CLI: a
// key file, a SoftHSM2 token and swtpm, each with its own rows.
func TestWGBenchHardwareSources(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "bench")
	dev := hsmtest.SWTPM(t, false)
	dir := t.TempDir()
	key, blob := filepath.Join(dir, "psk.key"), filepath.Join(dir, "psk.tpm")
	p11 := []string{"-p11-module", h.Module, "-p11-token", "bench", "-p11-pin-file", h.PINFile}
	wgKey(t, "-out", key)
	wgKey(t, append(p11, "-p11-generate")...)
	wgKey(t, "-tpm-import", key, "-tpm", dev, "-tpm-blob", blob)
	res := filepath.Join(dir, "wgb.json")
	args := append([]string{"wg", "bench", "-n", "3", "-results", res, "-key-file", key, "-tpm", dev, "-tpm-blob", blob}, p11...)
	code, out, errOut := runCLI(args...)
	if code != 0 {
		t.Fatalf("wg bench: exit %d\n%s%s", code, out, errOut)
	}
	r, err := export.LoadJSON(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"file", "file:" + key, "pkcs11:bench/wg-psk", "tpm:" + dev} {
		for _, row := range []string{"derive " + src, "update hardware-ratchet " + src, "update fresh " + src} {
			if _, ok := r.Scheme(row); !ok || !strings.Contains(out, row+" ") {
				t.Errorf("row %q missing:\n%s", row, out)
			}
		}
	}
	if code, out, errOut := runCLI("report", "-o", filepath.Join(dir, "wgb.html"), res); code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, errOut)
	}
}
