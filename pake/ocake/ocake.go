// Package ocake implements OCAKE, the one-round-trip transformation from a
// key encapsulation mechanism to a password-authenticated key exchange of
// Beguinet, Chevalier, Pointcheval, Ricosset and Rossi, "GeT a CAKE: Generic
// Transformations from Key Encapsulation Mechanisms to Password
// Authenticated Key Exchanges", ACNS 2023 (LNCS 13906; ePrint 2023/470).
// The KEM is ML-KEM-512 (FIPS 203, from
// github.com/cloudflare/circl: Go's crypto/mlkem has no 512 parameter set).
// In place of the paper's ideal cipher, the public key is encrypted with
// AES-128-CBC under a key derived from the password with
// PBKDF2-HMAC-SHA256: the configuration kexlab's seed study evaluated, and
// the default here. Read "Security of this configuration" below before
// using it for anything but measurement.
//
// # Protocol
//
// Alice is the initiator (Initiator, the client), Bob the responder
// (Responder, the server). sid = (ClientID, ServerID, Context).
// H(label, x1, …, xn) is SHA-256 over "kexlab OCAKE ML-KEM-512 v1 " ‖ label
// and x1, …, xn, each of the n+1 strings preceded by its length as 8
// big-endian bytes; each random oracle of the paper is one label.
//
// Password key, once per pair (DeriveKey):
//
//	salt = H("salt", ClientID, ServerID)
//	pwKey = PBKDF2-HMAC-SHA256(password, salt, iterations, 32)
//	kEnc  = H("enc", sid, pwKey)[:16]       per session: the cipher key of (ssid, pw)
//
// Message 1, Alice → Bob (Message1Size = 832 bytes):
//
//	(ek, dk) = ML-KEM-512.KeyGen()          64 random bytes d‖z
//	apk = IV ‖ AES-128-CBC(kEnc, IV, ek ‖ PKCS#7 pad)   16 random IV bytes; 16 + 816 bytes
//
// Message 2, Bob → Alice (Message2Size = 800 bytes):
//
//	ek = D(kEnc, apk)                       padding and FIPS 203 §7.2 key checks
//	(K, c) = ML-KEM-512.Encaps(ek)          32 random bytes m
//	Auth = H("auth", sid, pwKey, apk, c, K)
//	SK = H("session key", sid, apk, c, Auth, K)
//	send c ‖ Auth                           768 + 32 bytes; Bob is done
//
// Alice:
//
//	K' = ML-KEM-512.Decaps(dk, c)
//	abort unless Auth = H("auth", sid, pwKey, apk, c, K')   (constant time)
//	SK = H("session key", sid, apk, c, Auth, K')
//
// This is OCAKE as the paper's figure gives it (and as the pq-pake/pqpake-c
// implementation realises it): the KEM ciphertext travels in the clear and
// Bob authenticates with Auth = H1(ssid, A, B, pw, apk, c, K); the session
// key is H2(ssid, A, B, apk, c, Auth, K). Here pw is represented by pwKey,
// a fixed function of it, and ssid by Context. Bob is authenticated to
// Alice; Alice is authenticated to Bob only implicitly (he derives a key
// only she can share). The game-based variant of Alnahawi, Hövelmanns,
// Hülsing and Ritsch (CANS 2024), which adds a third message with a tag
// from Alice, is not implemented.
//
// # Parameters
//
// DefaultIterations (100000) PBKDF2 iterations: ten times the 10,000 of NIST
// SP 800-63B §5.1.1.2 and a hundred times the minimum of RFC 8018 §4.2, but
// below the 600,000 that OWASP's Password Storage Cheat Sheet recommends for
// PBKDF2-HMAC-SHA256. It is kexlab's default, and costs about 26 ms per
// party and session on the x86-64 development machine (SHA-NI). DeriveKey
// takes any count; deployments should use more.
//
// The salt depends only on the two identities: the initiator must encrypt
// before hearing from the responder, so there is no stored, transmitted
// salt. Binding it to the pair makes a table precomputed for one pair
// useless for another, as the paper's cipher keyed by (ssid, pw) intends;
// leaving Context out lets an application compute pwKey once per pair.
// Context enters kEnc and every hash.
//
// # Security of this configuration
//
// OCAKE's proof needs an ideal cipher over the public-key space: decrypting
// apk under a wrong password must give an independent, uniformly random,
// valid public key. AES-CBC over the FIPS 203 encoding is nothing like
// that, and a passive eavesdropper who records one message 1 can run an
// offline dictionary attack (a partition attack), at the cost of one PBKDF2
// per guess:
//
//   - Padding. An ML-KEM-512 encapsulation key is 800 = 50·16 bytes, so
//     PKCS#7 appends a whole block of sixteen 0x10 bytes. Decrypting the
//     last block under a guessed key and comparing it with that constant
//     confirms the password with false-positive probability 2^-128.
//   - Encoding. Even without padding, ek packs 512 coefficients modulo
//     q = 3329 into 12 bits each; a wrong key yields 12-bit values, each
//     below q with probability 3329/4096, all 512 with probability about
//     2^-153.
//   - Timing. ρ, the last 32 bytes of ek, is password-encrypted, and
//     ML-KEM expands it into its matrix by rejection sampling, whose running
//     time depends on ρ; the responder's timing leaks a function of the
//     decrypted key (Arriaga, Barbosa and Jarecki, 2025). circl's key check
//     is not constant time either.
//
// The PBKDF2 iteration count is thus the only cost of a guess. Removing the
// PKCS#7 padding in constant time (the responder compares the last block
// with crypto/subtle, and a bad padding and an invalid key give the same
// ErrAuthFailed) adds no online timing channel, but cannot help: the
// padding is itself the offline oracle. This encoding is kept as the
// default because it is what was measured; it must not protect real
// passwords. A faithful instantiation needs a uniform encoding of ek (such
// as the Kemeleon encodings, draft-irtf-cfrg-kemeleon) under an unpadded
// wide-block ideal-cipher construction, or a design that sends ρ in the
// clear; kexlab provides neither.
//
// # Errors
//
// A wrong password is detected by the responder at message 1 (the
// decrypted key is not a padded ML-KEM-512 key) or, failing that, by the
// initiator at message 2 (Auth mismatch); both return ErrAuthFailed.
// Messages of the wrong length give ErrInvalidMessage; a party that failed,
// or finished, answers ErrState.
package ocake

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/pbkdf2"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Suite names the instantiation.
const Suite = "OCAKE ML-KEM-512 AES-128-CBC PBKDF2-SHA256 SHA-256"

// Sizes of the wire messages and keys.
const (
	// Message1Size is apk = IV ‖ AES-128-CBC(ek ‖ padding).
	Message1Size = ivSize + encryptedKeySize
	// Message2Size is c ‖ Auth.
	Message2Size = ciphertextSize + AuthSize
	// AuthSize is the length of Bob's authenticator.
	AuthSize = sha256.Size
	// KeySize is the length of the session key.
	KeySize = sha256.Size
	// PasswordKeySize is the length of DeriveKey's output.
	PasswordKeySize = sha256.Size
)

// DefaultIterations is the PBKDF2 iteration count of the evaluated
// configuration (see the package documentation).
const DefaultIterations = 100000

// Session names the exchange: the identities of Alice (ClientID) and Bob
// (ServerID) and a Context (the paper's ssid). Any may be empty; both
// parties must use the same values.
type Session struct {
	ClientID, ServerID, Context []byte
}

func (s Session) clone() Session {
	return Session{bytes.Clone(s.ClientID), bytes.Clone(s.ServerID), bytes.Clone(s.Context)}
}

// Salt returns the PBKDF2 salt of DeriveKey, H("salt", clientID, serverID).
func Salt(clientID, serverID []byte) []byte {
	h := transcriptHash("salt", clientID, serverID)
	return h[:]
}

// DeriveKey returns pwKey = PBKDF2-HMAC-SHA256(password, Salt(clientID,
// serverID), iterations, 32), the password key that NewInitiator and
// NewResponder take. It is the expensive step; it depends only on the
// password and the pair of identities, so an application may compute it
// once and keep it as it would keep the password. Zero iterations selects
// DefaultIterations.
func DeriveKey(password, clientID, serverID []byte, iterations int) ([]byte, error) {
	if len(password) == 0 {
		return nil, fmt.Errorf("%w: empty password", pakeerr.ErrInvalidParameter)
	}
	if iterations == 0 {
		iterations = DefaultIterations
	}
	if iterations < 0 {
		return nil, fmt.Errorf("%w: %d PBKDF2 iterations", pakeerr.ErrInvalidParameter, iterations)
	}
	return pbkdf2.Key(password, Salt(clientID, serverID), iterations, PasswordKeySize), nil
}

// state is where a party is in its exchange.
type state int

const (
	stateStart state = iota
	stateWaiting
	stateDone
	stateFailed
)

// party is what both sides hold.
type party struct {
	rand  io.Reader
	sid   Session
	pwKey []byte
	kEnc  []byte
	state state
	key   []byte
}

func newParty(rand io.Reader, pwKey []byte, s Session) (party, error) {
	if len(pwKey) != PasswordKeySize {
		return party{}, fmt.Errorf("%w: password key of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(pwKey), PasswordKeySize)
	}
	p := party{rand: sysrand.Or(rand), sid: s.clone(), pwKey: bytes.Clone(pwKey)}
	k := transcriptHash("enc", p.sid.ClientID, p.sid.ServerID, p.sid.Context, p.pwKey)
	p.kEnc = k[:encKeySize]
	return p, nil
}

// forget drops the password key once it is no longer needed.
func (p *party) forget() {
	clear(p.pwKey)
	clear(p.kEnc)
}

// fail ends the exchange; the party forgets its secrets.
func (p *party) fail(err error) error {
	p.state = stateFailed
	p.key = nil
	p.forget()
	return err
}

// Done reports whether the exchange finished with a session key.
func (p *party) Done() bool { return p.state == stateDone }

// SessionKey returns the session key SK once the party is done.
func (p *party) SessionKey() ([]byte, error) {
	if p.state != stateDone {
		return nil, fmt.Errorf("%w: no session key yet", pakeerr.ErrState)
	}
	return bytes.Clone(p.key), nil
}

func (p *party) auth(apk, c, k []byte) [AuthSize]byte {
	return transcriptHash("auth", p.sid.ClientID, p.sid.ServerID, p.sid.Context, p.pwKey, apk, c, k)
}

func (p *party) sessionKey(apk, c, auth, k []byte) []byte {
	sk := transcriptHash("session key", p.sid.ClientID, p.sid.ServerID, p.sid.Context, apk, c, auth, k)
	return sk[:]
}

// readRand fills b from the party's randomness source.
func (p *party) readRand(b []byte) error {
	if _, err := io.ReadFull(p.rand, b); err != nil {
		return fmt.Errorf("%w: %v", pakeerr.ErrRandom, err)
	}
	return nil
}
