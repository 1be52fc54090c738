// Package oeke implements OEKE, the One-Encryption Key Exchange of
// Bresson, Chevassut and Pointcheval, "Security Proofs for an Efficient
// Password-Based Key Exchange", ACM CCS 2003: a balanced password-
// authenticated Diffie-Hellman exchange in which only the server's share is
// encrypted under the password, proved secure in the random-oracle and
// ideal-cipher models under the computational Diffie-Hellman assumption.
// The flows and hashes follow the paper's figure as Blanchet's
// machine-checked model of it gives them ("Automatically Verified
// Mechanized Proof of One-Encryption Key Exchange", CSF 2012; OEKE.ocv in
// the CryptoVerif distribution). In place of the ideal cipher, the share is
// encrypted with AES-128-CBC under a key derived from the password with
// PBKDF2-HMAC-SHA256: the configuration kexlab's seed study evaluated.
// Read "Security of this configuration" before using it for anything but
// measurement.
//
// # Protocol
//
// U is the client's identity (ClientID), S the server's (ServerID); both
// parties know both, and they are not sent. H(label, x1, …, xn) is SHA-256
// over "kexlab OEKE v1 <group> " ‖ label and x1, …, xn, each of the n+1
// strings preceded by its length as 8 big-endian bytes; H0 is label "sk",
// H1 label "auth". Elements are encoded as the suite says (below).
//
// Password key, once per pair of identities (DeriveKey):
//
//	salt = H("salt", U, S)
//	pwKey = PBKDF2-HMAC-SHA256(password, salt, iterations, 16)   the AES-128 key
//
// Message 1, client → server (the paper's U, X):
//
//	x random;  X = g^x          send X
//
// Message 2, server → client (S, Y*):
//
//	abort unless X is a valid element other than the identity (ErrInvalidMessage)
//	y random;  Y = g^y;  K = X^y
//	IV = 16 random bytes;  Y* = AES-128-CBC(pwKey, IV, Y [‖ PKCS#7 padding])
//	send IV ‖ Y*
//
// Message 3, client → server:
//
//	Y = D(pwKey, IV, Y*); abort unless the padding is right and Y is a
//	valid element other than the identity (ErrAuthFailed: a wrong password)
//	K = Y^x
//	Auth = H1(U, S, X, Y, K);  sk = H0(U, S, X, Y, K)
//	send Auth; the client is done
//
// The server aborts unless Auth = H1(U, S, X, Y, K) (ErrAuthFailed, compared
// in constant time), and is done with sk = H0(U, S, X, Y, K). As in the
// paper, only the client authenticates explicitly (Auth); the server is
// authenticated implicitly: no one without the password can share sk.
//
// # Suites
//
// MODP3072: the 3072-bit group of RFC 3526 §4 (g = 2), 256-bit exponents,
// elements as 384 big-endian bytes. 384 is a multiple of the AES block, so
// Y* is the bare CBC encryption of Y: messages of 384, 16+384 and 32 bytes.
// X and Y must lie in [2, p-2].
//
// P256: NIST P-256, elements as 33-byte compressed SEC 1 points (the study's
// encoding). CBC needs whole blocks, so Y is padded with PKCS#7 (fifteen
// 0x0f bytes) and Y* is 48 bytes: messages of 33, 16+48 and 32 bytes. The
// padding is removed in constant time.
//
// # Parameters
//
// DefaultIterations (100000) PBKDF2 iterations, as kexlab's OCAKE, the
// other scheme the seed study encrypted with AES-CBC; DeriveKey takes any
// count. The salt depends only on the suite and the two identities (the
// server encrypts before the client could learn a stored salt), so an
// application may compute pwKey once per pair and keep it like the
// password.
//
// # Security of this configuration
//
// OEKE's proof needs an ideal cipher on the group: decrypting Y* under a
// wrong password must give an independent, uniformly random element.
// AES-CBC over these encodings is not that, and a passive eavesdropper who
// records message 2 can run a partition (offline dictionary) attack,
// decrypting Y* under each guessed password (one PBKDF2 per guess) and
// discarding the guesses that give an impossible plaintext:
//
//   - P256: a wrong key gives 48 random bytes. They end with the fifteen
//     bytes 0x0f, start with 0x02 or 0x03, and carry an x-coordinate on the
//     curve with probability about 2^-120 · 2^-7 · 2^-1: one transcript
//     confirms the password, the PBKDF2 iteration count being the attack's
//     only cost. Encrypting without padding (ciphertext stealing) would
//     still leak about 8 bits per transcript through the prefix byte and
//     the curve equation.
//   - MODP3072: a value at or above p is almost impossible (p is within
//     2^-64 of 2^3072), but Y = 2^y is a quadratic residue, and a wrong key
//     gives a residue only half the time: every transcript halves the set of
//     candidate passwords (the Legendre symbol is cheap to compute), so a
//     few dozen transcripts single the password out.
//
// A bad padding or an invalid element makes the client abort, so an active
// attacker also learns whether a chosen Y* decrypts to something valid
// under the real password (a padding oracle); that adds nothing to the
// passive attack. The encodings are kept because the seed study measured
// them: this configuration must not protect real passwords. A deployment
// needs a uniform encoding under an unpadded cipher that behaves as an
// ideal cipher on it: for MODP, hide the residue symbol (send Y or p−Y at
// random; the client keeps the one that is a residue) under a wide-block
// cipher on 384-byte strings; for curves, an Elligator-style encoding
// (Elligator 2, or Elligator Squared for P-256) that maps points to
// uniform strings, under a wide-block or Feistel ideal-cipher
// construction. Better still, a PAKE that needs no ideal cipher, such as
// CPace (pake/cpace).
//
// # Errors
//
// Messages of the wrong length, and an invalid X, give ErrInvalidMessage; a
// wrong password gives ErrAuthFailed, at the client (bad padding or element,
// P256 almost always) or at the server (Auth). A party that failed, or
// finished, answers ErrState.
package oeke

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/kexlab/kexlab/internal/group/modp"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/pbkdf2"
)

// Suite names.
const (
	SuiteMODP3072 = "OEKE MODP-3072 AES-128-CBC PBKDF2-SHA256 SHA-256"
	SuiteP256     = "OEKE P-256 AES-128-CBC-PKCS7 PBKDF2-SHA256 SHA-256"
)

// Sizes of keys and authenticators.
const (
	// AuthSize is the length of the client's authenticator, message 3.
	AuthSize = sha256.Size
	// KeySize is the length of the session key sk.
	KeySize = sha256.Size
	// PasswordKeySize is the length of DeriveKey's output, an AES-128 key.
	PasswordKeySize = 16
)

// DefaultIterations is the PBKDF2 iteration count of the evaluated
// configuration (see the package documentation).
const DefaultIterations = 100000

// Params is an OEKE suite: a Diffie-Hellman group and its encoding.
type Params struct {
	name  string
	label string // the group's name in the hash prefix
	group dhGroup
}

var (
	modp3072 = &Params{name: SuiteMODP3072, label: "MODP-3072", group: modpGroup{modp.RFC3526Group15()}}
	p256     = &Params{name: SuiteP256, label: "P-256", group: p256Group{}}
)

// MODP3072 returns the suite over the 3072-bit MODP group of RFC 3526.
func MODP3072() *Params { return modp3072 }

// P256 returns the suite over P-256 with compressed points.
func P256() *Params { return p256 }

// Name returns the suite's name, SuiteMODP3072 or SuiteP256.
func (p *Params) Name() string { return p.name }

// ElementSize is the length of an encoded element: X, Y and K.
func (p *Params) ElementSize() int { return p.group.elementSize() }

// Message1Size is the length of message 1, X.
func (p *Params) Message1Size() int { return p.ElementSize() }

// Message2Size is the length of message 2, IV ‖ Y*.
func (p *Params) Message2Size() int { return IVSize + ciphertextSize(p.ElementSize()) }

// Message3Size is the length of message 3, Auth.
func (p *Params) Message3Size() int { return AuthSize }

// Session holds the identities U (ClientID) and S (ServerID). Either may be
// empty; both parties must use the same values.
type Session struct {
	ClientID, ServerID []byte
}

// hash returns H(label, fields...) for the suite (see the package
// documentation).
func (p *Params) hash(label string, fields ...[]byte) []byte {
	h := sha256.New()
	write := func(b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	write([]byte("kexlab OEKE v1 " + p.label + " " + label))
	for _, f := range fields {
		write(f)
	}
	return h.Sum(nil)
}

// Salt returns the PBKDF2 salt of DeriveKey, H("salt", U, S).
func (p *Params) Salt(s Session) []byte { return p.hash("salt", s.ClientID, s.ServerID) }

// DeriveKey returns pwKey = PBKDF2-HMAC-SHA256(password, Salt(s),
// iterations, 16), the AES-128 key NewClient and NewServer take. Zero
// iterations selects DefaultIterations.
func (p *Params) DeriveKey(password []byte, s Session, iterations int) ([]byte, error) {
	if len(password) == 0 {
		return nil, fmt.Errorf("%w: oeke: empty password", pakeerr.ErrInvalidParameter)
	}
	if iterations == 0 {
		iterations = DefaultIterations
	}
	if iterations < 0 {
		return nil, fmt.Errorf("%w: oeke: %d PBKDF2 iterations", pakeerr.ErrInvalidParameter, iterations)
	}
	return pbkdf2.Key(password, p.Salt(s), iterations, PasswordKeySize), nil
}

// keys returns Auth = H1(U, S, X, Y, K) and sk = H0(U, S, X, Y, K).
func (p *Params) keys(s Session, X, Y, K []byte) (auth, sk []byte) {
	return p.hash("auth", s.ClientID, s.ServerID, X, Y, K), p.hash("sk", s.ClientID, s.ServerID, X, Y, K)
}
