package spake2plus_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/pake"
	"github.com/kexlab/kexlab/pake/spake2plus"
)

// TestAdapter checks the uniform adapter's registration record and its
// refusal of records that do not fit (each call runs scrypt once).
func TestAdapter(t *testing.T) {
	s, err := pake.Lookup("spake2plus")
	if err != nil {
		t.Fatal(err)
	}
	info := s.Info()
	if !info.Augmented || !info.KeyConfirmation || info.Spec != "RFC 9383" || info.Suite != spake2plus.Suite {
		t.Errorf("Info: %+v", info)
	}
	c := pake.Credentials{Password: []byte("pw"), ClientID: []byte("alice"), ServerID: []byte("srv"), Context: []byte("ctx")}
	record, err := s.Register(rand.Reader, c)
	if err != nil {
		t.Fatal(err)
	}
	// The record is salt || w0 || L, with the identities' salt and the
	// scrypt registration of RFC 9383, Section 3.2.
	salt := spake2plus.IdentitySalt(c.ClientID, c.ServerID)
	w0, _, L, err := spake2plus.Register(c.Password, c.ClientID, c.ServerID, spake2plus.Scrypt(salt))
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append(bytes.Clone(salt), w0...), L...); !bytes.Equal(record, want) {
		t.Errorf("record %x, want salt || w0 || L = %x", record, want)
	}

	other := c
	other.ClientID = []byte("bob")
	if _, err := s.NewServer(rand.Reader, other, record); !errors.Is(err, pake.ErrInvalidParameter) {
		t.Errorf("record for other identities: got %v, want ErrInvalidParameter", err)
	}
	for _, bad := range [][]byte{nil, record[:len(record)-1], append(bytes.Clone(record), 0)} {
		if _, err := s.NewServer(rand.Reader, c, bad); !errors.Is(err, pake.ErrInvalidParameter) {
			t.Errorf("record of %d bytes: got %v, want ErrInvalidParameter", len(bad), err)
		}
	}
	empty := c
	empty.Password = nil
	if _, err := s.Register(rand.Reader, empty); !errors.Is(err, pake.ErrInvalidParameter) {
		t.Errorf("empty password: got %v, want ErrInvalidParameter", err)
	}
}
