package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/wg"
)

// kexlab wg status reads a state directory: one peer with a state file
// and a status file, one with only a status file (no handshake yet), one
// with a corrupt state file (listed with the problem, not a failure).
func TestWGStatusCommand(t *testing.T) {
	dir := t.TempDir()
	peer := func(c byte) string { return strings.Repeat(string([]byte{c}), 64) }
	st := wg.NewState(wg.HardwareRatchet)
	st.Epoch, st.Index = 498857, 7
	if err := st.Save(filepath.Join(dir, peer('a')+".state")); err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(peer('a')+".status", `{"peer":"qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqo=","mode":"hardware-ratchet","epoch":498857,"index":6,"failures":0,
		"last_handshake":"2026-11-28T17:00:00Z","last_event":"applied mode=hardware-ratchet epoch=498857 index=7","last_event_at":"2026-11-28T17:00:01Z"}`)
	write(peer('b')+".status", `{"peer":"u7u7u7u7u7u7u7u7u7u7u7u7u7u7u7u7u7u7u7u7u7s=","mode":"fresh","epoch":0,"index":0,"fallen_back":true,"failures":0,"last_event":"applied mode=fresh"}`)
	write(peer('c')+".state", `{"version":1`)
	write("unrelated.txt", "x")

	code, out, errOut := runCLI("wg", "status", "-state-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"PEER", "LAST HANDSHAKE", "qqqqqqqq", "hardware-ratchet  498857  7", "2026-11-28T17:00:00Z",
		"2026-11-28T17:00:01Z applied", "u7u7u7u7", "fresh", "zMzMzMzM", "PROBLEM:", "invalid state"} {
		if !strings.Contains(out, want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI("wg", "status", "-state-dir", dir, "-json")
	var sts []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &sts) != nil || len(sts) != 3 {
		t.Fatalf("-json: exit %d\n%s", code, out)
	}
	// The state file's position wins over the status file's.
	if sts[0]["index"] != float64(7) {
		t.Errorf("index %v, want the state file's 7", sts[0]["index"])
	}
	for _, args := range [][]string{{}, {"-state-dir", dir, "-config", "x"}, {"-state-dir", filepath.Join(dir, "missing")}} {
		code, out, errOut := runCLI(append([]string{"wg", "status"}, args...)...)
		if code == 0 || strings.Count(strings.TrimSpace(errOut), "\n") > 0 && !strings.Contains(errOut, "usage") || strings.Contains(errOut, "goroutine") {
			t.Errorf("wg status %v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}
