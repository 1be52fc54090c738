//go:build cgo

package p11

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/miekg/pkcs11"

	"github.com/kexlab/kexlab/wg/keysource"
)

// A module is a loaded PKCS#11 library, shared by every Source and Token
// of the process that names the same path: C_Initialize and C_Finalize act
// on the whole library, so they are reference counted.
type module struct {
	path string
	ctx  *pkcs11.Ctx
	refs int
}

var (
	modulesMu sync.Mutex
	modules   = map[string]*module{}
)

func loadModule(path string) (*module, error) {
	modulesMu.Lock()
	defer modulesMu.Unlock()
	if m, ok := modules[path]; ok {
		m.refs++
		return m, nil
	}
	ctx := pkcs11.New(path)
	if ctx == nil {
		return nil, fmt.Errorf("%w: cannot load PKCS#11 module %s", keysource.ErrDevice, path)
	}
	if err := ctx.Initialize(); err != nil && !isCode(err, pkcs11.CKR_CRYPTOKI_ALREADY_INITIALIZED) {
		ctx.Destroy()
		return nil, fmt.Errorf("%w: C_Initialize(%s): %v", keysource.ErrDevice, path, err)
	}
	m := &module{path: path, ctx: ctx, refs: 1}
	modules[path] = m
	return m, nil
}

func (m *module) release() {
	modulesMu.Lock()
	defer modulesMu.Unlock()
	m.refs--
	if m.refs > 0 {
		return
	}
	delete(modules, m.path)
	m.ctx.Finalize()
	m.ctx.Destroy()
}

func isCode(err error, code uint) bool {
	var e pkcs11.Error
	return errors.As(err, &e) && uint(e) == code
}

// wrapErr maps a PKCS#11 return value to the keysource sentinels.
func wrapErr(op string, err error) error {
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

// sessionLost reports errors after which reopening the session may help.
func sessionLost(err error) bool {
	return isCode(err, pkcs11.CKR_SESSION_HANDLE_INVALID) || isCode(err, pkcs11.CKR_SESSION_CLOSED) ||
		isCode(err, pkcs11.CKR_USER_NOT_LOGGED_IN) || isCode(err, pkcs11.CKR_DEVICE_REMOVED) ||
		isCode(err, pkcs11.CKR_TOKEN_NOT_PRESENT)
}

// conn is a logged-in session on the configured token.
type conn struct {
	mod  *module
	ctx  *pkcs11.Ctx
	slot uint
	sh   pkcs11.SessionHandle
}

func findSlot(ctx *pkcs11.Ctx, label string) (uint, error) {
	slots, err := ctx.GetSlotList(true)
	if err != nil {
		return 0, wrapErr("C_GetSlotList", err)
	}
	for _, s := range slots {
		ti, err := ctx.GetTokenInfo(s)
		if err != nil {
			continue
		}
		if strings.TrimRight(ti.Label, " \x00") == label {
			return s, nil
		}
	}
	return 0, fmt.Errorf("%w: no token labelled %q", keysource.ErrTokenNotFound, label)
}

// mechNames names the mechanisms this package uses, for error messages.
var mechNames = map[uint]string{
	pkcs11.CKM_SHA256_HMAC:            "CKM_SHA256_HMAC",
	pkcs11.CKM_AES_CMAC:               "CKM_AES_CMAC",
	pkcs11.CKM_GENERIC_SECRET_KEY_GEN: "CKM_GENERIC_SECRET_KEY_GEN",
	pkcs11.CKM_AES_KEY_GEN:            "CKM_AES_KEY_GEN",
	pkcs11.CKM_AES_KEY_WRAP:           "CKM_AES_KEY_WRAP",
	pkcs11.CKM_AES_KEY_WRAP_PAD:       "CKM_AES_KEY_WRAP_PAD",
}

func mechName(m uint) string {
	if n, ok := mechNames[m]; ok {
		return n
	}
	return fmt.Sprintf("mechanism %#x", m)
}

// requireMechanisms returns ErrMechanism naming the first of mechs that the
// token does not list.
func requireMechanisms(ctx *pkcs11.Ctx, slot uint, mechs ...uint) error {
	list, err := ctx.GetMechanismList(slot)
	if err != nil {
		return wrapErr("C_GetMechanismList", err)
	}
	for _, want := range mechs {
		if !hasMechanism(list, want) {
			return fmt.Errorf("%w: the token does not offer %s", keysource.ErrMechanism, mechName(want))
		}
	}
	return nil
}

// requireSign returns ErrMechanism unless the token lists the mechanism
// that keys of type kt sign with, with CKF_SIGN in its C_GetMechanismInfo.
func requireSign(ctx *pkcs11.Ctx, slot uint, kt KeyType) error {
	m := signMechanism(kt)
	list, err := ctx.GetMechanismList(slot)
	if err != nil {
		return wrapErr("C_GetMechanismList", err)
	}
	if hasMechanism(list, m) {
		info, err := ctx.GetMechanismInfo(slot, []*pkcs11.Mechanism{pkcs11.NewMechanism(m, nil)})
		if err != nil {
			return wrapErr("C_GetMechanismInfo", err)
		}
		if info.Flags&pkcs11.CKF_SIGN != 0 {
			return nil
		}
	}
	err = fmt.Errorf("%w: the token does not offer %s for signing (C_GetMechanismList, CKF_SIGN), which %s keys need",
		keysource.ErrMechanism, mechName(m), kt)
	if kt == HMAC && hasMechanism(list, pkcs11.CKM_AES_CMAC) {
		err = fmt.Errorf("%w; it offers CKM_AES_CMAC: use an AES key (kexlab wg key -p11-key-type aes)", err)
	}
	return err
}

// signMechanism is the C_Sign mechanism of Derive for keys of type kt.
func signMechanism(kt KeyType) uint {
	if kt == AES {
		return pkcs11.CKM_AES_CMAC
	}
	return pkcs11.CKM_SHA256_HMAC
}

func hasMechanism(list []*pkcs11.Mechanism, m uint) bool {
	for _, x := range list {
		if x.Mechanism == m {
			return true
		}
	}
	return false
}

// dial opens a session on the configured token and logs the user in.
func dial(cfg *Config, pin string, rw bool) (*conn, error) {
	if cfg.Module == "" || cfg.TokenLabel == "" {
		return nil, fmt.Errorf("%w: Module and TokenLabel must be set", keysource.ErrTokenNotFound)
	}
	mod, err := loadModule(cfg.Module)
	if err != nil {
		return nil, err
	}
	c := &conn{mod: mod, ctx: mod.ctx}
	if c.slot, err = findSlot(c.ctx, cfg.TokenLabel); err != nil {
		mod.release()
		return nil, err
	}
	flags := uint(pkcs11.CKF_SERIAL_SESSION)
	if rw {
		flags |= pkcs11.CKF_RW_SESSION
	}
	if c.sh, err = c.ctx.OpenSession(c.slot, flags); err != nil {
		mod.release()
		return nil, wrapErr("C_OpenSession", err)
	}
	// The login state belongs to the application and the token, not to a
	// session: a second Source on the same token finds it logged in.
	if err := c.ctx.Login(c.sh, pkcs11.CKU_USER, pin); err != nil && !isCode(err, pkcs11.CKR_USER_ALREADY_LOGGED_IN) {
		c.close()
		return nil, wrapErr("C_Login", err)
	}
	return c, nil
}

// close closes the session. Closing an application's last session on a
// token logs it out (PKCS#11 v2.40 §5.6, C_CloseSession); C_Logout is not
// called so that other sessions on the token stay logged in.
func (c *conn) close() {
	c.ctx.CloseSession(c.sh)
	c.mod.release()
}

// findKey returns the one object of class CKO_SECRET_KEY labelled label,
// whatever its type.
func (c *conn) findKey(label string) (pkcs11.ObjectHandle, error) {
	tmpl := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
	if err := c.ctx.FindObjectsInit(c.sh, tmpl); err != nil {
		return 0, wrapErr("C_FindObjectsInit", err)
	}
	objs, _, err := c.ctx.FindObjects(c.sh, 2)
	if ferr := c.ctx.FindObjectsFinal(c.sh); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		return 0, wrapErr("C_FindObjects", err)
	}
	switch len(objs) {
	case 0:
		return 0, fmt.Errorf("%w: no secret key labelled %q", keysource.ErrKeyNotFound, label)
	case 1:
		return objs[0], nil
	}
	return 0, fmt.Errorf("%w: more than one key labelled %q", keysource.ErrKeyNotFound, label)
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

// keyType returns the CKA_KEY_TYPE of key.
func (c *conn) keyType(key pkcs11.ObjectHandle) (uint, error) {
	a, err := c.ctx.GetAttributeValue(c.sh, key, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, nil)})
	if err != nil {
		return 0, wrapErr("C_GetAttributeValue(CKA_KEY_TYPE)", err)
	}
	if len(a) == 1 {
		if v, ok := ulong(a[0].Value); ok {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: malformed CKA_KEY_TYPE", keysource.ErrDevice)
}

// signingKey finds the key labelled label and returns it with its type:
// it must be an HMAC key (CKK_GENERIC_SECRET or CKK_SHA256_HMAC) or an AES
// key, and have CKA_SIGN set.
func (c *conn) signingKey(label string) (pkcs11.ObjectHandle, KeyType, error) {
	key, err := c.findKey(label)
	if err != nil {
		return 0, 0, err
	}
	ckk, err := c.keyType(key)
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
	a, err := c.ctx.GetAttributeValue(c.sh, key, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_SIGN, nil)})
	if err != nil {
		return 0, 0, wrapErr("C_GetAttributeValue(CKA_SIGN)", err)
	}
	if len(a) != 1 || len(a[0].Value) != 1 || a[0].Value[0] == 0 {
		return 0, 0, fmt.Errorf("%w: the %s key %q may not sign (CKA_SIGN false; a key-encryption key?)", ErrKeyType, kt, label)
	}
	return key, kt, nil
}

// Source is a keysource.Source over an HMAC or AES key in a PKCS#11 token.
type Source struct {
	cfg    Config
	name   string
	kt     KeyType // fixed at Open
	mu     sync.Mutex
	pin    string
	c      *conn // nil after a failed reconnection or Close
	key    pkcs11.ObjectHandle
	closed bool
}

// Open logs in to the token cfg.TokenLabel of cfg.Module and finds the key
// cfg.KeyLabel; its type selects the mechanism of Derive (see the package
// documentation). It fails with ErrTokenNotFound, ErrKeyNotFound,
// ErrKeyType (a key of another type, or one that may not sign),
// ErrMechanism (the token does not offer the key's mechanism for signing)
// or ErrPIN.
func Open(cfg Config) (*Source, error) {
	if cfg.KeyLabel == "" {
		return nil, fmt.Errorf("%w: KeyLabel must be set", keysource.ErrKeyNotFound)
	}
	pin, err := cfg.pin()
	if err != nil {
		return nil, err
	}
	s := &Source{cfg: cfg, pin: pin}
	if err := s.connect(true); err != nil {
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
	c, err := dial(&s.cfg, s.pin, false)
	if err != nil {
		return err
	}
	key, kt, err := c.signingKey(s.cfg.KeyLabel)
	if err == nil && !first && kt != s.kt {
		err = fmt.Errorf("%w: %q is now an %s key, it was an %s key at Open", ErrKeyType, s.cfg.KeyLabel, kt, s.kt)
	}
	if err == nil {
		err = requireSign(c.ctx, c.slot, kt)
	}
	if err != nil {
		c.close()
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
	if err != nil && sessionLost(err) {
		s.c.close()
		s.c = nil
		if cerr := s.connect(false); cerr != nil {
			return out, fmt.Errorf("reconnecting after %v: %w", err, cerr)
		}
		mac, err = s.sign(input)
	}
	mech := mechName(signMechanism(s.kt))
	if err != nil {
		return out, wrapErr("C_Sign("+mech+")", err)
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
	if err := s.c.ctx.SignInit(s.c.sh, m, s.key); err != nil {
		return nil, err
	}
	return s.c.ctx.Sign(s.c.sh, input)
}

// Close closes the session (logging out if it was the last on the token)
// and unloads the module when no other Source or Token uses it.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		s.c.close()
		s.c = nil
	}
	s.pin = ""
	s.closed = true
	return nil
}

var _ keysource.Source = (*Source)(nil)
