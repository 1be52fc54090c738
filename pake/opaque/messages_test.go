package opaque

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

func TestStoredRecord(t *testing.T) {
	f := newFixture(t, pw, Identities{})
	keys, _ := GenerateServerKeys(rand.Reader)
	r := &StoredRecord{Keys: *keys, Record: f.record, CredentialIdentifier: []byte("user-1")}
	b := r.Bytes()
	if len(b) != 226+6 {
		t.Fatalf("stored record of %d bytes, want 232", len(b))
	}
	got, err := ParseStoredRecord(b)
	if err != nil || !bytes.Equal(got.Bytes(), b) || !bytes.Equal(got.CredentialIdentifier, []byte("user-1")) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := ParseStoredRecord(b[:225]); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("short stored record: %v", err)
	}
	b[97] ^= 0xff // the record's client public key prefix
	if _, err := ParseStoredRecord(b); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("stored record with a bad client key: %v", err)
	}
}

func TestParties(t *testing.T) {
	f := newFixture(t, pw, Identities{Client: []byte("alice")})
	c, _ := NewClientParty(rand.Reader, f.cfg, pw, Identities{Client: []byte("alice")})
	s, _ := NewServerParty(rand.Reader, f.server, f.record, f.cid, Identities{Client: []byte("alice")})
	if _, err := s.Next(nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("server Next(nil): %v", err)
	}
	if _, err := s.Next(nil); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("dead server: %v", err)
	}
	s, _ = NewServerParty(rand.Reader, f.server, f.record, f.cid, Identities{Client: []byte("alice")})
	ke1, err := c.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	ke2, err := s.Next(ke1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SessionKey(); !errors.Is(err, pakeerr.ErrState) || c.Done() {
		t.Errorf("SessionKey before the end: %v", err)
	}
	ke3, err := c.Next(ke2)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := s.Next(ke3); out != nil || err != nil || !s.Done() || !c.Done() {
		t.Fatalf("server end: %x %v", out, err)
	}
	ck, _ := c.SessionKey()
	sk, _ := s.SessionKey()
	if !bytes.Equal(ck, sk) {
		t.Errorf("keys differ")
	}
	if _, err := c.Next(ke2); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("client after the end: %v", err)
	}
	c, _ = NewClientParty(rand.Reader, f.cfg, pw, Identities{})
	if _, err := c.Next([]byte{1}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("client Next(non-nil) first: %v", err)
	}
}
