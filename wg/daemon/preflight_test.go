package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func preflightConfig(t *testing.T) (*Config, string) {
	t.Helper()
	dir := t.TempDir()
	c, err := Parse([]byte(`{"interface": "kxpre", "mode": "timestamp", "state_dir": "/s", "peers": ["` + keyA + `"], "key_file": "/k"}`))
	if err != nil {
		t.Fatal(err)
	}
	c.StateDir, c.LockDir = filepath.Join(dir, "state", "wg0"), filepath.Join(dir, "lock")
	cfg := filepath.Join(dir, "wg.json")
	if err := os.WriteFile(cfg, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	return c, cfg
}

func wantPreflight(t *testing.T, err error, subs ...string) {
	t.Helper()
	if !errors.Is(err, ErrPreflight) {
		t.Fatalf("want ErrPreflight, got %v", err)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q lacks %q", err, s)
		}
	}
}

func TestPreflightStateDir(t *testing.T) {
	c, cfg := preflightConfig(t)
	// Missing (with its parent): created 0700, and said so.
	locks, notes, err := preflight(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locks {
		l.Release()
	}
	fi, err := os.Stat(c.StateDir)
	if err != nil || fi.Mode().Perm() != 0o700 || len(notes) != 1 || !strings.Contains(notes[0], "created state_dir") {
		t.Fatalf("state_dir %v %v, notes %q", fi, err, notes)
	}
	// Group-writable.
	os.Chmod(c.StateDir, 0o770)
	_, _, err = preflight(c, cfg)
	wantPreflight(t, err, c.StateDir, "writable by group or others", "0770")
	os.Chmod(c.StateDir, 0o700)
	// Not a directory.
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o600)
	c2 := *c
	c2.StateDir = f
	_, _, err = preflight(&c2, cfg)
	wantPreflight(t, err, "not a directory")
	// Cannot be created (its parent is a file).
	c2.StateDir = filepath.Join(f, "sub")
	_, _, err = preflight(&c2, cfg)
	wantPreflight(t, err, "state_dir", "not a directory")
	// Owned by someone else (as root), or not writable (as another user:
	// root writes anywhere).
	if os.Geteuid() == 0 {
		os.Chown(c.StateDir, 65534, 65534)
		_, _, err = preflight(c, cfg)
		wantPreflight(t, err, "owned by uid 65534", "chown")
		os.Chown(c.StateDir, 0, 0)
	} else {
		os.Chmod(c.StateDir, 0o500)
		_, _, err = preflight(c, cfg)
		wantPreflight(t, err, "not writable")
		os.Chmod(c.StateDir, 0o700)
	}
	// A read-only file system is caught by the probe file; a read-only
	// bind mount needs privileges, so it is left to the netns test's
	// machine (root): here the probe's error path is the same code.
}

func TestPreflightFiles(t *testing.T) {
	c, cfg := preflightConfig(t)
	os.Chmod(cfg, 0o666)
	_, _, err := preflight(c, cfg)
	wantPreflight(t, err, "config file", cfg, "0666")
	os.Chmod(cfg, 0o600)

	mod := filepath.Join(t.TempDir(), "libtoken.so")
	os.WriteFile(mod, nil, 0o755)
	os.Chmod(mod, 0o775)
	c.KeyFile, c.P11 = "", &P11Config{Module: mod, TokenLabel: "t", KeyLabel: "k", PINFile: "/p"}
	_, _, err = preflight(c, cfg)
	wantPreflight(t, err, "PKCS#11 module", mod, "0775")
	os.Chmod(mod, 0o755)
	locks, _, err := preflight(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locks {
		l.Release()
	}
}

func TestPreflightLocks(t *testing.T) {
	c, cfg := preflightConfig(t)
	locks, _, err := preflight(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The same interface, another state_dir: refused with the pid.
	c2 := *c
	c2.StateDir = filepath.Join(t.TempDir(), "other")
	_, _, err = preflight(&c2, cfg)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "interface kxpre") || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second daemon on the interface: %v", err)
	}
	// The same state_dir, another interface: refused too.
	c3 := *c
	c3.Interface = "kxpre2"
	_, _, err = preflight(&c3, cfg)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "state_dir") {
		t.Fatalf("second daemon on the state_dir: %v", err)
	}
	// Released (or the first daemon died): the next one starts.
	for _, l := range locks {
		l.Release()
	}
	locks, _, err = preflight(&c2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locks {
		l.Release()
	}
}

func TestErrorLogBackoff(t *testing.T) {
	var g errorLog
	t0 := time.Unix(1e9, 0)
	shown := 0
	var repeats []int
	for i := range 3600 { // an hour of one error per second
		if ok, r := g.admit(t0.Add(time.Duration(i)*time.Second), "interface gone"); ok {
			shown++
			repeats = append(repeats, r)
		}
	}
	if shown < 5 || shown > 12 {
		t.Fatalf("%d lines for an hour of errors (repeats %v)", shown, repeats)
	}
	total := len(repeats)
	for _, r := range repeats {
		total += r
	}
	if total > 3600 || total < 3000 {
		t.Fatalf("counts %v do not add up to the errors", repeats)
	}
	if ok, _ := g.admit(t0.Add(3601*time.Second), "another error"); !ok {
		t.Fatal("a new error was held back")
	}
}

func TestParseStatus(t *testing.T) {
	good := `{"peer":"` + keyA + `","mode":"fresh","epoch":1,"index":2,"failures":0,"last_event":"applied"}`
	if s, err := ParseStatus([]byte(good)); err != nil || s.Index != 2 {
		t.Fatalf("%+v %v", s, err)
	}
	for _, bad := range []string{"", "{}", `{"peer":"x"}`, good + "{}", `{"peer":"` + keyA + `","extra":1}`,
		`{"peer":"` + keyA + `","failures":-1}`, strings.Repeat(" ", maxStatusFile+1)} {
		if _, err := ParseStatus([]byte(bad)); !errors.Is(err, ErrStatus) {
			t.Errorf("ParseStatus(%.40q) = %v", bad, err)
		}
	}
}

func FuzzParseStatus(f *testing.F) {
	f.Add([]byte(`{"peer":"` + keyA + `","mode":"fresh","epoch":1,"index":2,"failures":0,"last_event":"applied","last_handshake":"2026-11-28T00:00:00Z"}`))
	f.Add([]byte(`{"peer":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStatus(b)
		if err != nil && !errors.Is(err, ErrStatus) {
			t.Fatalf("untyped error %v", err)
		}
		if err == nil && (s.Failures < 0 || s.PID < 0) {
			t.Fatalf("accepted %+v", s)
		}
	})
}
