package fileio

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	want := bytes.Repeat([]byte("kexlab"), 1000)
	if err := os.WriteFile(p, want, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{int64(len(want)), int64(len(want)) + 1, 1 << 20} {
		got, err := ReadFile(p, max)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("max %d: %v, %d bytes", max, err, len(got))
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(empty, 0); err != nil || len(got) != 0 {
		t.Fatalf("empty file: %v, %q", err, got)
	}
	if _, err := ReadFile(dir, 1<<20); !errors.Is(err, ErrNotRegular) || err.Error() != dir+" is a directory, not a regular file" {
		t.Errorf("directory: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadFileTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sparse")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Sparse: no disk, and fast; the limit is checked before reading.
	if err := os.Truncate(p, 3<<30); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(p, 256<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Size != 3<<30 || tl.Max != 256<<20 {
		t.Fatalf("err %v", err)
	}
	if msg := err.Error(); msg != p+" is 3 GiB, over the 256 MiB limit" {
		t.Errorf("message %q", msg)
	}
	_, err = ReadFile(p, 3<<30-1)
	if want := p + " is 3 GiB, over the 3.0 GiB (3221225471 bytes) limit"; !errors.Is(err, ErrTooLarge) || err.Error() != want {
		t.Errorf("one byte over: %v, want %q", err, want)
	}
}

func TestReadFileCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	errMode := errors.New("mode")
	_, err := ReadFileCheck(p, 10, func(fi fs.FileInfo) error {
		if fi.Mode().Perm()&0o077 != 0 {
			return errMode
		}
		return nil
	})
	if err != errMode {
		t.Errorf("check error not returned as it is: %v", err)
	}
	// The size limit comes before the check.
	_, err = ReadFileCheck(p, 0, func(fs.FileInfo) error { return errMode })
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit before check: %v", err)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1: "1 byte", 100: "100 bytes", 4096: "4 KiB", 1 << 20: "1 MiB",
		3 << 19: "1.5 MiB", 256 << 20: "256 MiB", 3 << 30: "3 GiB",
	} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
	if strings.Contains(FormatSize(1<<20+1), "bytes") {
		t.Error("a size over 1 MiB in bytes")
	}
}
