package pace

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/pbkdf2"
	"github.com/kexlab/kexlab/pake/pace/internal/suite"
)

// ICAOPasswordKey is ICAO's password-to-key function K_π = KDF_π(π) =
// KDF(f(π), 3) (§9.7.1), for a password already encoded as f(π): the key
// seed SHA-1(MRZ information) for the MRZ (MRZKeySeed), or the ISO 8859-1
// bytes of the CAN (or PIN, PUK). It is what the worked examples use.
func ICAOPasswordKey(fpi []byte) ([]byte, error) {
	if len(fpi) == 0 {
		return nil, fmt.Errorf("%w: pace: empty password", pakeerr.ErrInvalidParameter)
	}
	return suite.KDF(fpi, suite.CounterPi), nil
}

// MRZKeySeed returns f(π) for an MRZ password: SHA-1 over the MRZ
// information, the document number, date of birth and date of expiry, each
// followed by its check digit (Appendix G's is "T22000129364081251010318").
func MRZKeySeed(mrzInformation string) []byte {
	h := sha1.Sum([]byte(mrzInformation))
	return h[:]
}

// DefaultIterations is the PBKDF2 iteration count of the default suite,
// kexlab's common choice (the same as OCAKE's; see package ocake for the
// rationale).
const DefaultIterations = 100000

// PBKDF2PasswordKey returns the default suite's password-to-key function,
// K_π = PBKDF2-HMAC-SHA256(password, salt, iterations, 16) (RFC 8018
// §5.2), in place of ICAO's KDF_π: the configuration the seed study
// evaluated. Zero iterations selects DefaultIterations. Both parties must
// use the same salt; PBKDF2Salt gives the one of the uniform interface.
func PBKDF2PasswordKey(salt []byte, iterations int) func(password []byte) ([]byte, error) {
	if iterations == 0 {
		iterations = DefaultIterations
	}
	return func(password []byte) ([]byte, error) {
		if len(password) == 0 {
			return nil, fmt.Errorf("%w: pace: empty password", pakeerr.ErrInvalidParameter)
		}
		if iterations < 0 {
			return nil, fmt.Errorf("%w: pace: %d PBKDF2 iterations", pakeerr.ErrInvalidParameter, iterations)
		}
		return pbkdf2.Key(password, salt, iterations, KeySize), nil
	}
}

// PBKDF2Salt returns the salt of the default suite: SHA-256 over the label
// "kexlab PACE K_pi salt v1" and the chip's identity, the latter preceded by
// its length as 8 big-endian bytes. PACE sends no salt, so it must be
// known to both sides in advance; the password belongs to the chip (like a
// CAN printed on it), so the salt binds the chip and not the terminal.
func PBKDF2Salt(chipID []byte) []byte {
	h := sha256.New()
	h.Write([]byte("kexlab PACE K_pi salt v1"))
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(chipID))))
	h.Write(chipID)
	return h.Sum(nil)
}
