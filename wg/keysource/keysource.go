// Package keysource is the hardware operation of the WireGuard PSK rotator
// (issue 7): a keyed pseudorandom function whose key may live in hardware.
//
// A Source's Derive is a pseudorandom function keyed by a key K that both
// peers of a tunnel share. For a key file, a TPM and a PKCS#11 HMAC key it
// is HMAC-SHA256(K, input) (RFC 2104, FIPS 198-1) with a 32-byte K, the
// same function in each, so peers may use different kinds of source (a
// key file on one side, a PKCS#11 token or a TPM on the other) and still
// derive the same pre-shared key. A PKCS#11 AES key, for tokens without
// HMAC-SHA256, derives with AES-CMAC expanded by HKDF-SHA256 (see package
// p11), a different function: both peers must then hold the same AES key
// in PKCS#11 tokens.
//
//   - File (this package): K is read from a file of mode 0600.
//   - p11 (subpackage): K is a CKK_GENERIC_SECRET object in a PKCS#11
//     token, used with CKM_SHA256_HMAC (PKCS#11 v2.40 Current Mechanisms
//     §2.20.4), or a CKK_AES object used with CKM_AES_CMAC; it never
//     leaves the token unless wrapped under a key-encryption key.
//   - tpm (subpackage): K is a TPM 2.0 keyed-hash object imported under a
//     storage primary key, used with TPM2_HMAC (TPM 2.0 Part 3 §15.5),
//     optionally with an authorization value read from a file.
//
// The PKCS#11 and TPM sources reconnect on their own when the device goes
// away under them (a token reset, a TPM emulator or resource manager
// restarted): Derive reopens it and retries once.
//
// Secret files (key files, PINs, authorization values) are read only if
// they are regular files no one but their owner may access
// (ReadSecretFile, ReadPINFile). Key material (key files, wrapped keys, TPM
// key blobs) is written only to a new file of mode 0600 (WriteNewFile):
// an existing file is not overwritten and a symbolic link not followed.
//
// Inputs are limited to MaxInputLen bytes, the TPM2_HMAC buffer size
// (MAX_DIGEST_BUFFER), for every source alike, so that no input can be
// accepted by one source and refused by another.
//
// CheckValue gives a short public fingerprint of K, computed by the source
// itself, so that operators can confirm that two peers hold the same key.
package keysource

import (
	"encoding/hex"
	"errors"
	"fmt"
)

// KeySize is the size of the shared key and of every output.
const KeySize = 32

// MaxInputLen is the largest input any Source accepts: MAX_DIGEST_BUFFER of
// the TPM 2.0 reference implementation, the size of TPM2_HMAC's buffer.
const MaxInputLen = 1024

// A Source derives 32 bytes deterministically from its key and an input
// with a PRF keyed by K: Derive(input) = HMAC-SHA256(K, input) for file,
// TPM and PKCS#11 HMAC keys; AES-CMAC expanded by HKDF-SHA256 for PKCS#11
// AES keys (see package p11). Implementations are safe for concurrent use.
// After Close, Derive returns ErrClosed.
type Source interface {
	// Name describes the source for logs (never the key).
	Name() string
	// Derive returns the PRF of K at input (HMAC-SHA256(K, input) but for
	// a PKCS#11 AES key). The caller owns the result and should zero it
	// when done.
	Derive(input []byte) ([32]byte, error)
	// Close releases the key and the device; it is idempotent.
	Close() error
}

var (
	// ErrClosed: Derive was called after Close.
	ErrClosed = errors.New("keysource: source is closed")
	// ErrInputTooLong: the input exceeds MaxInputLen.
	ErrInputTooLong = fmt.Errorf("keysource: input longer than %d bytes", MaxInputLen)
	// ErrKeyFile: a key, PIN or authorization-value file is missing,
	// unreadable or malformed, or a file key material is to be written to
	// exists already (an *ExistsError) or cannot be written.
	ErrKeyFile = errors.New("keysource: bad key file")
	// ErrPermissions: a key or PIN file is readable or writable by group or
	// others; the *PermissionError returned with it says which file.
	ErrPermissions = errors.New("keysource: key file permissions too open")
	// ErrTokenNotFound: no PKCS#11 token (or TPM) matches the configuration.
	ErrTokenNotFound = errors.New("keysource: token not found")
	// ErrKeyNotFound: the token has no key with the configured label, or
	// more than one.
	ErrKeyNotFound = errors.New("keysource: key not found")
	// ErrMechanism: the token does not support a required mechanism.
	ErrMechanism = errors.New("keysource: mechanism not supported")
	// ErrPIN: no PIN was configured, or the token refused it.
	ErrPIN = errors.New("keysource: PIN missing or refused")
	// ErrDevice: the device (PKCS#11 module, TPM) failed.
	ErrDevice = errors.New("keysource: device error")
)

// CheckInput returns ErrInputTooLong if input is longer than MaxInputLen.
// Implementations call it first so that all sources accept the same inputs.
func CheckInput(input []byte) error {
	if len(input) > MaxInputLen {
		return fmt.Errorf("%w: %d", ErrInputTooLong, len(input))
	}
	return nil
}

// CheckValueInput is the input of CheckValue. It is distinct from every
// input package wg derives a PSK from: those all start with "kexlab-wg v1 "
// followed by "timestamp", "hash ratchet seed", "hardware ratchet" or
// "fresh", and this one continues with "key check value" and ends there,
// so it differs from each of them at the 14th byte.
const CheckValueInput = "kexlab-wg v1 key check value"

// CheckValueSize is the size of a key check value in bytes.
const CheckValueSize = 8

// CheckValue returns the key check value of src's key K: the first
// CheckValueSize bytes of Derive(CheckValueInput) (Derive of
// "kexlab-wg v1 key check value": HMAC-SHA256 of it under K for file, TPM
// and PKCS#11 HMAC keys, AES-CMAC+HKDF for PKCS#11 AES keys), as 16
// lowercase hex digits. The source computes it, so a hardware key never
// leaves the device.
//
// Two sources with the same key and the same function give the same
// value; sources with different keys, or an AES and an HMAC key of the
// same bytes, give different values except with probability 2^-64.
// As Derive is a pseudorandom function, the value reveals nothing
// useful about K beyond this equality: it is one PRF output on an input
// that is never a PSK input, so it tells nothing about any PSK either. It
// may be shown, logged and compared over an unauthenticated channel. It
// does let anyone test guesses of K offline, which is no concern for a
// random 256-bit K (CreateKeyFile, p11's GenerateKey) but would be for a
// key derived from a password.
func CheckValue(src Source) (string, error) {
	out, err := src.Derive([]byte(CheckValueInput))
	defer clear(out[:])
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(out[:CheckValueSize]), nil
}
