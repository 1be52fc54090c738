//go:build cgo

package p11

import (
	"errors"
	"fmt"

	"github.com/miekg/pkcs11"

	"github.com/kexlab/kexlab/wg/keysource"
)

// wrapped.go spells out the mechanism numbers so that it builds without
// cgo; these declarations fail to compile if they differ from the binding's.
var (
	_ [KWP - pkcs11.CKM_AES_KEY_WRAP_PAD]struct{}
	_ [pkcs11.CKM_AES_KEY_WRAP_PAD - KWP]struct{}
	_ [KW - pkcs11.CKM_AES_KEY_WRAP]struct{}
	_ [pkcs11.CKM_AES_KEY_WRAP - KW]struct{}
)

// Token is an administrative read-write session on a token, for
// provisioning keys. Close it when done.
type Token struct {
	c *conn
	// ephemeral makes ImportKey create session objects (tests only).
	ephemeral bool
}

// OpenToken logs in to cfg.TokenLabel (cfg.KeyLabel is not used).
func OpenToken(cfg Config) (*Token, error) {
	pin, err := cfg.pin()
	if err != nil {
		return nil, err
	}
	c, err := dial(&cfg, pin, true)
	if err != nil {
		return nil, err
	}
	return &Token{c: c}, nil
}

// Close ends the session.
func (t *Token) Close() error {
	if t.c != nil {
		t.c.close()
		t.c = nil
	}
	return nil
}

func (t *Token) ensureAbsent(label string, keyType uint) error {
	if t.c == nil {
		return keysource.ErrClosed
	}
	_, err := t.c.findKey(label, keyType)
	switch {
	case err == nil:
		return fmt.Errorf("%w: %q", ErrKeyExists, label)
	case errors.Is(err, keysource.ErrKeyNotFound):
		return nil
	}
	return err
}

// hmacKeyTemplate is the template of an HMAC key: a private, sensitive token
// object usable only for CKM_SHA256_HMAC signing and verification.
func hmacKeyTemplate(label string, extractable bool) []*pkcs11.Attribute {
	return []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_GENERIC_SECRET),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
		pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, true),
		pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, extractable),
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
		pkcs11.NewAttribute(pkcs11.CKA_VERIFY, true),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
}

// GenerateKey creates a new random 32-byte HMAC key labelled label in the
// token (CKM_GENERIC_SECRET_KEY_GEN). It is extractable only wrapped
// (CKA_SENSITIVE), so that Export can hand it to the other peer.
func (t *Token) GenerateKey(label string) error {
	if err := t.ensureAbsent(label, pkcs11.CKK_GENERIC_SECRET); err != nil {
		return err
	}
	if err := requireMechanisms(t.c.ctx, t.c.slot, pkcs11.CKM_GENERIC_SECRET_KEY_GEN); err != nil {
		return err
	}
	tmpl := append(hmacKeyTemplate(label, true), pkcs11.NewAttribute(pkcs11.CKA_VALUE_LEN, keysource.KeySize))
	m := []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_GENERIC_SECRET_KEY_GEN, nil)}
	if _, err := t.c.ctx.GenerateKey(t.c.sh, m, tmpl); err != nil {
		return wrapErr("C_GenerateKey", err)
	}
	return nil
}

// ImportKey stores a given HMAC key (1 to 256 bytes; the rotator uses 32,
// and tokens may refuse HMAC-SHA256 keys under 32 bytes)
// in the token as a non-extractable object labelled label (C_CreateObject).
// The key crosses the PKCS#11 interface in the clear: use it for keys that
// exist in software anyway (a file key, test vectors), Import otherwise.
func (t *Token) ImportKey(label string, key []byte) error {
	if len(key) < 1 || len(key) > 256 {
		return fmt.Errorf("%w: HMAC key of %d bytes", keysource.ErrKeyFile, len(key))
	}
	if err := t.ensureAbsent(label, pkcs11.CKK_GENERIC_SECRET); err != nil {
		return err
	}
	tmpl := append(hmacKeyTemplate(label, false), pkcs11.NewAttribute(pkcs11.CKA_VALUE, key))
	if t.ephemeral {
		tmpl[2] = pkcs11.NewAttribute(pkcs11.CKA_TOKEN, false)
	}
	if _, err := t.c.ctx.CreateObject(t.c.sh, tmpl); err != nil {
		return wrapErr("C_CreateObject", err)
	}
	return nil
}

// ImportKEK stores the shared AES key-encryption key (16, 24 or 32 bytes)
// labelled label, usable only to wrap and unwrap.
func (t *Token) ImportKEK(label string, kek []byte) error {
	if n := len(kek); n != 16 && n != 24 && n != 32 {
		return fmt.Errorf("%w: AES KEK of %d bytes", keysource.ErrKeyFile, n)
	}
	if err := t.ensureAbsent(label, pkcs11.CKK_AES); err != nil {
		return err
	}
	tmpl := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_AES),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
		pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, true),
		pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, false),
		pkcs11.NewAttribute(pkcs11.CKA_WRAP, true),
		pkcs11.NewAttribute(pkcs11.CKA_UNWRAP, true),
		pkcs11.NewAttribute(pkcs11.CKA_ENCRYPT, false),
		pkcs11.NewAttribute(pkcs11.CKA_DECRYPT, false),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
		pkcs11.NewAttribute(pkcs11.CKA_VALUE, kek),
	}
	if _, err := t.c.ctx.CreateObject(t.c.sh, tmpl); err != nil {
		return wrapErr("C_CreateObject(KEK)", err)
	}
	return nil
}

// WrapMechanism returns KWP if the token supports CKM_AES_KEY_WRAP_PAD for
// wrapping, else KW if it supports CKM_AES_KEY_WRAP, else ErrMechanism.
func (t *Token) WrapMechanism() (WrapMechanism, error) {
	if t.c == nil {
		return 0, keysource.ErrClosed
	}
	list, err := t.c.ctx.GetMechanismList(t.c.slot)
	if err != nil {
		return 0, wrapErr("C_GetMechanismList", err)
	}
	switch {
	case hasMechanism(list, uint(KWP)):
		return KWP, nil
	case hasMechanism(list, uint(KW)):
		return KW, nil
	}
	return 0, fmt.Errorf("%w: neither CKM_AES_KEY_WRAP_PAD nor CKM_AES_KEY_WRAP", keysource.ErrMechanism)
}

// Export wraps the HMAC key keyLabel under the AES KEK kekLabel
// (C_WrapKey) with the best mechanism the token offers (WrapMechanism).
func (t *Token) Export(keyLabel, kekLabel string) (Wrapped, error) {
	mech, err := t.WrapMechanism()
	if err != nil {
		return Wrapped{}, err
	}
	key, err := t.c.findKey(keyLabel, pkcs11.CKK_GENERIC_SECRET)
	if err != nil {
		return Wrapped{}, err
	}
	kek, err := t.c.findKey(kekLabel, pkcs11.CKK_AES)
	if err != nil {
		return Wrapped{}, err
	}
	m := []*pkcs11.Mechanism{pkcs11.NewMechanism(uint(mech), nil)}
	data, err := t.c.ctx.WrapKey(t.c.sh, m, kek, key)
	if err != nil {
		return Wrapped{}, wrapErr("C_WrapKey", err)
	}
	return Wrapped{Mechanism: mech, Data: data}, nil
}

// Import unwraps w under the AES KEK kekLabel (C_UnwrapKey) into a new,
// non-extractable HMAC key labelled label.
func (t *Token) Import(label, kekLabel string, w Wrapped) error {
	if err := t.ensureAbsent(label, pkcs11.CKK_GENERIC_SECRET); err != nil {
		return err
	}
	if err := requireMechanisms(t.c.ctx, t.c.slot, uint(w.Mechanism)); err != nil {
		return err
	}
	kek, err := t.c.findKey(kekLabel, pkcs11.CKK_AES)
	if err != nil {
		return err
	}
	m := []*pkcs11.Mechanism{pkcs11.NewMechanism(uint(w.Mechanism), nil)}
	if _, err := t.c.ctx.UnwrapKey(t.c.sh, m, kek, w.Data, hmacKeyTemplate(label, false)); err != nil {
		return wrapErr("C_UnwrapKey", err)
	}
	return nil
}

// DeleteKey destroys the HMAC key labelled label.
func (t *Token) DeleteKey(label string) error {
	if t.c == nil {
		return keysource.ErrClosed
	}
	key, err := t.c.findKey(label, pkcs11.CKK_GENERIC_SECRET)
	if err != nil {
		return err
	}
	if err := t.c.ctx.DestroyObject(t.c.sh, key); err != nil {
		return wrapErr("C_DestroyObject", err)
	}
	return nil
}
