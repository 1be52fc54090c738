//go:build !cgo

package p11

import (
	"fmt"

	"github.com/kexlab/kexlab/wg/keysource"
)

// This file stands in for source.go and provision.go in a build without
// cgo: the same exported API, whose constructors fail with ErrUnavailable.

func unavailable() error { return fmt.Errorf("%w: %w", keysource.ErrDevice, ErrUnavailable) }

// Source is a keysource.Source over an HMAC or AES key in a PKCS#11 token;
// this build cannot make one.
type Source struct{}

// Open returns ErrUnavailable: this program was built without cgo.
func Open(cfg Config) (*Source, error) { return nil, unavailable() }

// Name implements keysource.Source.
func (s *Source) Name() string { return "pkcs11 (unavailable without cgo)" }

// KeyType returns HMAC.
func (s *Source) KeyType() KeyType { return HMAC }

// Derive implements keysource.Source; it returns ErrUnavailable.
func (s *Source) Derive(input []byte) ([32]byte, error) { return [32]byte{}, unavailable() }

// Close implements keysource.Source.
func (s *Source) Close() error { return nil }

var _ keysource.Source = (*Source)(nil)

// Token is an administrative session on a token; this build cannot make one.
type Token struct {
	// ephemeral mirrors the cgo Token's field, so that the package's tests
	// compile in both builds (they skip without cgo: see internal/hsmtest).
	ephemeral bool
}

// OpenToken returns ErrUnavailable: this program was built without cgo.
func OpenToken(cfg Config) (*Token, error) { return nil, unavailable() }

// Close ends the session.
func (t *Token) Close() error { return nil }

// GenerateKey returns ErrUnavailable.
func (t *Token) GenerateKey(label string) error { return unavailable() }

// GenerateAESKey returns ErrUnavailable.
func (t *Token) GenerateAESKey(label string) error { return unavailable() }

// ImportKey returns ErrUnavailable.
func (t *Token) ImportKey(label string, key []byte) error { return unavailable() }

// ImportKEK returns ErrUnavailable.
func (t *Token) ImportKEK(label string, kek []byte) error { return unavailable() }

// WrapMechanism returns ErrUnavailable.
func (t *Token) WrapMechanism() (WrapMechanism, error) { return 0, unavailable() }

// Export returns ErrUnavailable.
func (t *Token) Export(keyLabel, kekLabel string) (Wrapped, error) { return Wrapped{}, unavailable() }

// Import returns ErrUnavailable.
func (t *Token) Import(label, kekLabel string, w Wrapped) error { return unavailable() }

// DeleteKey returns ErrUnavailable.
func (t *Token) DeleteKey(label string) error { return unavailable() }
