package server

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"

	"github.com/kexlab/kexlab/server/store"
)

// The password-hash logins of Config.Study: the baseline that the
// Heterogeneous-PAKE study compares a PAKE service with (its Table 18) —
// the client sends its password and the server checks it against a
// stored hash, on the same HTTP stack, store, throttling, dispatcher and
// sessions as the PAKE schemes:
//
//	POST /v1/hash/register {user, scheme, password} → 201 {user, scheme}
//	POST /v1/hash/login    {user, scheme, password} → {session, expires, assertion}
//
// password is unpadded base64url, as every binary field. Schemes:
// "bcrypt-10" and "bcrypt-12" (golang.org/x/crypto/bcrypt, passwords of
// at most 72 bytes) and "argon2id" (RFC 9106 §4, the second recommended
// option: t = 3, p = 4 lanes, m = 64 MiB, 128-bit salt, 256-bit tag).
// The password crosses the wire and reaches the server's memory, which is
// what a PAKE avoids: the routes exist only in study mode, which kexlab
// serve allows on loopback addresses only.

// Argon2id's parameters (RFC 9106 §4, second recommended option).
const (
	argonTime    = 3
	argonMemory  = 64 << 10 // KiB
	argonThreads = 4
	argonSalt    = 16
	argonTag     = 32
)

// maxPassword bounds a hash login's password (bcrypt takes at most 72).
const maxPassword = 1024

// hashScheme is one password hash as a login scheme.
type hashScheme interface {
	hash(password []byte) (record []byte, err error)
	// verify reports whether password matches record, in time that does
	// not depend on where they differ.
	verify(record, password []byte) (bool, error)
}

type bcryptScheme struct{ cost int }

// bcryptLength refuses a password bcrypt cannot take whole.
func bcryptLength(password []byte) error {
	if len(password) > 72 {
		return badRequest("password: bcrypt takes at most 72 bytes")
	}
	return nil
}

func (b bcryptScheme) hash(password []byte) ([]byte, error) {
	if err := bcryptLength(password); err != nil {
		return nil, err
	}
	return bcrypt.GenerateFromPassword(password, b.cost)
}

func (b bcryptScheme) verify(record, password []byte) (bool, error) {
	if err := bcryptLength(password); err != nil {
		return false, err
	}
	err := bcrypt.CompareHashAndPassword(record, password)
	if errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
		return false, nil
	}
	return err == nil, err
}

// argon2idScheme's record is salt ‖ tag.
type argon2idScheme struct{}

func (argon2idScheme) hash(password []byte) ([]byte, error) {
	salt := make([]byte, argonSalt, argonSalt+argonTag)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	return append(salt, argon2.IDKey(password, salt, argonTime, argonMemory, argonThreads, argonTag)...), nil
}

func (argon2idScheme) verify(record, password []byte) (bool, error) {
	if len(record) != argonSalt+argonTag {
		return false, errors.New("server: argon2id record of the wrong length")
	}
	tag := argon2.IDKey(password, record[:argonSalt], argonTime, argonMemory, argonThreads, argonTag)
	defer clear(tag)
	return subtle.ConstantTimeCompare(tag, record[argonSalt:]) == 1, nil
}

// hashSchemes returns the study's password-hash schemes by name.
func hashSchemes() map[string]hashScheme {
	return map[string]hashScheme{"bcrypt-10": bcryptScheme{10}, "bcrypt-12": bcryptScheme{12}, "argon2id": argon2idScheme{}}
}

// hashRequest is the body of both routes.
type hashRequest struct {
	User     string     `json:"user"`
	Scheme   string     `json:"scheme"`
	Password bytesField `json:"password"`
}

// hashRound decodes and checks a hash route's request.
func (s *Server) hashRound(w http.ResponseWriter, r *http.Request) (*hashRequest, hashScheme, error) {
	var req hashRequest
	if err := decode(w, r, &req); err != nil {
		return nil, nil, err
	}
	if err := checkUser(req.User); err != nil {
		clear(req.Password)
		return nil, nil, err
	}
	hs, ok := s.hashes[req.Scheme]
	if !ok {
		clear(req.Password)
		return nil, nil, errorf(http.StatusBadRequest, CodeUnknownScheme, "scheme %q is not a password hash (%v)", req.Scheme, s.HashSchemes())
	}
	if len(req.Password) == 0 || len(req.Password) > maxPassword {
		clear(req.Password)
		return nil, nil, badRequest("password: 1 to %d bytes", maxPassword)
	}
	return &req, hs, nil
}

func (s *Server) hashRegister(w http.ResponseWriter, r *http.Request) error {
	req, hs, err := s.hashRound(w, r)
	if err != nil {
		return err
	}
	defer clear(req.Password)
	ctx := r.Context()
	if err := s.throttle(ctx, "register:"+clientAddr(r), s.cfg.RegisterRate, s.cfg.RegisterBurst); err != nil {
		return err
	}
	var record []byte
	if err := s.heavy(ctx, func() (err error) {
		record, err = hs.hash(req.Password)
		return err
	}); err != nil {
		return err
	}
	now := s.cfg.Now().UTC()
	return s.createAccount(ctx, w, store.Account{User: req.User, Scheme: req.Scheme, Record: record, Params: []byte("{}"), Created: now, Updated: now})
}

// hashLogin checks the password against the account's hash (an unknown
// user, or one with another scheme, against a fake record of the same
// cost) and opens a session, with the PAKE logins' throttling.
func (s *Server) hashLogin(w http.ResponseWriter, r *http.Request) error {
	req, hs, err := s.hashRound(w, r)
	if err != nil {
		return err
	}
	defer clear(req.Password)
	ctx := r.Context()
	if err := s.throttle(ctx, "addr:"+clientAddr(r), s.cfg.AddrRate, s.cfg.AddrBurst); err != nil {
		return err
	}
	if _, err := s.st.StartAttempt(ctx, req.User, s.cfg.Now(), s.backoff); err != nil {
		return err
	}
	acct, err := s.account(ctx, req.User, req.Scheme)
	if err != nil {
		return err
	}
	record := s.fakes[req.Scheme]
	if acct != nil {
		record = acct.Record
	}
	var ok bool
	if err := s.heavy(ctx, func() (err error) {
		ok, err = hs.verify(record, req.Password)
		return err
	}); err != nil {
		return err
	}
	if !ok || acct == nil {
		return s.authFailed(req.User, req.Scheme)
	}
	ans, err := s.newSession(ctx, w, req.User) // also resets the failure count
	if errors.Is(err, store.ErrNotFound) {
		return s.authFailed(req.User, req.Scheme)
	}
	if err != nil {
		return err
	}
	s.m.logins.WithLabelValues(req.Scheme, "success").Inc()
	s.log.Info("login", "user", req.User, "scheme", req.Scheme)
	writeJSON(w, http.StatusOK, ans)
	return nil
}

// newFakeHashes returns, per hash scheme, the record an unknown user's
// login is checked against: the hash of a random password, so that the
// check costs what a real one does and never succeeds.
func newFakeHashes(hashes map[string]hashScheme) (map[string][]byte, error) {
	pw := make([]byte, 32)
	if _, err := rand.Read(pw); err != nil {
		return nil, err
	}
	defer clear(pw)
	fakes := map[string][]byte{}
	for name, hs := range hashes {
		rec, err := hs.hash(pw)
		if err != nil {
			return nil, err
		}
		fakes[name] = rec
	}
	return fakes, nil
}

// HashProbe returns a function that runs one check of a password against
// a hash of the study's scheme (the server-side cost of one hash login),
// for measurements.
func HashProbe(scheme string) (func() error, error) {
	hs, ok := hashSchemes()[scheme]
	if !ok {
		return nil, fmt.Errorf("server: %q is not a password hash", scheme)
	}
	pw := []byte("kexlab probe password")
	rec, err := hs.hash(pw)
	if err != nil {
		return nil, err
	}
	return func() error {
		ok, err := hs.verify(rec, pw)
		if err == nil && !ok {
			err = errors.New("server: the probe's password did not match")
		}
		return err
	}, nil
}
