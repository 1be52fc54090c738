// Package fileio reads files named by users (command-line arguments,
// configuration entries) safely: only regular files, and never more than a
// limit the caller states, so that /dev/zero, a FIFO, a directory or a huge
// file ends in a clear error instead of a hang or an out-of-memory crash.
//
// Every reader of a user-supplied path in kexlab goes through ReadFile (or
// ReadFileCheck); the limits are documented where they are chosen.
package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// ErrNotRegular matches a *NotRegularError.
var ErrNotRegular = errors.New("fileio: not a regular file")

// ErrTooLarge matches a *TooLargeError.
var ErrTooLarge = errors.New("fileio: file too large")

// NotRegularError: the path names a directory, a device, a FIFO, a socket
// or anything else that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, describe(e.Mode))
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TooLargeError: the file holds more than Max bytes.
type TooLargeError struct {
	Path string
	// Size is the file's size when it was opened, or -1 when it grew past
	// Max while it was read.
	Size int64
	Max  int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s grew past the %s limit while it was read", e.Path, exactSize(e.Max))
	}
	return fmt.Sprintf("%s is %s, over the %s limit", e.Path, exactSize(e.Size), exactSize(e.Max))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// ReadFile reads the regular file at path, refusing anything else (a
// *NotRegularError) and a file of more than max bytes (a *TooLargeError).
// Errors of opening and reading are the *fs.PathError of package os, so
// errors.Is(err, fs.ErrNotExist) works.
func ReadFile(path string, max int64) ([]byte, error) {
	return ReadFileCheck(path, max, nil)
}

// ReadFileCheck is ReadFile with check, when not nil, called on the open
// file's information before anything is read; an error from check is
// returned as it is. Checking the open file (not the path) means the file
// cannot be swapped between the check and the read. A buffer that is
// refused (too large, or a read error) is zeroed, so secrets do not linger.
func ReadFileCheck(path string, max int64, check func(fs.FileInfo) error) ([]byte, error) {
	// Stat before opening: opening a FIFO for reading blocks until a
	// writer appears, and opening some devices has side effects.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > max {
		return nil, &TooLargeError{Path: path, Size: fi.Size(), Max: max}
	}
	if check != nil {
		if err := check(fi); err != nil {
			return nil, err
		}
	}
	// Read at most max+1 bytes: one more than allowed tells a file that
	// grew after Stat from one that is exactly max bytes long.
	r := io.LimitReader(f, max+1)
	b := make([]byte, 0, fi.Size()+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			clear(b[:cap(b)])
			return nil, err
		}
	}
	if int64(len(b)) > max {
		clear(b[:cap(b)])
		return nil, &TooLargeError{Path: path, Size: -1, Max: max}
	}
	return b, nil
}

// FormatSize writes a byte count the way limits are documented: "256 MiB",
// "4 KiB", "1.5 MiB", "100 bytes".
func FormatSize(n int64) string {
	const kib, mib, gib = 1 << 10, 1 << 20, 1 << 30
	unit := func(d int64, name string) string {
		if n%d == 0 {
			return fmt.Sprintf("%d %s", n/d, name)
		}
		return fmt.Sprintf("%.1f %s", float64(n)/float64(d), name)
	}
	switch {
	case n >= gib:
		return unit(gib, "GiB")
	case n >= mib:
		return unit(mib, "MiB")
	case n >= kib:
		return unit(kib, "KiB")
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// exactSize is FormatSize with the byte count added where FormatSize
// rounds ("256.0 MiB" may be one byte over 256 MiB).
func exactSize(n int64) string {
	s := FormatSize(n)
	if strings.Contains(s, ".") {
		s += fmt.Sprintf(" (%d bytes)", n)
	}
	return s
}

// describe names the kind of a file that is not regular.
func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}
