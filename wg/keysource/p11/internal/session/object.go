//go:build cgo

package session

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/miekg/pkcs11"

	"github.com/kexlab/kexlab/wg/keysource"
)

// ReadPIN returns the user PIN from the file pinFile (keysource.ReadPINFile:
// mode 0600, a trailing newline ignored) or from the environment variable
// pinEnv, exactly one of which must be set. The caller clears the result
// when done.
//
// A PIN read from the environment is removed from it (os.Unsetenv), so
// that child processes do not inherit it and later os.Getenv calls do not
// see it. That does not erase it from the process: the environment block
// the kernel placed on the initial stack, which /proc/PID/environ shows
// to the same user and to root, keeps the original bytes, and so does
// whatever of the process's memory held copies. A PIN file (mode 0600) is
// the better choice.
func ReadPIN(pinFile, pinEnv string) ([]byte, error) {
	switch {
	case pinFile != "" && pinEnv != "":
		return nil, fmt.Errorf("%w: set PINFile or PINEnv, not both", keysource.ErrPIN)
	case pinFile != "":
		return keysource.ReadPINFile(pinFile)
	case pinEnv != "":
		p, ok := os.LookupEnv(pinEnv)
		if ok {
			os.Unsetenv(pinEnv)
		}
		if p == "" {
			return nil, fmt.Errorf("%w: environment variable %s is not set", keysource.ErrPIN, pinEnv)
		}
		return []byte(p), nil
	}
	return nil, fmt.Errorf("%w: no PINFile or PINEnv configured", keysource.ErrPIN)
}

// FindKey returns the one object of class CKO_SECRET_KEY labelled label,
// whatever its type. It fails with ErrKeyNotFound if there is none or more
// than one.
func (s *Session) FindKey(label string) (pkcs11.ObjectHandle, error) {
	tmpl := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
	if err := s.Ctx.FindObjectsInit(s.Handle, tmpl); err != nil {
		return 0, Wrap("C_FindObjectsInit", err)
	}
	objs, _, err := s.Ctx.FindObjects(s.Handle, 2)
	if ferr := s.Ctx.FindObjectsFinal(s.Handle); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		return 0, Wrap("C_FindObjects", err)
	}
	switch len(objs) {
	case 0:
		return 0, fmt.Errorf("%w: no secret key labelled %q", keysource.ErrKeyNotFound, label)
	case 1:
		return objs[0], nil
	}
	return 0, fmt.Errorf("%w: more than one key labelled %q", keysource.ErrKeyNotFound, label)
}

// KeyType returns the CKA_KEY_TYPE (a CKK_ value) of key.
func (s *Session) KeyType(key pkcs11.ObjectHandle) (uint, error) {
	a, err := s.Ctx.GetAttributeValue(s.Handle, key, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, nil)})
	if err != nil {
		return 0, Wrap("C_GetAttributeValue(CKA_KEY_TYPE)", err)
	}
	if len(a) == 1 {
		if v, ok := ulong(a[0].Value); ok {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: malformed CKA_KEY_TYPE", keysource.ErrDevice)
}

// ulong decodes a CK_ULONG attribute value (native byte order).
func ulong(b []byte) (uint, bool) {
	switch len(b) {
	case 8:
		return uint(binary.NativeEndian.Uint64(b)), true
	case 4:
		return uint(binary.NativeEndian.Uint32(b)), true
	}
	return 0, false
}

// CanSign reports whether key has CKA_SIGN set.
func (s *Session) CanSign(key pkcs11.ObjectHandle) (bool, error) {
	a, err := s.Ctx.GetAttributeValue(s.Handle, key, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_SIGN, nil)})
	if err != nil {
		return false, Wrap("C_GetAttributeValue(CKA_SIGN)", err)
	}
	return len(a) == 1 && len(a[0].Value) == 1 && a[0].Value[0] != 0, nil
}

// Mechanisms returns the mechanisms the token lists (C_GetMechanismList).
func (s *Session) Mechanisms() ([]uint, error) {
	list, err := s.Ctx.GetMechanismList(s.Slot)
	if err != nil {
		return nil, Wrap("C_GetMechanismList", err)
	}
	ms := make([]uint, len(list))
	for i, m := range list {
		ms[i] = m.Mechanism
	}
	return ms, nil
}

// Require returns ErrMechanism naming the first of mechs that the token
// does not list.
func (s *Session) Require(mechs ...uint) error {
	list, err := s.Mechanisms()
	if err != nil {
		return err
	}
	for _, want := range mechs {
		if !Has(list, want) {
			return fmt.Errorf("%w: the token does not offer %s", keysource.ErrMechanism, MechName(want))
		}
	}
	return nil
}

// CanSignWith reports whether the token lists m with CKF_SIGN in its
// C_GetMechanismInfo; it also returns the token's mechanism list.
func (s *Session) CanSignWith(m uint) (bool, []uint, error) {
	list, err := s.Mechanisms()
	if err != nil || !Has(list, m) {
		return false, list, err
	}
	info, err := s.Ctx.GetMechanismInfo(s.Slot, []*pkcs11.Mechanism{pkcs11.NewMechanism(m, nil)})
	if err != nil {
		return false, list, Wrap("C_GetMechanismInfo", err)
	}
	return info.Flags&pkcs11.CKF_SIGN != 0, list, nil
}

// Has reports whether list holds m.
func Has(list []uint, m uint) bool {
	for _, x := range list {
		if x == m {
			return true
		}
	}
	return false
}

// mechNames names the mechanisms package p11 uses, for error messages.
var mechNames = map[uint]string{
	pkcs11.CKM_SHA256_HMAC:            "CKM_SHA256_HMAC",
	pkcs11.CKM_AES_CMAC:               "CKM_AES_CMAC",
	pkcs11.CKM_GENERIC_SECRET_KEY_GEN: "CKM_GENERIC_SECRET_KEY_GEN",
	pkcs11.CKM_AES_KEY_GEN:            "CKM_AES_KEY_GEN",
	pkcs11.CKM_AES_KEY_WRAP:           "CKM_AES_KEY_WRAP",
	pkcs11.CKM_AES_KEY_WRAP_PAD:       "CKM_AES_KEY_WRAP_PAD",
}

// MechName returns the pkcs11t.h name of m, or its number.
func MechName(m uint) string {
	if n, ok := mechNames[m]; ok {
		return n
	}
	return fmt.Sprintf("mechanism %#x", m)
}

func isCode(err error, code uint) bool {
	var e pkcs11.Error
	return errors.As(err, &e) && uint(e) == code
}

// Wrap maps the error of the PKCS#11 function op to the keysource
// sentinels: ErrPIN, ErrMechanism, ErrTokenNotFound or ErrDevice.
func Wrap(op string, err error) error {
	var e pkcs11.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("%w: %s: %v", keysource.ErrDevice, op, err)
	}
	switch uint(e) {
	case pkcs11.CKR_PIN_INCORRECT, pkcs11.CKR_PIN_INVALID, pkcs11.CKR_PIN_LEN_RANGE,
		pkcs11.CKR_PIN_LOCKED, pkcs11.CKR_PIN_EXPIRED:
		return fmt.Errorf("%w: %s: %v", keysource.ErrPIN, op, err)
	case pkcs11.CKR_MECHANISM_INVALID, pkcs11.CKR_MECHANISM_PARAM_INVALID:
		return fmt.Errorf("%w: %s: %v", keysource.ErrMechanism, op, err)
	case pkcs11.CKR_TOKEN_NOT_PRESENT, pkcs11.CKR_SLOT_ID_INVALID, pkcs11.CKR_TOKEN_NOT_RECOGNIZED:
		return fmt.Errorf("%w: %s: %v", keysource.ErrTokenNotFound, op, err)
	}
	return fmt.Errorf("%w: %s: %v", keysource.ErrDevice, op, err)
}

// Lost reports errors after which reopening the session may help: the
// token closed it, logged out, or was removed.
func Lost(err error) bool {
	return isCode(err, pkcs11.CKR_SESSION_HANDLE_INVALID) || isCode(err, pkcs11.CKR_SESSION_CLOSED) ||
		isCode(err, pkcs11.CKR_USER_NOT_LOGGED_IN) || isCode(err, pkcs11.CKR_DEVICE_REMOVED) ||
		isCode(err, pkcs11.CKR_TOKEN_NOT_PRESENT)
}
