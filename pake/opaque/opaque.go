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
// # Identities
//
// The client's and the server's identities are bound into the envelope at
// registration (CleartextCredentials, §4) and into the key schedule at
// every login (§6.4.2), so both sides must pass the same ones each time.
// Every call that needs them (FinalizeRegistrationRequest, GenerateKE2,
// GenerateKE3, NewClientParty, NewServerParty) takes one Identities value,
// so that they cannot be swapped. A nil or empty identity is "not
// specified" and stands for the party's public key, the default of §4;
// the zero Identities uses both defaults.
//
// # Server keys, and keys from another implementation
//
// The server's key pair and oprf_seed (ServerKeys, §3.1) use the encodings
// of RFC 9807 §7 with the P256-SHA256 OPRF of RFC 9497 §4.3:
//
//	server_private_key  SerializeScalar: 32 bytes, big-endian, in [1, n-1]
//	server_public_key   SerializeElement: the compressed SEC 1 point, 33 bytes
//	                    (0x02 or 0x03, then x)
//	oprf_seed           Nh = 32 bytes
//
// GenerateServerKeys makes fresh ones. To take over the keys of another
// RFC 9807 implementation of the same configuration (OPAQUE-3DH, P-256,
// SHA-256), pass its private key and oprf_seed to NewServerKeys, which
// derives the public key (ServerPublicKey) — the private key alone
// determines the pair — or fill in ServerKeys and let NewServer check it:
// it fails with ErrInvalidParameter when a key is malformed or the public
// key is not the private key's. Its records then parse with
// ParseRegistrationRecord (client_public_key || masking_key || envelope,
// §5.1) and log in unchanged, provided the credential identifiers, the
// identities, Config.Context and the KSF are the ones it used; a different
// oprf_seed or KSF fails every login with ErrAuthFailed. A private key
// kept in a container (PKCS #8, JWK) is imported as its 32-byte big-endian
// scalar.
//
// The KSF (Config.KSF) defaults to Scrypt, the RFC's scrypt configuration;
// Argon2id and Identity (for test vectors only) are the alternatives.
//
// Every group element on the wire is a compressed SEC 1 point of 33 bytes
// (SerializeElement of RFC 9497 §4.3), so message sizes are fixed:
// KE1 98 bytes, KE2 259, KE3 32. Parsers reject any other length, and any
// encoding that is not a valid point other than the identity (§10.7).
//
// # Misuse
//
// Every function that takes randomness treats a nil io.Reader as
// crypto/rand. Nothing panics on any input: a nil or zero-value message
// encodes to nil and is rejected, where it is consumed, with an error
// wrapping ErrInvalidMessage; a zero-value Client or Server fails with
// ErrInvalidParameter, and a zero-value or already finished state
// (ClientRegistration, ClientState, ServerState) with ErrState. The
// errors are those of internal/pakeerr, re-exported by package pake.
// Secrets a call derives (randomized_password, the ephemeral keys, the
// 3DH input) are cleared once used, and a state's copy of the password
// once it has finished.
//
// The flows and wire messages are internal/protocol, built on internal/oprf
// (RFC 9497, P256-SHA256, mode modeOPRF), internal/envelope (the envelope
// and the credential masking, §4.1, §6.3.2) and internal/ake (the 3DH key
// exchange and its key schedule, §6.4); all run on internal/group
// (constant-time P-256 from filippo.io/nistec, scalars on filippo.io/bigmod,
// RFC 9380 hash-to-curve); internal/vectors holds the Appendix D vectors.
// circl's OPRF is not used because its P-256 scalars live in math/big.
// This package is their documented API, with the key stretching
// functions, kexlab's storage format (StoredRecord) and the state machines
// of the uniform interface.
package opaque

import (
	"bytes"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/scrypt"

	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
	"github.com/kexlab/kexlab/pake/opaque/internal/vectors"
)

// Wire sizes of the messages (RFC 9807 §5.1, §6.1), in bytes.
const (
	RegistrationRequestSize  = protocol.RegistrationRequestSize
	RegistrationResponseSize = protocol.RegistrationResponseSize
	RegistrationRecordSize   = protocol.RegistrationRecordSize
	KE1Size                  = protocol.KE1Size
	KE2Size                  = protocol.KE2Size
	KE3Size                  = protocol.KE3Size
)

// A KSF is a key stretching function (RFC 9807 §2.3): Stretch(msg). It must
// be deterministic and collision resistant.
type KSF func(msg []byte) ([]byte, error)

// Identity is the KSF that returns its input (Stretch(msg) = msg), as in the
// test vectors of RFC 9807 Appendix D. It offers no protection against an
// offline dictionary attack on a stolen record; use it only for tests.
func Identity(msg []byte) ([]byte, error) { return bytes.Clone(msg), nil }

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
	return argon2.IDKey(msg, make([]byte, 16), 1, 1<<21, 4, protocol.Nh), nil
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

// toProtocol returns c with the default KSF filled in.
func (c *Config) toProtocol() protocol.Config {
	ksf := c.KSF
	if ksf == nil {
		ksf = Scrypt
	}
	return protocol.Config{Context: c.Context, Stretch: ksf}
}

// Identities are client_identity and server_identity (§4, §6.4.2). A nil
// or empty field is "not specified" and defaults to that party's public
// key (client_public_key, server_public_key), as §4 prescribes; each is at
// most 65535 bytes. Registration and every login must use the same
// Identities.
type Identities struct {
	Client []byte // client_identity
	Server []byte // server_identity
}

// KnownAnswerTests returns the RFC 9807 P-256 test vectors (Appendix D.1.5,
// D.1.6 and D.2.3) as tests: each imports the server key pair from the
// vector's private key alone and checks the derived public key; each real
// vector replays registration and login from the given blinds, nonces and
// seeds and compares every message, export_key and session_key; the fake
// vector builds the fake record and compares KE2.
func KnownAnswerTests() []kat.Test { return vectors.KnownAnswerTests() }
