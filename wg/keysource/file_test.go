package keysource

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/hsmtest"
)

func writeKey(t *testing.T, key []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "key")
	if err := WriteKeyFile(p, key); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFileWycheproof(t *testing.T) {
	for _, v := range hsmtest.Wycheproof(t) {
		s, err := OpenFile(writeKey(t, v.Key))
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Derive(v.Msg)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if bytes.Equal(got[:], v.Tag) != v.Valid {
			t.Errorf("%s: got %x, tag %x, valid=%v", v.Name, got, v.Tag, v.Valid)
		}
		s.Close()
	}
}

func TestKeyFileFormat(t *testing.T) {
	// The format of `wg genpsk`: base64 and a newline.
	key := bytes.Repeat([]byte{0x5a}, 32)
	p := writeKey(t, key)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := base64.StdEncoding.EncodeToString(key) + "\n"; string(b) != want {
		t.Fatalf("key file %q, want %q", b, want)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if err := WriteKeyFile(p, key); !errors.Is(err, ErrKeyFile) {
		t.Fatalf("overwriting an existing key file: %v", err)
	}
	if err := WriteKeyFile(p+"2", key[:31]); !errors.Is(err, ErrKeyFile) {
		t.Fatalf("31-byte key: %v", err)
	}
	for _, bad := range []string{"", "\n", strings.Repeat("A", 43), strings.Repeat("A", 44), // 44 A's decode to 33 bytes
		base64.StdEncoding.EncodeToString(key[:31]), base64.StdEncoding.EncodeToString(key) + "\n\n",
		base64.StdEncoding.EncodeToString(append(key, 0))} {
		q := filepath.Join(t.TempDir(), "k")
		os.WriteFile(q, []byte(bad), 0o600)
		if _, err := OpenFile(q); !errors.Is(err, ErrKeyFile) {
			t.Errorf("key file %q: err = %v, want ErrKeyFile", bad, err)
		}
	}
}

func TestKeyFilePermissions(t *testing.T) {
	p := writeKey(t, make([]byte, 32))
	for _, mode := range []os.FileMode{0o640, 0o604, 0o660, 0o644, 0o602} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		_, err := OpenFile(p)
		var pe *PermissionError
		if !errors.As(err, &pe) || !errors.Is(err, ErrPermissions) || pe.Path != p || pe.Mode.Perm() != mode {
			t.Errorf("mode %o: err = %v, want *PermissionError", mode, err)
		}
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		os.Chmod(p, mode)
		s, err := OpenFile(p)
		if err != nil {
			t.Errorf("mode %o: %v", mode, err)
			continue
		}
		s.Close()
	}
	if _, err := OpenFile(filepath.Dir(p)); !errors.Is(err, ErrKeyFile) && !errors.Is(err, ErrPermissions) {
		t.Errorf("directory as key file: %v", err)
	}
	if _, err := OpenFile(p + ".missing"); !errors.Is(err, ErrKeyFile) {
		t.Errorf("missing key file: %v", err)
	}
}

func TestCreateKeyFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "key")
	seed := bytes.NewReader(bytes.Repeat([]byte{7}, 32))
	if err := CreateKeyFile(p, seed); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, _ := s.Derive([]byte("x"))
	m := hmac.New(sha256.New, bytes.Repeat([]byte{7}, 32))
	m.Write([]byte("x"))
	if !bytes.Equal(got[:], m.Sum(nil)) {
		t.Fatal("created key is not the one read from the reader")
	}
	if err := CreateKeyFile(filepath.Join(t.TempDir(), "k"), bytes.NewReader(nil)); err == nil {
		t.Fatal("short randomness accepted")
	}
}

func TestFileLimitsAndClose(t *testing.T) {
	s := NewFile([32]byte{1}, "mem")
	if s.Name() != "mem" {
		t.Fatal(s.Name())
	}
	if _, err := s.Derive(make([]byte, MaxInputLen)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Derive(make([]byte, MaxInputLen+1)); !errors.Is(err, ErrInputTooLong) {
		t.Fatalf("long input: %v", err)
	}
	s.Close()
	s.Close()
	if _, err := s.Derive(nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if s.key != [32]byte{} {
		t.Fatal("Close did not zero the key")
	}
}

func FuzzKeyFile(f *testing.F) {
	f.Add([]byte(base64.StdEncoding.EncodeToString(make([]byte, 32)) + "\n"))
	f.Add([]byte("not a key"))
	f.Fuzz(func(t *testing.T, b []byte) {
		key, err := parseKeyFile(b)
		if err == nil {
			enc := base64.StdEncoding.EncodeToString(key[:])
			if s := strings.TrimRight(string(b), "\r\n"); s != enc {
				t.Fatalf("accepted %q as %q", b, enc)
			}
		}
	})
}

func BenchmarkDeriveFile(b *testing.B) {
	s := NewFile([32]byte{1}, "mem")
	in := make([]byte, 80)
	for b.Loop() {
		s.Derive(in)
	}
}
