//go:build cgo

package p11

import (
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/miekg/pkcs11"

	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11/internal/session"
)

// signMechanism is the C_Sign mechanism of Derive for keys of type kt.
func signMechanism(kt KeyType) uint {
	if kt == AES {
		return pkcs11.CKM_AES_CMAC
	}
	return pkcs11.CKM_SHA256_HMAC
}

// requireSign returns ErrMechanism unless the token lists the mechanism
// that keys of type kt sign with, with CKF_SIGN in its C_GetMechanismInfo.
func requireSign(c *session.Session, kt KeyType) error {
	m := signMechanism(kt)
	ok, list, err := c.CanSignWith(m)
	if err != nil || ok {
		return err
	}
	err = fmt.Errorf("%w: the token does not offer %s for signing (C_GetMechanismList, CKF_SIGN), which %s keys need",
		keysource.ErrMechanism, session.MechName(m), kt)
	if kt == HMAC && session.Has(list, pkcs11.CKM_AES_CMAC) {
		err = fmt.Errorf("%w; it offers CKM_AES_CMAC: use an AES key (kexlab wg key -p11-key-type aes)", err)
	}
	return err
}

// signingKey finds the key labelled label and returns it with its type:
// it must be an HMAC key (CKK_GENERIC_SECRET or CKK_SHA256_HMAC) or an AES
// key, and have CKA_SIGN set.
func signingKey(c *session.Session, label string) (pkcs11.ObjectHandle, KeyType, error) {
	key, err := c.FindKey(label)
	if err != nil {
		return 0, 0, err
	}
	ckk, err := c.KeyType(key)
	if err != nil {
		return 0, 0, err
	}
	var kt KeyType
	switch ckk {
	case pkcs11.CKK_GENERIC_SECRET, pkcs11.CKK_SHA256_HMAC:
		kt = HMAC
	case pkcs11.CKK_AES:
		kt = AES
	default:
		return 0, 0, fmt.Errorf("%w: %q has CKA_KEY_TYPE %#x; want CKK_GENERIC_SECRET or CKK_SHA256_HMAC (HMAC) or CKK_AES (AES-CMAC)", ErrKeyType, label, ckk)
	}
	if ok, err := c.CanSign(key); err != nil {
		return 0, 0, err
	} else if !ok {
		return 0, 0, fmt.Errorf("%w: the %s key %q may not sign (CKA_SIGN false; a key-encryption key?)", ErrKeyType, kt, label)
	}
	return key, kt, nil
}

// Source is a keysource.Source over an HMAC or AES key in a PKCS#11 token.
//
// A Source keeps the user PIN it read at Open, in a byte slice that Close
// zeroes: reopening a session the token has closed needs a new login, and
// the PIN file may be gone by then, and the environment variable is (Open
// removes it).
type Source struct {
	cfg    Config
	name   string
	kt     KeyType // fixed at Open
	mu     sync.Mutex
	pin    []byte           // cleared by Close
	c      *session.Session // nil after a failed reconnection or Close
	key    pkcs11.ObjectHandle
	closed bool
}

// Open logs in to the token cfg.TokenLabel of cfg.Module and finds the key
// cfg.KeyLabel; its type selects the mechanism of Derive (see the package
// documentation). It fails with ErrTokenNotFound, ErrKeyNotFound,
// ErrKeyType (a key of another type, or one that may not sign),
// ErrMechanism (the token does not offer the key's mechanism for signing)
// or ErrPIN. A PIN taken from the environment variable cfg.PINEnv is
// removed from the environment (see Config.PINEnv).
func Open(cfg Config) (*Source, error) {
	if cfg.KeyLabel == "" {
		return nil, fmt.Errorf("%w: KeyLabel must be set", keysource.ErrKeyNotFound)
	}
	pin, err := session.ReadPIN(cfg.PINFile, cfg.PINEnv)
	if err != nil {
		return nil, err
	}
	s := &Source{cfg: cfg, pin: pin}
	if err := s.connect(true); err != nil {
		clear(s.pin)
		return nil, err
	}
	s.name = fmt.Sprintf("pkcs11:%s/%s", cfg.TokenLabel, cfg.KeyLabel)
	if s.kt == AES {
		s.name += " (aes-cmac)"
	}
	return s, nil
}

// connect opens the session and finds the key. The key's type is taken at
// Open (first); a reconnection refuses a key whose type has changed since.
func (s *Source) connect(first bool) error {
	c, err := session.Open(s.cfg.Module, s.cfg.TokenLabel, s.pin, false)
	if err != nil {
		return err
	}
	key, kt, err := signingKey(c, s.cfg.KeyLabel)
	if err == nil && !first && kt != s.kt {
		err = fmt.Errorf("%w: %q is now an %s key, it was an %s key at Open", ErrKeyType, s.cfg.KeyLabel, kt, s.kt)
	}
	if err == nil {
		err = requireSign(c, kt)
	}
	if err != nil {
		c.Close()
		return err
	}
	s.c, s.key, s.kt = c, key, kt
	return nil
}

// Name implements keysource.Source: "pkcs11:TOKEN/KEY" for an HMAC key,
// "pkcs11:TOKEN/KEY (aes-cmac)" for an AES key.
func (s *Source) Name() string { return s.name }

// KeyType returns the type of the key, which selects the mechanism.
func (s *Source) KeyType() KeyType { return s.kt }

// Derive implements keysource.Source: C_SignInit(CKM_SHA256_HMAC, K) and
// C_Sign(input) for an HMAC key; C_SignInit(CKM_AES_CMAC, K), C_Sign(input)
// and HKDF-SHA256 of the 16-byte result for an AES key (see the package
// documentation).
func (s *Source) Derive(input []byte) ([32]byte, error) {
	var out [32]byte
	if err := keysource.CheckInput(input); err != nil {
		return out, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return out, keysource.ErrClosed
	}
	if s.c == nil {
		if err := s.connect(false); err != nil {
			return out, err
		}
	}
	mac, err := s.sign(input)
	if err != nil && session.Lost(err) {
		s.c.Close()
		s.c = nil
		if cerr := s.connect(false); cerr != nil {
			return out, fmt.Errorf("reconnecting after %v: %w", err, cerr)
		}
		mac, err = s.sign(input)
	}
	mech := session.MechName(signMechanism(s.kt))
	if err != nil {
		return out, session.Wrap("C_Sign("+mech+")", err)
	}
	defer clear(mac)
	if s.kt == HMAC {
		if len(mac) != len(out) {
			return out, fmt.Errorf("%w: %s returned %d bytes", keysource.ErrDevice, mech, len(mac))
		}
		copy(out[:], mac)
		return out, nil
	}
	if len(mac) != 16 {
		return out, fmt.Errorf("%w: %s returned %d bytes", keysource.ErrDevice, mech, len(mac))
	}
	k, err := hkdf.Key(sha256.New, mac, nil, cmacInfo, len(out))
	if err != nil {
		return out, fmt.Errorf("%w: HKDF: %v", keysource.ErrDevice, err)
	}
	copy(out[:], k)
	clear(k)
	return out, nil
}

func (s *Source) sign(input []byte) ([]byte, error) {
	m := []*pkcs11.Mechanism{pkcs11.NewMechanism(signMechanism(s.kt), nil)}
	if err := s.c.Ctx.SignInit(s.c.Handle, m, s.key); err != nil {
		return nil, err
	}
	return s.c.Ctx.Sign(s.c.Handle, input)
}

// Close closes the session (logging out if it was the last on the token)
// and unloads the module when no other Source or Token uses it.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		s.c.Close()
		s.c = nil
	}
	clear(s.pin)
	s.pin = nil
	s.closed = true
	return nil
}

var _ keysource.Source = (*Source)(nil)
