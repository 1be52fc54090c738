package apakepq

import (
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// TestZeroValues: a nil Record encodes to nil, and a client or server
// started from nil or zero-value secrets or records fails with
// ErrInvalidParameter.
func TestZeroValues(t *testing.T) {
	if b := (*Record)(nil).Bytes(); b != nil {
		t.Errorf("nil Record: Bytes = %x, want nil", b)
	}
	if b := (&Record{}).Bytes(); b != nil {
		t.Errorf("zero Record: Bytes = %x, want nil", b)
	}
	for name, sec := range map[string]*Secrets{"nil": nil, "zero": {}} {
		if _, err := NewClientFromSecrets(nil, sec, Session{}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("NewClientFromSecrets with %s secrets: %v, want ErrInvalidParameter", name, err)
		}
	}
	for name, r := range map[string]*Record{"nil": nil, "zero": {}} {
		if _, err := NewServer(nil, r, Session{}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("NewServer with a %s record: %v, want ErrInvalidParameter", name, err)
		}
	}
}
