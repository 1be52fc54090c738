//go:build cgo

package p11

import (
	"errors"
	"fmt"

	"github.com/miekg/pkcs11"

	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11/internal/session"
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
	c *session.Session
	// ephemeral makes ImportKey create session objects (tests only).
	ephemeral bool
}

// OpenToken logs in to cfg.TokenLabel (cfg.KeyLabel is not used). Like
// Open, it removes a PIN taken from cfg.PINEnv from the environment.
func OpenToken(cfg Config) (*Token, error) {
	pin, err := session.ReadPIN(cfg.PINFile, cfg.PINEnv)
	if err != nil {
		return nil, err
	}
	defer clear(pin)
	c, err := session.Open(cfg.Module, cfg.TokenLabel, pin, true)
	if err != nil {
		return nil, err
	}
	return &Token{c: c}, nil
}

// Close ends the session.
func (t *Token) Close() error {
	if t.c != nil {
		t.c.Close()
		t.c = nil
	}
	return nil
}

// ensureAbsent fails with ErrKeyExists if any secret key is labelled
// label: Open finds keys by label alone.
func (t *Token) ensureAbsent(label string) error {
	if t.c == nil {
		return keysource.ErrClosed
	}
	_, err := t.c.FindKey(label)
	switch {
	case err == nil:
		return fmt.Errorf("%w: %q", ErrKeyExists, label)
	case errors.Is(err, keysource.ErrKeyNotFound):
		return nil
	}
	return err
}

// keyTemplate is the template of a key of type kt: a private, sensitive
// token object usable only to sign and verify with the mechanism of kt
// (an AES key may not encrypt, decrypt, wrap or unwrap).
func keyTemplate(label string, kt KeyType, extractable bool) []*pkcs11.Attribute {
	ckk := uint(pkcs11.CKK_GENERIC_SECRET)
	if kt == AES {
		ckk = pkcs11.CKK_AES
	}
	tmpl := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, ckk),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
		pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, true),
		pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, extractable),
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
		pkcs11.NewAttribute(pkcs11.CKA_VERIFY, true),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
	if kt == AES {
		for _, a := range []uint{pkcs11.CKA_ENCRYPT, pkcs11.CKA_DECRYPT, pkcs11.CKA_WRAP, pkcs11.CKA_UNWRAP} {
			tmpl = append(tmpl, pkcs11.NewAttribute(a, false))
		}
	}
	return tmpl
}

func checkKeyType(kt KeyType) error {
	if kt != HMAC && kt != AES {
		return fmt.Errorf("%w: %v", ErrKeyType, kt)
	}
	return nil
}

// GenerateKey creates a new random 32-byte HMAC key labelled label in the
// token (CKM_GENERIC_SECRET_KEY_GEN). It is extractable only wrapped
// (CKA_SENSITIVE), so that Export can hand it to the other peer.
func (t *Token) GenerateKey(label string) error { return t.generate(label, HMAC) }

// GenerateAESKey creates a new random AES-256 key labelled label in the
// token (CKM_AES_KEY_GEN), for a token that offers CKM_AES_CMAC but not
// CKM_SHA256_HMAC; Derive then uses AES-CMAC and HKDF (see the package
// documentation). Like GenerateKey's, the key is extractable only wrapped.
func (t *Token) GenerateAESKey(label string) error { return t.generate(label, AES) }

func (t *Token) generate(label string, kt KeyType) error {
	if err := t.ensureAbsent(label); err != nil {
		return err
	}
	gen := uint(pkcs11.CKM_GENERIC_SECRET_KEY_GEN)
	if kt == AES {
		gen = pkcs11.CKM_AES_KEY_GEN
	}
	if err := t.c.Require(gen); err != nil {
		return err
	}
	// A key the token cannot use would fail only later, at Open.
	if err := requireSign(t.c, kt); err != nil {
		return err
	}
	tmpl := append(keyTemplate(label, kt, true), pkcs11.NewAttribute(pkcs11.CKA_VALUE_LEN, keysource.KeySize))
	m := []*pkcs11.Mechanism{pkcs11.NewMechanism(gen, nil)}
	if _, err := t.c.Ctx.GenerateKey(t.c.Handle, m, tmpl); err != nil {
		return session.Wrap("C_GenerateKey", err)
	}
	return nil
}

// ImportKey stores a given HMAC key (1 to 256 bytes; the rotator uses 32,
// and tokens may refuse HMAC-SHA256 keys under 32 bytes)
// in the token as a non-extractable object labelled label (C_CreateObject).
// The key crosses the PKCS#11 interface in the clear: use it for keys that
// exist in software anyway (a file key, test vectors), Import otherwise.
func (t *Token) ImportKey(label string, key []byte) error { return t.importKey(label, HMAC, key) }

// importKey stores key as a key of type kt (an AES key: 16, 24 or 32 bytes).
func (t *Token) importKey(label string, kt KeyType, key []byte) error {
	if err := checkKeyType(kt); err != nil {
		return err
	}
	n := len(key)
	if kt == HMAC && (n < 1 || n > 256) || kt == AES && n != 16 && n != 24 && n != 32 {
		return fmt.Errorf("%w: %s key of %d bytes", keysource.ErrKeyFile, kt, n)
	}
	if err := t.ensureAbsent(label); err != nil {
		return err
	}
	tmpl := append(keyTemplate(label, kt, false), pkcs11.NewAttribute(pkcs11.CKA_VALUE, key))
	if t.ephemeral {
		tmpl[2] = pkcs11.NewAttribute(pkcs11.CKA_TOKEN, false)
	}
	if _, err := t.c.Ctx.CreateObject(t.c.Handle, tmpl); err != nil {
		return session.Wrap("C_CreateObject", err)
	}
	return nil
}

// ImportKEK stores the shared AES key-encryption key (16, 24 or 32 bytes)
// labelled label, usable only to wrap and unwrap (not to sign, so that
// Open refuses it as the key of a Source).
func (t *Token) ImportKEK(label string, kek []byte) error {
	if n := len(kek); n != 16 && n != 24 && n != 32 {
		return fmt.Errorf("%w: AES KEK of %d bytes", keysource.ErrKeyFile, n)
	}
	if err := t.ensureAbsent(label); err != nil {
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
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, false),
		pkcs11.NewAttribute(pkcs11.CKA_VERIFY, false),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
		pkcs11.NewAttribute(pkcs11.CKA_VALUE, kek),
	}
	if _, err := t.c.Ctx.CreateObject(t.c.Handle, tmpl); err != nil {
		return session.Wrap("C_CreateObject(KEK)", err)
	}
	return nil
}

// WrapMechanism returns KWP if the token supports CKM_AES_KEY_WRAP_PAD for
// wrapping, else KW if it supports CKM_AES_KEY_WRAP, else ErrMechanism.
func (t *Token) WrapMechanism() (WrapMechanism, error) {
	if t.c == nil {
		return 0, keysource.ErrClosed
	}
	list, err := t.c.Mechanisms()
	if err != nil {
		return 0, err
	}
	switch {
	case session.Has(list, uint(KWP)):
		return KWP, nil
	case session.Has(list, uint(KW)):
		return KW, nil
	}
	return 0, fmt.Errorf("%w: neither CKM_AES_KEY_WRAP_PAD nor CKM_AES_KEY_WRAP", keysource.ErrMechanism)
}

// findKEK returns the AES key labelled label.
func (t *Token) findKEK(label string) (pkcs11.ObjectHandle, error) {
	kek, err := t.c.FindKey(label)
	if err != nil {
		return 0, err
	}
	if ckk, err := t.c.KeyType(kek); err != nil {
		return 0, err
	} else if ckk != pkcs11.CKK_AES {
		return 0, fmt.Errorf("%w: the KEK %q is not an AES key (CKA_KEY_TYPE %#x)", ErrKeyType, label, ckk)
	}
	return kek, nil
}

// Export wraps the HMAC or AES key keyLabel under the AES KEK kekLabel
// (C_WrapKey) with the best mechanism the token offers (WrapMechanism).
// The result records the key's type, so that Import recreates it.
func (t *Token) Export(keyLabel, kekLabel string) (Wrapped, error) {
	mech, err := t.WrapMechanism()
	if err != nil {
		return Wrapped{}, err
	}
	key, kt, err := signingKey(t.c, keyLabel)
	if err != nil {
		return Wrapped{}, err
	}
	kek, err := t.findKEK(kekLabel)
	if err != nil {
		return Wrapped{}, err
	}
	m := []*pkcs11.Mechanism{pkcs11.NewMechanism(uint(mech), nil)}
	data, err := t.c.Ctx.WrapKey(t.c.Handle, m, kek, key)
	if err != nil {
		return Wrapped{}, session.Wrap("C_WrapKey", err)
	}
	return Wrapped{Mechanism: mech, KeyType: kt, Data: data}, nil
}

// Import unwraps w under the AES KEK kekLabel (C_UnwrapKey) into a new,
// non-extractable key of type w.KeyType labelled label. It fails with
// ErrMechanism, before creating anything, if the token does not offer the
// mechanism that Derive needs for that type.
func (t *Token) Import(label, kekLabel string, w Wrapped) error {
	if err := checkKeyType(w.KeyType); err != nil {
		return err
	}
	if err := t.ensureAbsent(label); err != nil {
		return err
	}
	if err := t.c.Require(uint(w.Mechanism)); err != nil {
		return err
	}
	if err := requireSign(t.c, w.KeyType); err != nil {
		return err
	}
	kek, err := t.findKEK(kekLabel)
	if err != nil {
		return err
	}
	m := []*pkcs11.Mechanism{pkcs11.NewMechanism(uint(w.Mechanism), nil)}
	if _, err := t.c.Ctx.UnwrapKey(t.c.Handle, m, kek, w.Data, keyTemplate(label, w.KeyType, false)); err != nil {
		return session.Wrap("C_UnwrapKey", err)
	}
	return nil
}

// DeleteKey destroys the HMAC or AES key labelled label (not a KEK).
func (t *Token) DeleteKey(label string) error {
	if t.c == nil {
		return keysource.ErrClosed
	}
	key, _, err := signingKey(t.c, label)
	if err != nil {
		return err
	}
	if err := t.c.Ctx.DestroyObject(t.c.Handle, key); err != nil {
		return session.Wrap("C_DestroyObject", err)
	}
	return nil
}
