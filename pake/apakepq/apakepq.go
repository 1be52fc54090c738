// Package apakepq implements an asymmetric (augmented) PAKE from the
// compiler of Lyu, Liu and Han, "Efficient Asymmetric PAKE Compiler from
// KEM and AE", ASIACRYPT 2024 (ePrint 2024/1400), applied to OCAKE
// (package ocake) with ML-KEM-512 (FIPS 203, through
// github.com/cloudflare/circl), AES-256-GCM and SHA-256.
//
// The compiler turns a UC-secure PAKE into a UC-secure aPAKE without
// signatures. The server's password file holds the value the PAKE runs on
// and the encapsulation key of a KEM key pair that only the password
// re-derives. After the PAKE, the server encapsulates to that key and sends
// the ciphertext under authenticated encryption keyed by the PAKE's key;
// the client decapsulates and proves it did. The paper requires the KEM to
// be OW-PCA secure and the AE to have one-time authenticity and one-time
// CCA security; ML-KEM-512 and AES-256-GCM under a key used once provide
// them computationally.
//
// # Registration (Register, run by the client)
//
//	salt = H("salt", ClientID, ServerID)
//	m    = PBKDF2-HMAC-SHA256(password, salt, iterations, 32)
//	rw   = H("rw", m)                                 OCAKE's password key
//	(ek, dk) = ML-KEM-512.KeyGen_internal(H("kem d", m), H("kem z", m))
//	record = rw ‖ ek                                  RecordSize = 832 bytes
//
// The server stores the record: not the password, and nothing from which
// the password follows except by guessing it (one PBKDF2 and one key
// generation per guess). H is SHA-256 over a label and length-prefixed
// inputs (transcriptHash). The salt is fixed by the identities because the
// client speaks first: it must compute rw before hearing from the server,
// so there is no stored salt to fetch. Hence this is not a "strong" aPAKE:
// an attacker who targets one account can precompute a dictionary before
// stealing the record. Context is not part of the record; it binds each
// session.
//
// # Login
//
// sid = (ClientID, ServerID, Context); the client re-derives m, rw and
// (ek, dk) from the password (NewClient).
//
// Message 1, client → server (Message1Size = 832 bytes): OCAKE's message 1
// under rw, apk = IV ‖ AES-128-CBC(ek_e).
//
// Message 2, server → client (Message2Size = 1596 bytes):
//
//	c_e ‖ Auth = OCAKE message 2 under rw              800 bytes; τ = OCAKE's key
//	(K, c) = ML-KEM-512.Encaps(ek)                     ek from the record
//	ψ = AES-256-GCM(H("ae key", τ), nonce, c)          12 random nonce bytes; 784 bytes
//	send c_e ‖ Auth ‖ nonce ‖ ψ
//
// Message 3, client → server (Message3Size = 32 bytes): after checking
// Auth (OCAKE) and opening ψ,
//
//	K' = ML-KEM-512.Decaps(dk, c)
//	σ  = H("confirm", sid, τ, K', nonce ‖ ψ)
//
// The server checks σ in constant time. Both keys are
// SK = H("session key", τ). The client is done after sending σ; the server
// after checking it.
//
// This follows the compiler as the Rust crate qr_pake_protocols realises
// it (its KEM-AE-PAKE, citing ePrint 2024/1400), with two changes: the
// AE key and the session key use different labels (there, both are
// SHA-256(τ), so the session key would equal the AE key), and the password
// hash is PBKDF2 rather than a single SHA-256/SHA-512.
//
// # Security
//
// The compiler's guarantees are conditional on the PAKE's. The OCAKE layer
// here is the evaluated AES-CBC configuration, whose message 1 lets a
// passive eavesdropper test password guesses offline (see package ocake):
// guess → m → rw → padding check. That attack carries over unchanged, at
// one PBKDF2 per guess. A stolen record allows the same guessing, and lets
// its holder impersonate the server to the client (inherent in any aPAKE);
// it does not let it log in as the client without the password, since that
// needs dk. Wrong passwords end in ErrAuthFailed (at the server for
// message 1, or at either side for later messages); malformed lengths in
// ErrInvalidMessage; a malformed record in ErrInvalidParameter.
package apakepq

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/pbkdf2"
	"github.com/kexlab/kexlab/pake/ocake"
)

// Suite names the instantiation.
const Suite = "LLH-compiler(OCAKE) ML-KEM-512 AES-GCM SHA-256"

// DefaultIterations is the PBKDF2 iteration count (see package ocake for
// the choice).
const DefaultIterations = ocake.DefaultIterations

// Sizes of the record, the messages and the session key.
const (
	RecordSize   = rwSize + mlkem512.PublicKeySize
	Message1Size = ocake.Message1Size
	Message2Size = ocake.Message2Size + nonceSize + sealedSize
	Message3Size = sha256.Size
	KeySize      = sha256.Size

	rwSize     = ocake.PasswordKeySize
	nonceSize  = 12
	tagSize    = 16
	sealedSize = mlkem512.CiphertextSize + tagSize
	hashPrefix = "kexlab LLH-OCAKE ML-KEM-512 v1 "
)

// Session names an exchange: the identities and a Context; see
// ocake.Session.
type Session = ocake.Session

// transcriptHash returns SHA-256(lp(prefix ‖ label) ‖ lp(x1) ‖ … ‖ lp(xn))
// with 8-byte big-endian length prefixes: the random oracles of the
// compiler, separated by label.
func transcriptHash(label string, inputs ...[]byte) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(hashPrefix)+len(label)))
	h.Write(n[:])
	h.Write([]byte(hashPrefix))
	h.Write([]byte(label))
	for _, x := range inputs {
		binary.BigEndian.PutUint64(n[:], uint64(len(x)))
		h.Write(n[:])
		h.Write(x)
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// secrets are what the password yields: rw and the long-term KEM key pair.
type secrets struct {
	rw []byte
	ek *mlkem512.PublicKey
	dk *mlkem512.PrivateKey
}

// deriveSecrets runs the password hash and the key generation of
// registration (and of every login).
func deriveSecrets(password, clientID, serverID []byte, iterations int) (*secrets, error) {
	if len(password) == 0 {
		return nil, fmt.Errorf("%w: empty password", pakeerr.ErrInvalidParameter)
	}
	if iterations == 0 {
		iterations = DefaultIterations
	}
	if iterations < 0 {
		return nil, fmt.Errorf("%w: %d PBKDF2 iterations", pakeerr.ErrInvalidParameter, iterations)
	}
	salt := transcriptHash("salt", clientID, serverID)
	m := pbkdf2.Key(password, salt[:], iterations, sha256.Size)
	defer clear(m)
	return secretsFromHash(m), nil
}

// secretsFromHash derives rw and (ek, dk) from the password hash m.
func secretsFromHash(m []byte) *secrets {
	rw := transcriptHash("rw", m)
	d := transcriptHash("kem d", m)
	z := transcriptHash("kem z", m)
	seed := append(d[:], z[:]...)
	ek, dk := mlkem512.NewKeyFromSeed(seed)
	clearUpperYMM()
	clear(seed)
	return &secrets{rw: rw[:], ek: ek, dk: dk}
}

// Record is the server's password file for one client: rw ‖ ek.
type Record struct {
	rw      []byte
	ek      *mlkem512.PublicKey
	encoded []byte
}

// Register derives the record for password and the pair of identities.
// It runs on the client (or wherever the password is entered); the server
// stores Bytes. Zero iterations selects DefaultIterations; login must use
// the same count.
func Register(password, clientID, serverID []byte, iterations int) (*Record, error) {
	s, err := deriveSecrets(password, clientID, serverID, iterations)
	if err != nil {
		return nil, err
	}
	enc := make([]byte, RecordSize)
	copy(enc, s.rw)
	s.ek.Pack(enc[rwSize:])
	clearUpperYMM()
	return &Record{rw: s.rw, ek: s.ek, encoded: enc}, nil
}

// ParseRecord decodes a record, checking ek as FIPS 203 §7.2 requires.
func ParseRecord(b []byte) (*Record, error) {
	if len(b) != RecordSize {
		return nil, fmt.Errorf("%w: record of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(b), RecordSize)
	}
	var ek mlkem512.PublicKey
	err := ek.Unpack(b[rwSize:])
	clearUpperYMM()
	if err != nil {
		return nil, fmt.Errorf("%w: record: invalid ML-KEM-512 key: %v", pakeerr.ErrInvalidParameter, err)
	}
	enc := bytes.Clone(b)
	return &Record{rw: enc[:rwSize], ek: &ek, encoded: enc}, nil
}

// Bytes returns the record's encoding, rw ‖ ek (nil for a nil or zero
// Record).
func (r *Record) Bytes() []byte {
	if r == nil {
		return nil
	}
	return bytes.Clone(r.encoded)
}

// circl's amd64 ML-KEM assembly leaves the upper YMM registers dirty, which
// makes later SHA-NI and AES-NI code pay an AVX-SSE transition penalty (on
// the development machine, SHA-256 80 times slower until the next
// VZEROUPPER; see package ocake). Every circl call here is followed by
// clearUpperYMM.

// ymmA and ymmB are distinct 64-byte buffers for clearUpperYMM.
var ymmA, ymmB [64]byte

// clearUpperYMM executes VZEROUPPER where the CPU has AVX2: bytes.Equal on
// two distinct buffers of 64 bytes or more runs the runtime's AVX2 loop,
// which ends with VZEROUPPER. Elsewhere it is a cheap comparison.
func clearUpperYMM() { bytes.Equal(ymmA[:], ymmB[:]) }
