package daemon

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The shipped unit passes systemd-analyze verify (with ExecStart pointed
// at an existing binary, which verify requires) with no warning, and has
// the hardening the daemon is documented to run under.
func TestSystemdUnit(t *testing.T) {
	unit, err := os.ReadFile("systemd/kexlab-wg@.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ExecStart=/usr/local/bin/kexlab wg run -config /etc/kexlab-wg/%i.json",
		"NoNewPrivileges=yes", "ProtectSystem=strict", "CapabilityBoundingSet=CAP_NET_ADMIN",
		"StateDirectory=kexlab-wg/%i", "RuntimeDirectory=kexlab-wg", "Restart=on-failure"} {
		if !strings.Contains(string(unit), "\n"+want+"\n") {
			t.Errorf("unit lacks %q", want)
		}
	}
	if !strings.Contains(string(unit), "RuntimeDirectory=kexlab-wg\n") || DefaultLockDir != "/run/kexlab-wg" {
		t.Error("the unit's RuntimeDirectory is not the daemon's lock directory")
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("KEXLAB_REQUIRE_HSM") == "1" {
			t.Fatal("systemd-analyze missing (scripts/wg-test-deps.sh installs it)")
		}
		t.Skip("no systemd-analyze")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kexlab-wg@wg0.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(unit), "/usr/local/bin/kexlab", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) != 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	// verify catches what it should: an unknown key.
	bad := strings.Replace(strings.ReplaceAll(string(unit), "/usr/local/bin/kexlab", self), "ProtectSystem=", "ProtectSytem=", 1)
	os.WriteFile(path, []byte(bad), 0o644)
	if out, _ := exec.Command(analyze, "verify", path).CombinedOutput(); !strings.Contains(string(out), "ProtectSytem") {
		t.Fatalf("verify did not flag an unknown key: %s", out)
	}
}
