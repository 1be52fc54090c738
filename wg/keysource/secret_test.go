package keysource

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteNewFile checks that key material goes only to a new file of
// mode 0600, and that an existing file, a directory and a symbolic link
// (to a file, or dangling) are refused with a one-line error naming the
// path and left as they were.
func TestWriteNewFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new")
	if err := WriteNewFile(p, []byte("secret\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "secret\n" {
		t.Fatalf("written file: %q, %v", b, err)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode() != 0o600 {
		t.Fatalf("written file mode: %v, %v", fi.Mode(), err)
	}

	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("target"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(missing, dangling); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{existing, link, dangling, sub} {
		err := WriteNewFile(path, []byte("new key"))
		var ee *ExistsError
		if !errors.As(err, &ee) || ee.Path != path || !errors.Is(err, ErrKeyFile) || !errors.Is(err, fs.ErrExist) {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, path) || strings.Contains(msg, "\n") {
			t.Errorf("message %q: want one line naming %s", msg, path)
		}
	}
	for path, want := range map[string]string{existing: "old", target: "target"} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s now holds %q (%v), want %q", path, b, err, want)
		}
	}
	if fi, err := os.Stat(existing); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("%s: mode %v, %v", existing, fi.Mode(), err)
	}
	if _, err := os.Lstat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dangling link's target was created: %v", err)
	}
	if dst, err := os.Readlink(dangling); err != nil || dst != missing {
		t.Errorf("dangling link now %q, %v", dst, err)
	}

	// A directory that does not exist: ErrKeyFile, nothing created.
	noDir := filepath.Join(dir, "nodir", "k")
	if err := WriteNewFile(noDir, []byte("x")); !errors.Is(err, ErrKeyFile) || errors.Is(err, fs.ErrExist) {
		t.Errorf("missing directory: %v", err)
	}
}

// TestReadPINFile checks the PIN and authorization-value file rules:
// trailing line ends removed, empty refused, mode checked.
func TestReadPINFile(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		"1234\n": "1234", "1234\r\n": "1234", "12 34": "12 34", "pin\n\n": "pin", "\n1\n": "\n1",
	} {
		p := filepath.Join(dir, "pin")
		os.Remove(p)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPINFile(p)
		if err != nil || !bytes.Equal(got, []byte(want)) {
			t.Errorf("%q: got %q, %v; want %q", content, got, err, want)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPINFile(empty); !errors.Is(err, ErrPIN) {
		t.Errorf("empty file: %v", err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("1234\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPINFile(open); !errors.Is(err, ErrPermissions) {
		t.Errorf("mode 0640: %v", err)
	}
	if _, err := ReadPINFile(dir); !errors.Is(err, ErrKeyFile) {
		t.Errorf("a directory: %v", err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 4097), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPINFile(big); !errors.Is(err, ErrKeyFile) {
		t.Errorf("a 4097-byte file: %v", err)
	}
}
