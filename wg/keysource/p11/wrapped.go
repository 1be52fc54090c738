package p11

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
)

// ErrKeyExists: a key with the requested label is already in the token.
var ErrKeyExists = errors.New("p11: a key with this label already exists")

// ErrWrappedFormat: a wrapped key's text form does not parse.
var ErrWrappedFormat = errors.New("p11: malformed wrapped key")

// WrapMechanism is the key-wrapping algorithm of a Wrapped key.
type WrapMechanism uint

// The values are the PKCS#11 v2.40 mechanism numbers (pkcs11t.h), written
// out so that this file builds without cgo.
const (
	// KWP is CKM_AES_KEY_WRAP_PAD, AES Key Wrap with Padding (RFC 5649,
	// NIST SP 800-38F KWP).
	KWP WrapMechanism = 0x210a
	// KW is CKM_AES_KEY_WRAP, AES Key Wrap (RFC 3394, SP 800-38F KW), used
	// where a token lacks KWP; the 32-byte key needs no padding.
	KW WrapMechanism = 0x2109
)

func (m WrapMechanism) String() string {
	switch m {
	case KWP:
		return "aes-kwp"
	case KW:
		return "aes-kw"
	}
	return fmt.Sprintf("mechanism(%#x)", uint(m))
}

// Wrapped is a key exported from a token, encrypted under a key-encryption
// key (KEK) shared by the two peers' tokens, with the type of the key.
type Wrapped struct {
	Mechanism WrapMechanism
	// KeyType is the type of the wrapped key, which Import gives the key it
	// creates. It is not protected by the wrapping: changing it makes the
	// importing peer derive different PSKs (and key check values), as does
	// changing Data.
	KeyType KeyType
	Data    []byte
}

const wrappedPrefix = "kexlab-wg-wrapped-key v1 "

// MarshalText encodes w as one line:
//
//	"kexlab-wg-wrapped-key v1 " mechanism " " base64(Data) [" aes"]
//
// with mechanism "aes-kwp" or "aes-kw", and " aes" at the end for an AES
// key only, so that the line of an HMAC key reads as before AES keys
// existed. The line is not secret without the KEK, but reveals the key to
// anyone who also holds the KEK.
func (w Wrapped) MarshalText() ([]byte, error) {
	if w.Mechanism != KWP && w.Mechanism != KW {
		return nil, fmt.Errorf("%w: unknown mechanism %v", ErrWrappedFormat, w.Mechanism)
	}
	line := wrappedPrefix + w.Mechanism.String() + " " + base64.StdEncoding.EncodeToString(w.Data)
	switch w.KeyType {
	case HMAC:
	case AES:
		line += " " + AES.String()
	default:
		return nil, fmt.Errorf("%w: unknown key type %v", ErrWrappedFormat, w.KeyType)
	}
	return []byte(line), nil
}

// UnmarshalText parses the form written by MarshalText (without a key
// type: an HMAC key); a trailing newline is accepted. The data must be 16
// to 1024 bytes, a multiple of 8.
func (w *Wrapped) UnmarshalText(b []byte) error {
	b = bytes.TrimSuffix(b, []byte("\n"))
	rest, ok := bytes.CutPrefix(b, []byte(wrappedPrefix))
	if !ok {
		return fmt.Errorf("%w: missing %q", ErrWrappedFormat, wrappedPrefix)
	}
	mech, data, ok := bytes.Cut(rest, []byte(" "))
	if !ok {
		return fmt.Errorf("%w: missing data", ErrWrappedFormat)
	}
	var m WrapMechanism
	switch string(mech) {
	case "aes-kwp":
		m = KWP
	case "aes-kw":
		m = KW
	default:
		return fmt.Errorf("%w: unknown mechanism", ErrWrappedFormat)
	}
	kt := HMAC
	if d, t, ok := bytes.Cut(data, []byte(" ")); ok {
		if string(t) != AES.String() {
			return fmt.Errorf("%w: unknown key type", ErrWrappedFormat)
		}
		data, kt = d, AES
	}
	if len(data) > 2048 {
		return fmt.Errorf("%w: too long", ErrWrappedFormat)
	}
	d, err := base64.StdEncoding.Strict().DecodeString(string(data))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrWrappedFormat, err)
	}
	if len(d) < 16 || len(d) > 1024 || len(d)%8 != 0 {
		return fmt.Errorf("%w: %d bytes of wrapped data", ErrWrappedFormat, len(d))
	}
	w.Mechanism, w.KeyType, w.Data = m, kt, d
	return nil
}
