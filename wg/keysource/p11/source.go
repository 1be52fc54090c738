//go:build cgo

package p11

import (
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

// requireMechanisms returns ErrMechanism naming the first of mechs that the
// token does not list.
func requireMechanisms(ctx *pkcs11.Ctx, slot uint, mechs ...uint) error {
	list, err := ctx.GetMechanismList(slot)
	if err != nil {
		return wrapErr("C_GetMechanismList", err)
	}
	for _, want := range mechs {
		if !hasMechanism(list, want) {
			return fmt.Errorf("%w: token lacks mechanism %#x", keysource.ErrMechanism, want)
		}
	}
	return nil
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

// findKey returns the one object of class CKO_SECRET_KEY, the given key
// type and label.
func (c *conn) findKey(label string, keyType uint) (pkcs11.ObjectHandle, error) {
	tmpl := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, keyType),
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
		return 0, fmt.Errorf("%w: no secret key of type %#x labelled %q", keysource.ErrKeyNotFound, keyType, label)
	case 1:
		return objs[0], nil
	}
	return 0, fmt.Errorf("%w: more than one key labelled %q", keysource.ErrKeyNotFound, label)
}

// Source is a keysource.Source over an HMAC key in a PKCS#11 token.
type Source struct {
	cfg    Config
	name   string
	mu     sync.Mutex
	pin    string
	c      *conn // nil after a failed reconnection or Close
	key    pkcs11.ObjectHandle
	closed bool
}

// Open logs in to the token cfg.TokenLabel of cfg.Module and finds the
// CKK_GENERIC_SECRET key cfg.KeyLabel. It fails with ErrTokenNotFound,
// ErrKeyNotFound, ErrMechanism (no CKM_SHA256_HMAC) or ErrPIN.
func Open(cfg Config) (*Source, error) {
	if cfg.KeyLabel == "" {
		return nil, fmt.Errorf("%w: KeyLabel must be set", keysource.ErrKeyNotFound)
	}
	pin, err := cfg.pin()
	if err != nil {
		return nil, err
	}
	s := &Source{cfg: cfg, pin: pin, name: fmt.Sprintf("pkcs11:%s/%s", cfg.TokenLabel, cfg.KeyLabel)}
	if err := s.connect(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Source) connect() error {
	c, err := dial(&s.cfg, s.pin, false)
	if err != nil {
		return err
	}
	if err := requireMechanisms(c.ctx, c.slot, pkcs11.CKM_SHA256_HMAC); err != nil {
		c.close()
		return err
	}
	key, err := c.findKey(s.cfg.KeyLabel, pkcs11.CKK_GENERIC_SECRET)
	if err != nil {
		c.close()
		return err
	}
	s.c, s.key = c, key
	return nil
}

// Name implements keysource.Source.
func (s *Source) Name() string { return s.name }

// Derive implements keysource.Source: C_SignInit(CKM_SHA256_HMAC, key),
// C_Sign(input).
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
		if err := s.connect(); err != nil {
			return out, err
		}
	}
	mac, err := s.sign(input)
	if err != nil && sessionLost(err) {
		s.c.close()
		s.c = nil
		if cerr := s.connect(); cerr != nil {
			return out, fmt.Errorf("reconnecting after %v: %w", err, cerr)
		}
		mac, err = s.sign(input)
	}
	if err != nil {
		return out, wrapErr("C_Sign(CKM_SHA256_HMAC)", err)
	}
	defer clear(mac)
	if len(mac) != len(out) {
		return out, fmt.Errorf("%w: CKM_SHA256_HMAC returned %d bytes", keysource.ErrDevice, len(mac))
	}
	copy(out[:], mac)
	return out, nil
}

func (s *Source) sign(input []byte) ([]byte, error) {
	m := []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_SHA256_HMAC, nil)}
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
