package tpm

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kexlab/kexlab/internal/hsmtest"
	"github.com/kexlab/kexlab/wg/keysource"
)

func importKey(t testing.TB, dev string, key []byte) []byte {
	t.Helper()
	tr, err := OpenTransport(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	blob, err := ImportKey(tr, key)
	if err != nil {
		t.Fatal(err)
	}
	return blob
}

// TestVectors imports each vector's key into a swtpm emulator and checks
// TPM2_HMAC against the tag: RFC 4231 test cases 1–4 (keys of 4 to 25
// bytes) and Wycheproof's 32-byte-key cases.
func TestVectors(t *testing.T) {
	dev := hsmtest.SWTPM(t, false)
	vs := hsmtest.RFC4231(1, 128)
	vs = append(vs, hsmtest.Wycheproof(t)...)
	for _, v := range vs {
		s, err := Open(dev, importKey(t, dev, v.Key))
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		got, err := s.Derive(v.Msg)
		s.Close()
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if bytes.Equal(got[:], v.Tag) != v.Valid {
			t.Errorf("%s: got %x, tag %x, valid=%v", v.Name, got, v.Tag, v.Valid)
		}
	}
}

// TestTCPAndBlobFile runs the TCP transport, a blob stored in a file, and a
// source reopened after the first was closed (a restarted daemon).
func TestTCPAndBlobFile(t *testing.T) {
	dev := hsmtest.SWTPM(t, true)
	key := bytes.Repeat([]byte{0x42}, 32)
	p := filepath.Join(t.TempDir(), "key.tpm")
	if err := os.WriteFile(p, importKey(t, dev, key), 0o600); err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("input"))
	want := m.Sum(nil)
	for range 2 {
		s, err := OpenFile(dev, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Derive([]byte("input"))
		if err != nil || !bytes.Equal(got[:], want) {
			t.Fatalf("got %x, %v; want %x", got, err, want)
		}
		if _, err := s.Derive(make([]byte, keysource.MaxInputLen)); err != nil {
			t.Fatalf("MaxInputLen input: %v", err)
		}
		if _, err := s.Derive(make([]byte, keysource.MaxInputLen+1)); !errors.Is(err, keysource.ErrInputTooLong) {
			t.Fatalf("long input: %v", err)
		}
		s.Close()
		if _, err := s.Derive(nil); !errors.Is(err, keysource.ErrClosed) {
			t.Fatalf("after Close: %v", err)
		}
	}
}

func TestErrors(t *testing.T) {
	dev := hsmtest.SWTPM(t, false)
	blob := importKey(t, dev, make([]byte, 32))
	if _, err := Open(filepath.Join(t.TempDir(), "nosock"), blob); !errors.Is(err, keysource.ErrTokenNotFound) {
		t.Errorf("missing device: %v", err)
	}
	if _, err := Open("unix:"+filepath.Join(t.TempDir(), "nosock"), blob); !errors.Is(err, keysource.ErrTokenNotFound) {
		t.Errorf("missing socket: %v", err)
	}
	// A blob of another TPM does not load.
	other := hsmtest.SWTPM(t, false)
	if _, err := Open(other, blob); !errors.Is(err, keysource.ErrKeyNotFound) {
		t.Errorf("blob of another TPM: %v", err)
	}
	bad := bytes.Clone(blob)
	bad[len(bad)-5] ^= 1
	if s, err := Open(dev, bad); err == nil {
		s.Close()
		t.Error("modified private blob loaded")
	}
	if _, err := ImportKey(nil, nil); !errors.Is(err, keysource.ErrKeyFile) {
		t.Errorf("empty key: %v", err)
	}
}

func FuzzParseBlob(f *testing.F) {
	f.Add([]byte(blobMagic + "\x00\x01a\x00\x01b"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseBlob(b)
	})
}

func BenchmarkDeriveSWTPM(b *testing.B) {
	dev := hsmtest.SWTPM(b, false)
	s, err := Open(dev, importKey(b, dev, make([]byte, 32)))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	in := make([]byte, 80)
	for b.Loop() {
		if _, err := s.Derive(in); err != nil {
			b.Fatal(err)
		}
	}
}
