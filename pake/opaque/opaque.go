// Package opaque implements OPAQUE-3DH, the augmented PAKE of RFC 9807, in
// the configuration of §7 built on P-256: OPRF P256-SHA256 (RFC 9497, mode
// modeOPRF), KDF HKDF-SHA-256, MAC HMAC-SHA-256, Hash SHA-256, Group P-256,
// with a key stretching function (KSF) chosen by the application.
//
// Registration (§5) runs CreateRegistrationRequest (client),
// CreateRegistrationResponse (server) and FinalizeRegistrationRequest
// (client), which yields the RegistrationRecord the server stores. Login
// (§6) runs GenerateKE1 (client), GenerateKE2 (server), GenerateKE3 (client)
// and ServerFinish (server). A server answers an unknown user from a fake
// record (NewFakeRecord, §6.3.2.2), so that the two cases look alike.
// ClientParty and ServerParty wrap a login as the message-in, message-out
// state machines of kexlab's uniform interface; StoredRecord is kexlab's
// storage format for a record together with the server's keys.
//
// The KSF (Config.KSF) defaults to Scrypt, the RFC's scrypt configuration;
// Argon2id and Identity (for test vectors only) are the alternatives.
//
// Every group element on the wire is a compressed SEC 1 point of 33 bytes
// (SerializeElement of RFC 9497 §4.3), so message sizes are fixed:
// KE1 98 bytes, KE2 259, KE3 32. Parsers reject any other length, and any
// encoding that is not a valid point other than the identity (§10.7).
//
// The OPRF is internal/oprf (RFC 9497, P256-SHA256, mode modeOPRF), the
// envelope and the credential masking are internal/envelope (§4.1,
// §6.3.2), and the 3DH key exchange with its key schedule is internal/ake
// (§6.4); all run on internal/group (constant-time P-256 from
// filippo.io/nistec, scalars on filippo.io/bigmod, RFC 9380 hash-to-curve).
// circl's OPRF is not used because its P-256 scalars live in math/big.
package opaque

import (
	"fmt"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/scrypt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque/internal/ake"
)

// Lengths of the configuration (RFC 9807 §2, §7), in bytes.
const (
	nn    = 32               // Nn: nonces
	nseed = 32               // Nseed: key pair seeds
	nh    = 32               // Nh: SHA-256 output
	nm    = 32               // Nm: HMAC-SHA-256 output
	npk   = 33               // Npk: compressed P-256 public key
	nsk   = 32               // Nsk: P-256 private key
	noe   = oprf.ElementSize // Noe: serialized OPRF element

	envelopeSize       = nn + nm
	maskedResponseSize = npk + envelopeSize
)

// Wire sizes of the messages (RFC 9807 §5.1, §6.1).
const (
	RegistrationRequestSize  = noe
	RegistrationResponseSize = noe + npk
	RegistrationRecordSize   = npk + nh + envelopeSize
	KE1Size                  = noe + nn + npk
	KE2Size                  = noe + nn + maskedResponseSize + nn + npk + nm
	KE3Size                  = nm
)

// maxLen is the longest password, identity or context: each is prefixed
// with its length as two bytes (RFC 9807 §4, §6.4.2; RFC 9497 §3.3.1).
const maxLen = oprf.MaxInputSize

// A KSF is a key stretching function (RFC 9807 §2.3): Stretch(msg). It must
// be deterministic and collision resistant.
type KSF func(msg []byte) ([]byte, error)

// Identity is the KSF that returns its input (Stretch(msg) = msg), as in the
// test vectors of RFC 9807 Appendix D. It offers no protection against an
// offline dictionary attack on a stolen record; use it only for tests.
func Identity(msg []byte) ([]byte, error) { return append([]byte(nil), msg...), nil }

// Scrypt is the KSF scrypt(S = zeroes(16), N = 32768, r = 8, p = 1,
// dkLen = 32) recommended by RFC 9807 §7 (RFC 7914). It costs the client
// 32 MiB of memory and on the order of 100 ms per call.
func Scrypt(msg []byte) ([]byte, error) {
	return scrypt.Key(msg, make([]byte, 16), 32768, 8, 1, 32)
}

// Argon2id is the KSF Argon2id(S = zeroes(16), p = 4, T = Nh, m = 2^21,
// t = 1, v = 0x13) recommended by RFC 9807 §7 (RFC 9106). It needs 2 GiB of
// memory and seconds of CPU time per call.
func Argon2id(msg []byte) ([]byte, error) {
	return argon2.IDKey(msg, make([]byte, 16), 1, 1<<21, 4, nh), nil
}

// Config holds the parameters both parties must agree on besides the fixed
// cryptographic suite.
type Config struct {
	// Context is the shared context string bound into the preamble
	// (§6.4.2): an application and version label, for example.
	Context []byte
	// KSF is the client's key stretching function; nil means Scrypt.
	KSF KSF
}

func (c *Config) check() error {
	if len(c.Context) > maxLen {
		return fmt.Errorf("%w: opaque: context of %d bytes", pakeerr.ErrInvalidParameter, len(c.Context))
	}
	return nil
}

// finalize unblinds the OPRF evaluation z into oprf_output (Finalize, RFC
// 9497 §3.3.1) and returns randomized_password.
func (c *Config) finalize(password []byte, blind *group.Scalar, z *group.Point) ([]byte, error) {
	out, err := oprf.Finalize(password, blind, z)
	if err != nil {
		return nil, err
	}
	return c.randomizedPassword(out)
}

// randomizedPassword computes Extract("", oprf_output || Stretch(oprf_output))
// (§5.2.3, §6.3.2.3).
func (c *Config) randomizedPassword(oprfOutput []byte) ([]byte, error) {
	ksf := c.KSF
	if ksf == nil {
		ksf = Scrypt
	}
	stretched, err := ksf(oprfOutput)
	if err != nil {
		return nil, fmt.Errorf("%w: opaque: key stretching: %v", pakeerr.ErrInvalidParameter, err)
	}
	return ake.Extract(append(append([]byte(nil), oprfOutput...), stretched...)), nil
}

// checkIdentity rejects identities too long for their two-byte length
// prefix. An empty identity means "not specified" (§4): CleartextCredentials
// does not allow empty identities, so the public key stands in for it.
func checkIdentity(id []byte) error {
	if len(id) > maxLen {
		return fmt.Errorf("%w: opaque: identity of %d bytes", pakeerr.ErrInvalidParameter, len(id))
	}
	return nil
}

func orDefault(id, publicKey []byte) []byte {
	if len(id) == 0 {
		return publicKey
	}
	return id
}

func invalidMessage(format string, args ...any) error {
	return fmt.Errorf("%w: opaque: "+format, append([]any{pakeerr.ErrInvalidMessage}, args...)...)
}

func randomError(err error) error {
	return fmt.Errorf("%w: opaque: %v", pakeerr.ErrRandom, err)
}
