package spake2_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha512"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/pake"
	"github.com/kexlab/kexlab/pake/paketest"
	"github.com/kexlab/kexlab/pake/spake2"
)

// cheapMHF stands for scrypt so that the conformance suite's hundreds of
// exchanges run in a second; the registered scheme, with scrypt, is covered
// by `go test ./pake/ -run TestConformance/spake2`.
func cheapMHF(password, salt []byte) ([]byte, error) {
	h := sha512.New()
	h.Write(salt)
	h.Write(password)
	return h.Sum(nil), nil
}

func TestConformanceCheapMHF(t *testing.T) {
	paketest.Conformance(t, pake.NewSPAKE2(pake.SPAKE2Options{MHF: cheapMHF}))
}

func TestRegistered(t *testing.T) {
	s, err := pake.Lookup("spake2")
	if err != nil {
		t.Fatal(err)
	}
	info := s.Info()
	if info.Suite != "P256-SHA256-HKDF-HMAC" || info.Spec != "RFC 9382" || !info.KeyConfirmation || info.Augmented {
		t.Errorf("Info = %+v", info)
	}
	wantSizes := [][2]int{{65, 33}, {97, 65}, {32, 32}}
	for i, m := range info.Messages {
		if m.Size != wantSizes[i][0] || m.StudySize != wantSizes[i][1] {
			t.Errorf("message %d (%s): sizes %d/%d, want %d/%d", i, m.Name, m.Size, m.StudySize, wantSizes[i][0], wantSizes[i][1])
		}
	}
	if len(s.KnownAnswerTests()) == 0 {
		t.Error("no known-answer tests")
	}
}

// TestAdapterInteroperates: the uniform client talks to a server built with
// the typed API from the documented derivation of w, and both agree.
func TestAdapterInteroperates(t *testing.T) {
	c := pake.Credentials{
		Password: []byte("pw"),
		ClientID: []byte("alice"),
		ServerID: []byte("server"),
		Context:  []byte("ctx"),
	}
	client, err := pake.NewSPAKE2(pake.SPAKE2Options{MHF: cheapMHF}).NewClient(rand.Reader, c)
	if err != nil {
		t.Fatal(err)
	}
	w, err := spake2.DeriveW(cheapMHF, c.Password, spake2.IdentitySalt(c.ClientID, c.ServerID))
	if err != nil {
		t.Fatal(err)
	}
	server, err := spake2.NewB(rand.Reader, c.ClientID, c.ServerID, c.Context, w)
	if err != nil {
		t.Fatal(err)
	}
	kc, ks, _, err := pake.Run(client, server, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kc, ks) {
		t.Fatal("keys differ")
	}
}

func TestAdapterEmptyPassword(t *testing.T) {
	s := pake.NewSPAKE2(pake.SPAKE2Options{MHF: cheapMHF})
	if _, err := s.NewClient(rand.Reader, pake.Credentials{}); !errors.Is(err, pake.ErrInvalidParameter) {
		t.Errorf("NewClient with no password: %v", err)
	}
	if _, err := s.NewServer(rand.Reader, pake.Credentials{}, nil); !errors.Is(err, pake.ErrInvalidParameter) {
		t.Errorf("NewServer with no password: %v", err)
	}
}
