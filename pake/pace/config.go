package pace

import (
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/pace/internal/suite"
)

// Sizes of keys, nonces and messages (AES-128, 256-bit curves).
const (
	// KeySize is the length of K_π, K_enc and K_mac (AES-128).
	KeySize = suite.KeySize
	// NonceSize is the length of s, z and t: one AES block.
	NonceSize = suite.NonceSize
	// PointSize is the length of an uncompressed public key.
	PointSize = suite.PointSize
	// TokenSize is the length of an authentication token, AES-CMAC
	// truncated to 8 bytes.
	TokenSize = suite.TokenSize
	// RequestSize is the length of the terminal's first message: the
	// protocol OID's 10 content bytes and the domain parameter ID.
	RequestSize = 10 + 1
	// SessionKeySize is the length of SessionKey, K_enc ‖ K_mac.
	SessionKeySize = 2 * KeySize
)

// The protocol object identifiers (§9.2): id-PACE is 0.4.0.127.0.7.2.2.4
// (bsi-de protocols smartcard 4); id-PACE-ECDH-GM-AES-CBC-CMAC-128 is
// id-PACE 2 2 and id-PACE-ECDH-IM-AES-CBC-CMAC-128 id-PACE 4 2. These are
// the DER contents (without tag and length) of the OIDs.
var (
	oidGM = []byte{0x04, 0x00, 0x7f, 0x00, 0x07, 0x02, 0x02, 0x04, 0x02, 0x02}
	oidIM = []byte{0x04, 0x00, 0x7f, 0x00, 0x07, 0x02, 0x02, 0x04, 0x04, 0x02}
)

// Curve names the domain parameters by their ICAO standardized domain
// parameter ID (§9.5.1), which is also the value the terminal sends in its
// request.
type Curve byte

const (
	// P256 is NIST P-256 (secp256r1), ID 12, the default suite's curve.
	P256 Curve = 12
	// BrainpoolP256r1 is RFC 5639's curve, ID 13, the one of the ICAO
	// worked examples.
	BrainpoolP256r1 Curve = 13
)

func (c Curve) String() string {
	switch c {
	case P256:
		return "P-256"
	case BrainpoolP256r1:
		return "brainpoolP256r1"
	}
	return fmt.Sprintf("Curve(%d)", byte(c))
}

func lookupCurve(c Curve) (*suite.Curve, error) {
	switch c {
	case P256:
		return suite.P256, nil
	case BrainpoolP256r1:
		return suite.BrainpoolP256r1, nil
	}
	return nil, fmt.Errorf("%w: pace: unsupported curve %v", pakeerr.ErrInvalidParameter, c)
}

// Mapping selects how the nonce s is mapped to the generator G'.
type Mapping int

const (
	// GenericMapping is §4.4.3.3.1: G' = s·G + H, with H from an
	// anonymous Diffie–Hellman exchange.
	GenericMapping Mapping = iota + 1
	// IntegratedMapping is §4.4.3.3.2: G' = f_G(R_p(s, t)).
	IntegratedMapping
)

func (m Mapping) String() string {
	switch m {
	case GenericMapping:
		return "GM"
	case IntegratedMapping:
		return "IM"
	}
	return fmt.Sprintf("Mapping(%d)", int(m))
}

// Config is a PACE configuration; both parties must use the same one.
type Config struct {
	Mapping Mapping
	Curve   Curve
	// PasswordKey derives K_π (KeySize bytes) from the password; see
	// ICAOPasswordKey and PBKDF2PasswordKey.
	PasswordKey func(password []byte) ([]byte, error)
}
