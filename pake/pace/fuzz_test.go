package pace

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/pace/internal/suite"
)

// fuzzExchange runs an honest P-256 exchange (cheap password key) in which
// the k-th message received by the chip (toChip) or by the terminal is
// replaced with msg. It fails the test if a party panics (the fuzzer
// reports that), errs with an untyped error, or the run ends with equal
// keys after a substitution that changed the message.
func fuzzExchange(t *testing.T, im bool, toChip bool, k int, msg []byte) {
	m := GenericMapping
	if im {
		m = IntegratedMapping
	}
	n := len(wantSizes(m))
	// Message indexes the chip (even) or the terminal (odd) receives.
	idx := 2*(k%(n/2)) + 1
	if toChip {
		idx = 2 * (k % (n / 2))
	}
	term, err1 := NewTerminal(rand.Reader, config(m, P256), []byte("pw"))
	chp, err2 := NewChip(rand.Reader, config(m, P256), []byte("pw"))
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	changed := false
	_, err := exchange(t, term, chp, func(j int, out []byte) []byte {
		if j == idx {
			changed = !bytes.Equal(out, msg)
			return bytes.Clone(msg)
		}
		return out
	})
	if err != nil {
		if !errors.Is(err, pakeerr.ErrInvalidMessage) && !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Fatalf("untyped error: %v", err)
		}
		return
	}
	if changed {
		t.Fatalf("message %d replaced with %x, and the run succeeded", idx+1, msg)
	}
}

// FuzzChip feeds arbitrary bytes to the chip in place of the terminal's
// request, mapping data (PK_Map,PCD or t ‖ PK_PCD), ephemeral key or
// token.
func FuzzChip(f *testing.F) {
	f.Add(false, 0, append(bytes.Clone(oidGM), 12))
	f.Add(true, 1, make([]byte, NonceSize+PointSize))
	f.Add(false, 2, suite.P256.BaseMul([]byte{2}).Bytes())
	f.Add(false, 3, make([]byte, TokenSize))
	f.Fuzz(func(t *testing.T, im bool, k int, msg []byte) {
		if k < 0 {
			k = -k
		}
		fuzzExchange(t, im, true, k, msg)
	})
}

// FuzzTerminal feeds arbitrary bytes to the terminal in place of z, the
// chip's mapping key, its ephemeral key or its token.
func FuzzTerminal(f *testing.F) {
	f.Add(false, 0, make([]byte, NonceSize))
	f.Add(false, 1, suite.P256.BaseMul([]byte{3}).Bytes())
	f.Add(true, 1, suite.P256.BaseMul([]byte{3}).Bytes())
	f.Add(false, 3, make([]byte, TokenSize))
	f.Fuzz(func(t *testing.T, im bool, k int, msg []byte) {
		if k < 0 {
			k = -k
		}
		fuzzExchange(t, im, false, k, msg)
	})
}
