package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/internal/hsmtest"
	"github.com/kexlab/kexlab/wg/netlab"
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

// TestWGBenchSoak runs kexlab wg bench -soak for a few seconds (fresh mode,
// file key; one-second sampling and keepalive) in the network-namespace
// lab, daemons and devices as processes of this binary, and renders the
// result with kexlab report.
func TestWGBenchSoak(t *testing.T) {
	netlab.Need(t)
	soakEnv = []string{"KEXLAB_TEST_MAIN=1"}
	defer func() { soakEnv = nil }()
	dir := t.TempDir()
	res := filepath.Join(dir, "soak.json")
	code, out, errOut := runCLI("wg", "bench", "-soak", "3s", "-soak-sample", "1s", "-soak-keepalive", "1s",
		"-soak-modes", "fresh", "-label", "soaktest", "-results", res)
	if code != 0 {
		t.Fatalf("wg bench -soak: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "fresh file ") || !strings.Contains(out, "machine: ") || !strings.Contains(errOut, "3/3 intervals") {
		t.Errorf("output:\n%s\nprogress:\n%s", out, errOut)
	}
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	r, err := export.ReadSoak(b)
	if err != nil || r == nil || r.Label != "soaktest" || len(r.Combos) != 1 {
		t.Fatalf("result: %v %+v", err, r)
	}
	c := r.Combos[0]
	if c.Mode != "fresh" || c.Source != "file" || c.WarmupHandshakes < 1 || len(c.Processes) != 6 {
		t.Errorf("combination %s %s: %d handshakes in the warm-up, %d processes", c.Mode, c.Source, c.WarmupHandshakes, len(c.Processes))
	}
	for _, role := range []string{bench.SoakDaemon, bench.SoakDevice, bench.SoakIdle} {
		s, ok := c.Summarize(role)
		if !ok || s.Processes != 2 || s.CPU.N != 6 || s.CPU.Window <= 0 || s.Wakeups.Window <= 0 || s.RSSBytes <= 0 {
			t.Errorf("%s: %+v", role, s)
		}
	}
	html := filepath.Join(dir, "soak.html")
	if code, out, errOut := runCLI("report", "-o", html, res); code != 0 || !strings.Contains(out, "1 wg soak results") {
		t.Fatalf("report: exit %d\n%s%s", code, out, errOut)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cost over time", "soaktest", "<td class=\"l\">fresh</td>", "2 × 3"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestWGBenchSoakFlags: bad -soak flags are one-line usage errors (exit
// 2), refused before anything starts.
func TestWGBenchSoakFlags(t *testing.T) {
	blob := filepath.Join(t.TempDir(), "blob")
	for _, args := range [][]string{
		{"-soak", "-1s"},
		{"-soak", "500ms"},
		{"-soak-modes", "fresh"},
		{"-soak", "2s", "-n", "5"},
		{"-soak", "2s", "-soak-modes", "fresh,sideways"},
		{"-soak", "2s", "-soak-sample", "3s"},
		{"-soak", "2s", "-soak-sample", "50ms"},
		{"-soak", "2s", "-tpm", "/dev/tpmrm0", "-tpm-blob", blob, "-tpm-auth-file", blob},
		{"-soak", "2s", "-soak-keepalive", "1500ms"},
		{"-soak", "2s", "-tpm", "tcp:127.0.0.1:2321", "-tpm-blob", blob},
		{"-soak", "2s", "-tpm", "unix:/nonexistent/tpm.sock", "-tpm-blob", blob},
		{"-soak", "2s", "-soak-tpm-b", "/dev/tpmrm0", "-soak-tpm-blob-b", blob},
		{"-soak", "2s", "-soak-tpm-b", "/dev/tpmrm0", "-tpm", "/dev/tpmrm0", "-tpm-blob", blob},
	} {
		code, _, errOut := runCLI(append([]string{"wg", "bench"}, args...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line", args, code, errOut)
		}
	}
}

// TestReportRefusesBadSoak: kexlab report names a malformed soak result
// and the reason, and writes nothing.
func TestReportRefusesBadSoak(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "soak.json")
	if err := os.WriteFile(bad, []byte(`{"format":"kexlab-wg-soak/1","seconds":-1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "r.html")
	code, _, errOut := runCLI("report", "-o", html, bad)
	if code != 1 || !strings.Contains(errOut, "soak.json: wg soak result: malformed") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(html); err == nil {
		t.Error("a report was written")
	}
}
