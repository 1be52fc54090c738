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
// The OPRF and the 3DH key exchange run on internal/group (constant-time
// P-256 from filippo.io/nistec, scalars on filippo.io/bigmod, RFC 9380
// hash-to-curve); circl's OPRF is not used because its P-256 scalars live in
// math/big.
package opaque

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/scrypt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Lengths of the configuration (RFC 9807 §2, §7), in bytes.
const (
	nn    = 32 // Nn: nonces
	nseed = 32 // Nseed: key pair seeds
	nh    = 32 // Nh: SHA-256 output
	nm    = 32 // Nm: HMAC-SHA-256 output
	nx    = 32 // Nx: HKDF-Extract output
	nok   = 32 // Nok: OPRF private key
	npk   = 33 // Npk: compressed P-256 public key
	nsk   = 32 // Nsk: P-256 private key
	noe   = 33 // Noe: serialized OPRF element

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
const maxLen = 1<<16 - 1

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
	return extract(append(append([]byte(nil), oprfOutput...), stretched...)), nil
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

// extract is HKDF-Extract(salt = "", ikm) with SHA-256.
func extract(ikm []byte) []byte {
	prk, err := hkdf.Extract(sha256.New, ikm, nil)
	if err != nil {
		panic("opaque: unreachable: " + err.Error())
	}
	return prk
}

// expand is HKDF-Expand(prk, info, n) with SHA-256. Every prk here is 32
// bytes and n is at most 97, so it cannot fail.
func expand(prk []byte, info []byte, n int) []byte {
	out, err := hkdf.Expand(sha256.New, prk, string(info), n)
	if err != nil {
		panic("opaque: unreachable: " + err.Error())
	}
	return out
}

// expandLabel is Expand-Label(secret, label, context, Nx) (§6.4.2), with the
// CustomLabel encoding of RFC 8446 §3.4 and the "OPAQUE-" prefix.
func expandLabel(secret []byte, label string, context []byte) []byte {
	info := binary.BigEndian.AppendUint16(nil, nx)
	info = append(info, byte(len("OPAQUE-")+len(label)))
	info = append(append(info, "OPAQUE-"...), label...)
	info = append(append(info, byte(len(context))), context...)
	return expand(secret, info, nx)
}

// mac is HMAC-SHA-256(key, msg).
func mac(key, msg []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	return h.Sum(nil)
}

// appendPrefixed appends I2OSP(len(b), 2) || b. Callers have checked len(b).
func appendPrefixed(dst, b []byte) []byte {
	return append(binary.BigEndian.AppendUint16(dst, uint16(len(b))), b...)
}

// cleartextCredentials serializes CleartextCredentials (§4) with identities
// already defaulted: server_public_key || len || server_identity || len ||
// client_identity.
func cleartextCredentials(serverPublicKey, serverIdentity, clientIdentity []byte) []byte {
	b := append([]byte(nil), serverPublicKey...)
	b = appendPrefixed(b, serverIdentity)
	return appendPrefixed(b, clientIdentity)
}

// keySchedule implements Preamble and DeriveKeys (§6.4.2) and the two MACs
// of AuthServerRespond / AuthClientFinalize (§6.4.3, §6.4.4). The preamble
// is "OPAQUEv1-" || len || context || len || client_identity || ke1 || len
// || server_identity || credential_response || server_nonce ||
// server_public_keyshare; ikm is dh1 || dh2 || dh3.
func keySchedule(context, clientIdentity, ke1, serverIdentity, ke2NoMAC, ikm []byte) (serverMAC, clientMAC, sessionKey []byte) {
	h := sha256.New()
	h.Write([]byte("OPAQUEv1-"))
	h.Write(appendPrefixed(nil, context))
	h.Write(appendPrefixed(nil, clientIdentity))
	h.Write(ke1)
	h.Write(appendPrefixed(nil, serverIdentity))
	h.Write(ke2NoMAC) // credential_response || server_nonce || server_public_keyshare
	preambleHash := h.Sum(nil)

	prk := extract(ikm)
	handshakeSecret := expandLabel(prk, "HandshakeSecret", preambleHash)
	sessionKey = expandLabel(prk, "SessionKey", preambleHash)
	km2 := expandLabel(handshakeSecret, "ServerMAC", nil)
	km3 := expandLabel(handshakeSecret, "ClientMAC", nil)

	serverMAC = mac(km2, preambleHash)
	h.Write(serverMAC) // Hash(preamble || server_mac)
	clientMAC = mac(km3, h.Sum(nil))
	return serverMAC, clientMAC, sessionKey
}

func invalidMessage(format string, args ...any) error {
	return fmt.Errorf("%w: opaque: "+format, append([]any{pakeerr.ErrInvalidMessage}, args...)...)
}

func randomError(err error) error {
	return fmt.Errorf("%w: opaque: %v", pakeerr.ErrRandom, err)
}
