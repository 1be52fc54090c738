package opaque

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// The message handlers must reject bad input with a typed error and never
// panic. The parsers' fuzz targets are in internal/protocol.

// FuzzStoredRecord parses a stored record and builds a server from it.
func FuzzStoredRecord(f *testing.F) {
	keys, _ := GenerateServerKeys(rand.Reader)
	rec, _ := NewFakeRecord(rand.Reader)
	f.Add((&StoredRecord{Keys: *keys, Record: rec, CredentialIdentifier: []byte("alice")}).Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseStoredRecord(b)
		if err == nil {
			if !bytes.Equal(r.Bytes(), b) {
				t.Fatalf("round trip: %x became %x", b, r.Bytes())
			}
			_, err = NewServer(Config{}, &r.Keys)
		}
		if err != nil && !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Fatalf("untyped error: %v", err)
		}
	})
}

// fuzzFixture is a registered client with the identity KSF, shared by the
// handler fuzz targets.
func fuzzFixture(f *testing.F) *fixture {
	return newFixture(f, pw, Identities{Client: []byte("alice"), Server: []byte("bob")})
}

// FuzzServer feeds arbitrary KE1 and KE3 to the server, and arbitrary
// registration requests.
func FuzzServer(f *testing.F) {
	fx := fuzzFixture(f)
	c, _ := NewClientParty(rand.Reader, fx.cfg, pw, fx.ids)
	ke1, _ := c.Next(nil)
	f.Add(ke1, make([]byte, KE3Size))
	f.Fuzz(func(t *testing.T, ke1, ke3 []byte) {
		if req, err := ParseRegistrationRequest(ke1[:min(len(ke1), RegistrationRequestSize)]); err == nil {
			if _, err := fx.server.CreateRegistrationResponse(req, fx.cid); err != nil {
				t.Fatalf("CreateRegistrationResponse on a parsed request: %v", err)
			}
		}
		s, _ := NewServerParty(rand.Reader, fx.server, fx.record, fx.cid, fx.ids)
		if _, err := s.Next(ke1); err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Fatalf("KE1: untyped error: %v", err)
			}
			return
		}
		if _, err := s.Next(ke3); !errors.Is(err, pakeerr.ErrInvalidMessage) && !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Fatalf("KE3: got %v, want a typed rejection", err)
		}
	})
}

// FuzzClient feeds arbitrary KE2 to the client, and arbitrary registration
// responses.
func FuzzClient(f *testing.F) {
	fx := fuzzFixture(f)
	c, _ := NewClientParty(rand.Reader, fx.cfg, pw, fx.ids)
	s, _ := NewServerParty(rand.Reader, fx.server, fx.record, fx.cid, fx.ids)
	ke1, _ := c.Next(nil)
	ke2, _ := s.Next(ke1)
	f.Add(ke2)
	f.Fuzz(func(t *testing.T, ke2 []byte) {
		if resp, err := ParseRegistrationResponse(ke2[:min(len(ke2), RegistrationResponseSize)]); err == nil {
			reg, _, _ := fx.client.CreateRegistrationRequest(rand.Reader, pw)
			if _, _, err := reg.FinalizeRegistrationRequest(rand.Reader, resp, Identities{}); err != nil {
				t.Fatalf("FinalizeRegistrationRequest on a parsed response: %v", err)
			}
		}
		c, _ := NewClientParty(rand.Reader, fx.cfg, pw, fx.ids)
		if _, err := c.Next(nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Next(ke2); !errors.Is(err, pakeerr.ErrInvalidMessage) && !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Fatalf("KE2: got %v, want a typed rejection", err)
		}
	})
}
