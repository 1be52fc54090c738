package keysource

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/kexlab/kexlab/internal/fileio"
)

// This file reads and writes the small secret files of the key sources:
// key files, PIN and authorization-value files (read), and every file key
// material is written to (WriteNewFile).

// PermissionError reports a secret file whose mode lets group or others
// read or write it. It matches ErrPermissions with errors.Is.
type PermissionError struct {
	Path string
	Mode fs.FileMode
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("keysource: %s has mode %04o; it must not be accessible to group or others (chmod 600)", e.Path, e.Mode.Perm())
}

// Is makes errors.Is(err, ErrPermissions) true.
func (e *PermissionError) Is(target error) bool { return target == ErrPermissions }

// maxSecretFile bounds what ReadSecretFile reads.
const maxSecretFile = 4096

// ReadSecretFile reads a small secret file (a key or a PIN) through
// fileio.ReadFileCheck, refusing a file that is not a regular file or is
// larger than 4 KiB (ErrKeyFile), or whose permission bits grant anything
// to group or others (a *PermissionError). The check is made on the open
// file, so the file cannot be swapped between check and read.
func ReadSecretFile(path string) ([]byte, error) {
	b, err := fileio.ReadFileCheck(path, maxSecretFile, func(fi fs.FileInfo) error {
		if fi.Mode().Perm()&0o077 != 0 {
			return &PermissionError{Path: path, Mode: fi.Mode()}
		}
		return nil
	})
	var pe *PermissionError
	switch {
	case errors.As(err, &pe):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	return b, nil
}

// ReadPINFile reads a PIN, or a TPM authorization value, from a file:
// ReadSecretFile (a regular file of at most 4 KiB, mode 0600 or stricter),
// with any trailing CR and LF characters removed. An empty value is
// ErrPIN. The caller clears the result when done.
func ReadPINFile(path string) ([]byte, error) {
	b, err := ReadSecretFile(path)
	if err != nil {
		return nil, err
	}
	n := len(b)
	for n > 0 && (b[n-1] == '\n' || b[n-1] == '\r') {
		n--
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: %s is empty", ErrPIN, path)
	}
	// What is cut off is line ends only, nothing secret.
	return b[:n], nil
}

// ExistsError: WriteNewFile found something at Path already (a file, a
// directory, a symbolic link whether its target exists or not). It
// matches ErrKeyFile and fs.ErrExist with errors.Is.
type ExistsError struct {
	Path string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("keysource: %s already exists; key material is written only to a new file, never over a file or through a symbolic link (remove it or choose another name)", e.Path)
}

// Is makes errors.Is(err, ErrKeyFile) and errors.Is(err, fs.ErrExist)
// true.
func (e *ExistsError) Is(target error) bool { return target == ErrKeyFile || target == fs.ErrExist }

// WriteNewFile writes data to a new file at path with mode 0600 and syncs
// it: every file that key material is written to (key files, wrapped
// keys, TPM key blobs) is made by it. The file is created with
// O_CREAT|O_EXCL|O_NOFOLLOW, so an existing path is refused with an
// *ExistsError and left untouched, whatever it is: a file is not
// truncated, and a symbolic link is not followed, whether its target
// exists or not (a link planted where a key is to be written cannot
// redirect the key). Directories above path may be symbolic links. If
// writing fails, the partial file is removed. Other errors match
// ErrKeyFile.
func WriteNewFile(path string, data []byte) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if err != nil {
		// O_EXCL reports a symbolic link as EEXIST; O_NOFOLLOW alone would
		// report ELOOP.
		if errors.Is(err, fs.ErrExist) || isLoop(err) {
			return &ExistsError{Path: path}
		}
		return fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("%w: %v", ErrKeyFile, cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	// The umask cannot widen 0600, but an existing ACL default could; be explicit.
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	return nil
}
