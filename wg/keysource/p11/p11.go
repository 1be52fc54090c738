// Package p11 is the PKCS#11 key source of the WireGuard PSK rotator: the
// shared key K is a CKK_GENERIC_SECRET object in a token (an HSM, a smart
// card, a YubiKey, SoftHSM2) and Derive(input) is C_Sign with
// CKM_SHA256_HMAC (PKCS#11 v2.40 Current Mechanisms §2.20.4, the HMAC of
// RFC 2104 with SHA-256), computed inside the token.
//
// The token is chosen by its label, the key by its CKA_LABEL, and the user
// PIN comes from a file of mode 0600 or from an environment variable, never
// from the command line. A Source opens one session, logs in once and
// serialises its operations with a mutex; a session the token has closed
// (token removed and reinserted, module restarted) is reopened once.
//
// Provisioning (Token) creates a key in a token, exports it wrapped under a
// shared AES key-encryption key with CKM_AES_KEY_WRAP_PAD (RFC 5649), or
// CKM_AES_KEY_WRAP (RFC 3394) where a token lacks it, and imports it on the
// other peer's token.
//
// The binding to the PKCS#11 library (github.com/miekg/pkcs11) needs cgo.
// A program built without cgo (CGO_ENABLED=0) keeps this package's API,
// but Open and OpenToken return ErrUnavailable; the text form of Wrapped
// keys works in both builds.
package p11

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kexlab/kexlab/wg/keysource"
)

// ErrUnavailable: the program was built without cgo, which the PKCS#11
// binding needs. Open and OpenToken return it (wrapped in
// keysource.ErrDevice) in such a build.
var ErrUnavailable = errors.New("p11: built without cgo: PKCS#11 needs cgo")

// Config selects a module, a token, a key and a PIN source.
type Config struct {
	// Module is the path of the PKCS#11 library, e.g.
	// /usr/lib/softhsm/libsofthsm2.so.
	Module string
	// TokenLabel is the token's label (CK_TOKEN_INFO.label, without padding).
	TokenLabel string
	// KeyLabel is the CKA_LABEL of the HMAC key (unused by OpenToken).
	KeyLabel string
	// PINFile names a file (mode 0600) holding the user PIN; a trailing
	// newline is ignored. Exactly one of PINFile and PINEnv must be set.
	PINFile string
	// PINEnv names an environment variable holding the user PIN.
	PINEnv string
}

// pin returns the user PIN. Go strings cannot be zeroed, and the PKCS#11
// binding takes the PIN as a string.
func (c *Config) pin() (string, error) {
	switch {
	case c.PINFile != "" && c.PINEnv != "":
		return "", fmt.Errorf("%w: set PINFile or PINEnv, not both", keysource.ErrPIN)
	case c.PINFile != "":
		b, err := keysource.ReadSecretFile(c.PINFile)
		if err != nil {
			return "", err
		}
		defer clear(b)
		p := strings.TrimRight(string(b), "\r\n")
		if p == "" {
			return "", fmt.Errorf("%w: %s is empty", keysource.ErrPIN, c.PINFile)
		}
		return p, nil
	case c.PINEnv != "":
		p, ok := os.LookupEnv(c.PINEnv)
		if !ok || p == "" {
			return "", fmt.Errorf("%w: environment variable %s is not set", keysource.ErrPIN, c.PINEnv)
		}
		return p, nil
	}
	return "", fmt.Errorf("%w: no PINFile or PINEnv configured", keysource.ErrPIN)
}
