package sae

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// TestZeroValues: nil and zero-value messages and tokens encode to nil,
// and a PT or PWE that is missing fails with ErrInvalidParameter.
func TestZeroValues(t *testing.T) {
	for name, b := range map[string][]byte{
		"nil Commit.Bytes":    (*Commit)(nil).Bytes(),
		"zero Commit.Bytes":   (&Commit{}).Bytes(),
		"zero Commit.Scalar":  (&Commit{}).Scalar(),
		"zero Commit.Element": (&Commit{}).Element(),
		"nil Confirm.Bytes":   (*Confirm)(nil).Bytes(),
		"nil PT.Bytes":        (*PT)(nil).Bytes(),
		"zero PT.Bytes":       (&PT{}).Bytes(),
	} {
		if b != nil {
			t.Errorf("%s = %x, want nil", name, b)
		}
	}
	for name, pt := range map[string]*PT{"nil": nil, "zero": {}} {
		if _, err := pt.PWE(staMAC, apMAC); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("PWE of a %s PT: %v, want ErrInvalidParameter", name, err)
		}
	}
	if _, err := NewSession(nil, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("NewSession with no PWE: %v, want ErrInvalidParameter", err)
	}
	if _, err := NewInitiator(nil, group.NewPoint()); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("NewInitiator with the identity as PWE: %v, want ErrInvalidParameter", err)
	}
}

// TestNilRand: sessions made with a nil reader (crypto/rand) complete SAE
// with equal PMKs, and make different commits.
func TestNilRand(t *testing.T) {
	pwe, err := HuntAndPeck(testPassword, staMAC, apMAC, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewSession(nil, pwe)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSession(nil, pwe)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Commit(), b.Commit()) {
		t.Fatal("two sessions with a nil reader made the same commit")
	}
	if err := a.ProcessCommit(b.Commit()); err != nil {
		t.Fatal(err)
	}
	if err := b.ProcessCommit(a.Commit()); err != nil {
		t.Fatal(err)
	}
	ca, _ := a.Confirm()
	cb, _ := b.Confirm()
	if err := a.VerifyConfirm(cb); err != nil {
		t.Fatal(err)
	}
	if err := b.VerifyConfirm(ca); err != nil {
		t.Fatal(err)
	}
	ka, _ := a.PMK()
	kb, _ := b.PMK()
	if !bytes.Equal(ka, kb) {
		t.Fatal("PMKs differ")
	}
}
