package keysource

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/internal/sysrand"
)

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

// The key file holds the 32-byte key in standard base64 (44 characters),
// optionally followed by a newline: the format of `wg genpsk`, so a key
// made by either tool works with the other.
func parseKeyFile(b []byte) ([KeySize]byte, error) {
	var key [KeySize]byte
	t := bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
	if len(t) != base64.StdEncoding.EncodedLen(KeySize) {
		return key, fmt.Errorf("%w: want 32 bytes in base64 (44 characters)", ErrKeyFile)
	}
	var buf [33]byte
	n, err := base64.StdEncoding.Strict().Decode(buf[:], t)
	if err != nil || n != KeySize {
		clear(buf[:])
		return key, fmt.Errorf("%w: not base64 of 32 bytes", ErrKeyFile)
	}
	copy(key[:], buf[:])
	clear(buf[:])
	return key, nil
}

// CreateKeyFile writes a new random 32-byte key to path with mode 0600,
// failing if path exists. rand is the randomness source (crypto/rand.Reader
// if nil).
func CreateKeyFile(path string, random io.Reader) error {
	random = sysrand.Or(random)
	var key [KeySize]byte
	defer clear(key[:])
	if _, err := io.ReadFull(random, key[:]); err != nil {
		return fmt.Errorf("keysource: reading randomness: %w", err)
	}
	return WriteKeyFile(path, key[:])
}

// WriteKeyFile writes a given 32-byte key to a new file at path with mode
// 0600 (used to provision a key that also lives in a token or a TPM),
// failing if path exists. The file is synced before WriteKeyFile returns.
func WriteKeyFile(path string, key []byte) (err error) {
	if len(key) != KeySize {
		return fmt.Errorf("%w: key must be %d bytes", ErrKeyFile, KeySize)
	}
	enc := make([]byte, base64.StdEncoding.EncodedLen(KeySize)+1)
	defer clear(enc)
	base64.StdEncoding.Encode(enc, key)
	enc[len(enc)-1] = '\n'
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
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
	if _, err := f.Write(enc); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	return nil
}

// File is a Source whose key is held in process memory, read from a key
// file. It is for users without hardware: anyone who can read the file or
// the process's memory has the key.
type File struct {
	name string
	mu   sync.Mutex
	key  [KeySize]byte
	open bool
}

// OpenFile reads the key file at path (see CreateKeyFile for the format)
// and returns a Source. The file must not be accessible to group or others.
func OpenFile(path string) (*File, error) {
	b, err := ReadSecretFile(path)
	if err != nil {
		return nil, err
	}
	defer clear(b)
	key, err := parseKeyFile(b)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	s := NewFile(key, "file:"+path)
	clear(key[:])
	return s, nil
}

// NewFile returns a Source over a key already in memory; name is what Name
// reports. The key is copied.
func NewFile(key [KeySize]byte, name string) *File {
	return &File{name: name, key: key, open: true}
}

// Name implements Source.
func (s *File) Name() string { return s.name }

// Derive implements Source: HMAC-SHA256(K, input).
func (s *File) Derive(input []byte) ([32]byte, error) {
	var out [32]byte
	if err := CheckInput(input); err != nil {
		return out, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open {
		return out, ErrClosed
	}
	// crypto/hmac keeps copies of the padded key inside its hash states;
	// they are garbage once h is, but cannot be zeroed from here.
	h := hmac.New(sha256.New, s.key[:])
	h.Write(input)
	h.Sum(out[:0])
	return out, nil
}

// Close zeroes the key. It is idempotent.
func (s *File) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.key[:])
	s.open = false
	return nil
}

var _ Source = (*File)(nil)
