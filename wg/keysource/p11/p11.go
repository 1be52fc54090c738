// Package p11 is the PKCS#11 key source of the WireGuard PSK rotator: the
// shared key K lives in a token (an HSM, a smart card, a YubiKey, SoftHSM2)
// and Derive(input) is computed inside the token by the mechanism that K's
// type (CKA_KEY_TYPE, read when the Source opens) selects:
//
//   - HMAC: K is a CKK_GENERIC_SECRET (or CKK_SHA256_HMAC) key and Derive
//     is C_Sign with CKM_SHA256_HMAC (PKCS#11 v2.40 Current Mechanisms
//     §2.20.4), HMAC-SHA256 of RFC 2104: the function the file and TPM
//     sources of package keysource compute, so such a key may also be
//     shared with a file or TPM source.
//   - AES, for tokens that offer CKM_AES_CMAC but not CKM_SHA256_HMAC
//     (many smart cards, e.g. the SmartCard-HSM): K is a CKK_AES key and
//     Derive expands a CKM_AES_CMAC signature with HKDF.
//
// With an AES key, Derive computes the CMAC of NIST SP 800-38B with AES
// (RFC 4493; "AES-CMAC" in Current Mechanisms) inside the token and
// HKDF-SHA256 (RFC 5869 §2) in the host:
//
//	T = C_Sign(CKM_AES_CMAC, K, input)         (16 bytes)
//	Derive(input) = HKDF-SHA256(IKM = T, salt = empty,
//	                            info = "kexlab-wg v1 aes-cmac", L = 32)
//
// AES-CMAC is a PRF with a 128-bit output, so the PSK carries at most 128
// bits from the hardware whatever the size of K (AES-256 by
// GenerateAESKey): it is as hard to guess as a 128-bit key for someone
// without K, not a 256-bit one. HKDF does two things here. It expands the
// 16 bytes of T to the 32 WireGuard takes (Extract with an empty salt,
// which RFC 5869 §2.2 defines as HashLen zeros, then Expand), which a
// hash of T or a zero padding would also do; and its info string
// separates this use of T from any other: the PSK is never the raw CMAC
// of an input, which other software holding the key might compute and
// reveal for its own purposes.
//
// The two peers must hold the same key of the same type. An AES key and an
// HMAC key holding the same bytes give different outputs, and therefore
// different key check values (keysource.CheckValue goes through Derive):
// comparing the check values, which operators do after provisioning,
// catches a type mismatch too. An AES key can only be paired with another
// PKCS#11 AES key, not with a file or TPM source, which compute HMAC.
//
// The token is chosen by its label, the key by its CKA_LABEL, and the user
// PIN comes from a file of mode 0600 or from an environment variable
// (removed from the environment once read; see Config.PINEnv), never from
// the command line; a Source keeps it, zeroed at Close, to log in again. Open checks that the token lists the key's
// mechanism with CKF_SIGN (C_GetMechanismList, C_GetMechanismInfo) and that
// the key may sign. A Source opens one session, logs in once and
// serialises its operations with a mutex; a session the token has closed
// (token removed and reinserted, module restarted) is reopened once.
//
// Provisioning (Token) creates a key in a token, exports it wrapped under a
// shared AES key-encryption key with CKM_AES_KEY_WRAP_PAD (RFC 5649), or
// CKM_AES_KEY_WRAP (RFC 3394) where a token lacks it, and imports it on the
// other peer's token as a key of the same type.
//
// The PKCS#11 plumbing under Source and Token (module loading, slot by
// token label, session and login, key lookup by label) is in
// internal/session. The binding to the PKCS#11 library
// (github.com/miekg/pkcs11) needs cgo.
// A program built without cgo (CGO_ENABLED=0) keeps this package's API,
// but Open and OpenToken return ErrUnavailable; the text form of Wrapped
// keys works in both builds.
package p11

import (
	"errors"
	"fmt"
)

// ErrUnavailable: the program was built without cgo, which the PKCS#11
// binding needs. Open and OpenToken return it (wrapped in
// keysource.ErrDevice) in such a build.
var ErrUnavailable = errors.New("p11: built without cgo: PKCS#11 needs cgo")

// ErrKeyType: the key is of a type Derive cannot use (neither an HMAC nor
// an AES key), may not sign (CKA_SIGN false), or a key type was misnamed.
var ErrKeyType = errors.New("p11: unsupported key type")

// KeyType is the type of the shared key K in a token, which selects the
// mechanism of Derive (see the package documentation).
type KeyType int

const (
	// HMAC is a CKK_GENERIC_SECRET key used with CKM_SHA256_HMAC.
	HMAC KeyType = iota
	// AES is a CKK_AES key used with CKM_AES_CMAC, expanded with HKDF.
	AES
)

// String returns "hmac" or "aes", the names ParseKeyType accepts.
func (k KeyType) String() string {
	switch k {
	case HMAC:
		return "hmac"
	case AES:
		return "aes"
	}
	return fmt.Sprintf("KeyType(%d)", int(k))
}

// ParseKeyType parses "hmac" or "aes".
func ParseKeyType(s string) (KeyType, error) {
	switch s {
	case "hmac":
		return HMAC, nil
	case "aes":
		return AES, nil
	}
	return 0, fmt.Errorf("%w: %q (want hmac or aes)", ErrKeyType, s)
}

// cmacInfo is the HKDF info string of the AES-CMAC derivation.
const cmacInfo = "kexlab-wg v1 aes-cmac"

// Config selects a module, a token, a key and a PIN source.
type Config struct {
	// Module is the path of the PKCS#11 library, e.g.
	// /usr/lib/softhsm/libsofthsm2.so.
	Module string
	// TokenLabel is the token's label (CK_TOKEN_INFO.label, without padding).
	TokenLabel string
	// KeyLabel is the CKA_LABEL of the key, an HMAC or an AES key (unused
	// by OpenToken).
	KeyLabel string
	// PINFile names a file (mode 0600) holding the user PIN; a trailing
	// newline is ignored. Exactly one of PINFile and PINEnv must be set.
	PINFile string
	// PINEnv names an environment variable holding the user PIN. Open and
	// OpenToken remove the variable from the environment once they have
	// read it (os.Unsetenv), so that child processes do not inherit it;
	// a second Open with the same Config then fails with ErrPIN, while
	// the Source keeps the PIN for its reconnections. Unsetting does not
	// erase the PIN from the process: the environment block the kernel
	// placed on the process's initial stack keeps the original bytes,
	// readable in /proc/PID/environ by the same user and by root, for as
	// long as the process runs. Prefer PINFile.
	PINEnv string
}
