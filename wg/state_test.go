package wg

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/wg/keysource"
)

func TestStateJSON(t *testing.T) {
	st := State{Version: 1, Mode: HardwareRatchet, Epoch: 1 << 40, Index: 1<<64 - 1, LastHash: [32]byte{0: 0xab, 31: 0xcd}, Failures: 2}
	b, err := st.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"mode":"hardware-ratchet","epoch":1099511627776,"index":18446744073709551615,"last_psk_hash":"ab000000000000000000000000000000000000000000000000000000000000cd","failures":2}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	got, err := ParseState(b)
	if err != nil || got != st {
		t.Fatalf("round trip: %v %+v", err, got)
	}
	h := strings.Repeat("00", 32)
	for name, bad := range map[string]string{
		"version 2":     `{"version":2,"mode":"fresh","epoch":0,"index":0,"last_psk_hash":"` + h + `","failures":0}`,
		"unknown mode":  `{"version":1,"mode":"x","epoch":0,"index":0,"last_psk_hash":"` + h + `","failures":0}`,
		"unknown field": `{"version":1,"mode":"fresh","epoch":0,"index":0,"last_psk_hash":"` + h + `","failures":0,"psk":"00"}`,
		"short hash":    `{"version":1,"mode":"fresh","epoch":0,"index":0,"last_psk_hash":"00","failures":0}`,
		"upper hex":     `{"version":1,"mode":"fresh","epoch":0,"index":0,"last_psk_hash":"` + strings.Repeat("AB", 32) + `","failures":0}`,
		"negative":      `{"version":1,"mode":"fresh","epoch":0,"index":-1,"last_psk_hash":"` + h + `","failures":0}`,
		"neg failures":  `{"version":1,"mode":"fresh","epoch":0,"index":0,"last_psk_hash":"` + h + `","failures":-1}`,
		"trailing":      `{"version":1,"mode":"fresh","epoch":0,"index":0,"last_psk_hash":"` + h + `","failures":0} {}`,
		"not JSON":      `version=1`,
		"empty":         ``,
	} {
		if _, err := ParseState([]byte(bad)); !errors.Is(err, ErrInvalidState) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestLoadStateFiles: a missing state file is fs.ErrNotExist (a fresh
// start); a directory or an oversized file is ErrInvalidState, read no
// further than the limit.
func TestLoadStateFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadState(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := LoadState(dir); !errors.Is(err, ErrInvalidState) {
		t.Errorf("directory: %v", err)
	}
	big := filepath.Join(dir, "big.state")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 1<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadState(big); !errors.Is(err, ErrInvalidState) || !strings.Contains(err.Error(), "4 KiB limit") {
		t.Errorf("large: %v", err)
	}
}

func TestStateSave(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "peer.json")
	src := keysource.NewFile(testKey, "test")
	st := NewState(HardwareRatchet)
	psk, err := StartChain(src, testPair, &st, 4)
	if err != nil {
		t.Fatal(err)
	}
	psk2, _ := Step(src, testPair, &st, nil)
	for range 2 { // the second Save replaces the first
		if err := st.Save(p); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(p)
	for _, secret := range [][32]byte{psk, psk2, testKey} {
		if bytes.Contains(b, secret[:]) || bytes.Contains(b, []byte(hex.EncodeToString(secret[:]))) {
			t.Fatal("state file contains a secret")
		}
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
	got, err := LoadState(p)
	if err != nil || got != st {
		t.Fatalf("load: %v %+v", err, got)
	}
	// A restarted rotator continues the chain where it stopped.
	a, _ := Step(src, testPair, &got, nil)
	b2, _ := Step(src, testPair, &st, nil)
	if a != b2 {
		t.Fatal("restarted rotator diverged")
	}
	if err := (State{}).Save(p); !errors.Is(err, ErrInvalidState) {
		t.Fatalf("invalid state saved: %v", err)
	}
	if err := st.Save(filepath.Join(dir, "missing", "x.json")); err == nil {
		t.Fatal("save into a missing directory")
	}
}

func FuzzParseState(f *testing.F) {
	b, _ := NewState(Fresh).MarshalJSON()
	f.Add(b)
	f.Add([]byte(`{"version":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ParseState(b)
		if err != nil {
			return
		}
		out, err := st.MarshalJSON()
		if err != nil {
			t.Fatalf("parsed state does not marshal: %v", err)
		}
		st2, err := ParseState(out)
		if err != nil || st2 != st {
			t.Fatalf("round trip: %v", err)
		}
	})
}
