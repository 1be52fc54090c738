//go:build unix

package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadFileNotRegular: devices, directories and FIFOs are refused
// without blocking or reading.
func TestReadFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{
		"/dev/zero": "a character device",
		"/dev/null": "a character device",
		dir:         "a directory",
		fifo:        "a named pipe", // would block in os.Open
	} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(path, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) || !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s: err %v", path, err)
			} else if want := path + " is " + kind + ", not a regular file"; err.Error() != want {
				t.Errorf("%s: message %q, want %q", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: ReadFile blocked", path)
		}
	}
	// A symbolic link to a regular file is followed.
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(link, 1); err != nil || string(b) != "x" {
		t.Errorf("symlink: %v %q", err, b)
	}
}
