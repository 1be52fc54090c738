//go:build cgo

// Package session is the PKCS#11 layer under package p11's Source and
// Token. In the terms of PKCS#11 v2.40 Base, it loads a module
// (C_Initialize, §5.4; reference counted per path, since C_Initialize and
// C_Finalize act on the whole library), finds the slot of a token by its
// label and reads the token's mechanism list (C_GetSlotList,
// C_GetTokenInfo, C_GetMechanismList, C_GetMechanismInfo, §5.5), opens a
// session and logs the user in (C_OpenSession, C_Login, §5.6), and finds
// secret keys by CKA_LABEL and reads their attributes (C_FindObjects,
// C_GetAttributeValue, §5.7). It reads the user PIN from a file or the
// environment and maps PKCS#11 return values to the keysource sentinels.
//
// It knows nothing of the key types and derivations of package p11, which
// runs its cryptographic operations (C_Sign, C_GenerateKey, C_WrapKey…)
// on the Ctx and Handle of a Session.
//
// The binding (github.com/miekg/pkcs11) needs cgo, and so does this
// package: a build without cgo has none of it.
package session

import (
	"fmt"
	"strings"
	"sync"

	"github.com/miekg/pkcs11"

	"github.com/kexlab/kexlab/wg/keysource"
)

// A module is a loaded PKCS#11 library, shared by every Session of the
// process that names the same path: C_Initialize and C_Finalize act on the
// whole library, so they are reference counted.
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

// A Session is a logged-in session on one token. It is not safe for
// concurrent use: its owner serialises the calls.
type Session struct {
	// Ctx is the module's context, on which the owner runs its operations
	// with Handle.
	Ctx *pkcs11.Ctx
	// Slot is the slot holding the token.
	Slot uint
	// Handle is the session handle.
	Handle pkcs11.SessionHandle

	mod *module
}

// Open loads the PKCS#11 library modulePath (once per process), opens a
// session on the token labelled tokenLabel (read-write if rw) and logs the
// user in with pin. It fails with ErrTokenNotFound, ErrPIN or ErrDevice.
//
// The binding takes the PIN as a Go string, which it copies into C memory
// for C_Login and frees without clearing: each login leaves two short-lived
// copies of the PIN that cannot be zeroed from here (pin itself can).
func Open(modulePath, tokenLabel string, pin []byte, rw bool) (*Session, error) {
	if modulePath == "" || tokenLabel == "" {
		return nil, fmt.Errorf("%w: Module and TokenLabel must be set", keysource.ErrTokenNotFound)
	}
	mod, err := loadModule(modulePath)
	if err != nil {
		return nil, err
	}
	s := &Session{Ctx: mod.ctx, mod: mod}
	if s.Slot, err = findSlot(s.Ctx, tokenLabel); err != nil {
		mod.release()
		return nil, err
	}
	flags := uint(pkcs11.CKF_SERIAL_SESSION)
	if rw {
		flags |= pkcs11.CKF_RW_SESSION
	}
	if s.Handle, err = s.Ctx.OpenSession(s.Slot, flags); err != nil {
		mod.release()
		return nil, Wrap("C_OpenSession", err)
	}
	// The login state belongs to the application and the token, not to a
	// session: a second Session on the same token finds it logged in.
	if err := s.Ctx.Login(s.Handle, pkcs11.CKU_USER, string(pin)); err != nil && !isCode(err, pkcs11.CKR_USER_ALREADY_LOGGED_IN) {
		s.Close()
		return nil, Wrap("C_Login", err)
	}
	return s, nil
}

// findSlot returns the slot of the token whose CK_TOKEN_INFO.label, without
// its padding, is label.
func findSlot(ctx *pkcs11.Ctx, label string) (uint, error) {
	slots, err := ctx.GetSlotList(true)
	if err != nil {
		return 0, Wrap("C_GetSlotList", err)
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

// Close closes the session and unloads the module when no other Session
// uses it. Closing an application's last session on a token logs it out
// (PKCS#11 v2.40 §5.6, C_CloseSession); C_Logout is not called so that
// other sessions on the token stay logged in.
func (s *Session) Close() {
	s.Ctx.CloseSession(s.Handle)
	s.mod.release()
}
