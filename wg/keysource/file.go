package keysource

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"sync"

	"github.com/kexlab/kexlab/internal/sysrand"
)

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
// failing if path exists (see WriteNewFile). The file is synced before
// WriteKeyFile returns.
func WriteKeyFile(path string, key []byte) error {
	if len(key) != KeySize {
		return fmt.Errorf("%w: key must be %d bytes", ErrKeyFile, KeySize)
	}
	enc := make([]byte, base64.StdEncoding.EncodedLen(KeySize)+1)
	defer clear(enc)
	base64.StdEncoding.Encode(enc, key)
	enc[len(enc)-1] = '\n'
	return WriteNewFile(path, enc)
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
	//
	// The digest goes through a heap slice that is cleared: summing into
	// out[:0] through the hash.Hash interface made out escape, leaving one
	// copy of every output (every PSK) in the heap.
	h := hmac.New(sha256.New, s.key[:])
	h.Write(input)
	sum := h.Sum(make([]byte, 0, sha256.Size))
	copy(out[:], sum)
	clear(sum)
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
