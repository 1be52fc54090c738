//go:build !cgo

package p11

import (
	"errors"
	"testing"

	"github.com/kexlab/kexlab/wg/keysource"
)

// TestUnavailable checks that a build without cgo refuses every
// constructor with ErrUnavailable (and keysource.ErrDevice).
func TestUnavailable(t *testing.T) {
	cfg := Config{Module: "/nonexistent.so", TokenLabel: "t", KeyLabel: "k", PINEnv: "X"}
	s, err := Open(cfg)
	if s != nil || !errors.Is(err, ErrUnavailable) || !errors.Is(err, keysource.ErrDevice) {
		t.Errorf("Open: %v, %v", s, err)
	}
	tok, err := OpenToken(cfg)
	if tok != nil || !errors.Is(err, ErrUnavailable) || !errors.Is(err, keysource.ErrDevice) {
		t.Errorf("OpenToken: %v, %v", tok, err)
	}
}
