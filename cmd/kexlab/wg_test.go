package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench/export"
)

func TestWGDemoCommand(t *testing.T) {
	for _, mode := range []string{"hardware-ratchet", "fresh"} {
		code, out, errOut := runCLI("wg", "demo", "-n", "3", "-mode", mode)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", mode, code, out, errOut)
		}
		if strings.Count(out, "echo through the tunnel") < 3 || strings.Count(out, ": applied mode="+mode) < 6 {
			t.Errorf("%s: demo output:\n%s", mode, out)
		}
		if mode == "fresh" && (!strings.Contains(out, ": offer ") || !strings.Contains(out, ": answer ")) {
			t.Errorf("fresh demo without an exchange:\n%s", out)
		}
	}
}

func TestWGKeyAndBenchCommands(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "psk.key")
	if code, out, errOut := runCLI("wg", "key", "-out", key); code != 0 {
		t.Fatalf("wg key: exit %d\n%s%s", code, out, errOut)
	}
	if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v", err, st.Mode())
	}
	js := filepath.Join(dir, "bench.json")
	code, out, errOut := runCLI("wg", "bench", "-n", "5", "-key-file", key, "-json", js)
	if code != 0 {
		t.Fatalf("wg bench: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "derive file") || !strings.Contains(out, "update hardware-ratchet") {
		t.Errorf("bench output:\n%s", out)
	}
	if r, err := export.LoadJSON(js); err != nil {
		t.Errorf("bench JSON: %v", err)
	} else if _, ok := r.Scheme("derive file:" + key); !ok || r.Source != "kexlab wg bench" {
		t.Errorf("bench JSON: source %q, schemes %+v", r.Source, r.Schemes)
	}
	for _, args := range [][]string{{"wg"}, {"wg", "nope"}, {"wg", "demo", "-n", "x"}} {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, _ := runCLI("wg", "run", "-config", filepath.Join(dir, "missing.json")); code == 0 {
		t.Error("wg run with a missing config succeeded")
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"interface": "wg0", "mode": "fresh", "state_dir": "/tmp", "key_file": "k", "peers": ["x"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("wg", "run", "-config", bad); code != 1 || !strings.Contains(errOut, "bad configuration") {
		t.Errorf("wg run with a bad config: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI("wg", "run"); code != 2 {
		t.Errorf("wg run without -config: exit %d, want 2", code)
	}
}
