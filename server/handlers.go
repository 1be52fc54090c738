package server

import (
	"github.com/kexlab/kexlab/server/internal/wire"

	"context"
	"errors"
	"net/http"
	"time"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/server/store"
)

// Request and answer bodies of the API.
type (
	startRequest struct {
		User   string     `json:"user"`
		Scheme string     `json:"scheme"`
		Msg    bytesField `json:"msg,omitempty"`
	}
	finishRequest struct {
		Handle bytesField `json:"handle"`
		Msg    bytesField `json:"msg"`
	}
	startAnswer      = wire.StartAnswer
	registeredAnswer struct {
		User   string `json:"user"`
		Scheme string `json:"scheme"`
	}
	loginAnswer   = wire.LoginAnswer
	sessionAnswer struct {
		User    string    `json:"user"`
		Expires time.Time `json:"expires"`
	}
)

// Flow kinds in the store.
const (
	kindRegister = "register"
	kindChange   = "change"
	kindLogin    = "login"
)

func (s *Server) registerStart(w http.ResponseWriter, r *http.Request) error {
	var req startRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if err := checkUser(req.User); err != nil {
		return err
	}
	addr := clientAddr(r)
	if err := s.throttle(r.Context(), "register:"+addr, s.cfg.RegisterRate, s.cfg.RegisterBurst); err != nil {
		return err
	}
	return s.startRegistration(w, r, kindRegister, req.User, req.Scheme, req.Msg)
}

// startRegistration runs the first registration round for a new account
// or a password change.
func (s *Server) startRegistration(w http.ResponseWriter, r *http.Request, kind, user, schemeName string, msg []byte) error {
	sc, err := s.scheme(schemeName)
	if err != nil {
		return err
	}
	var reply, state []byte
	var kdf *KDFParams
	if err := s.heavy(r.Context(), func() (err error) {
		reply, kdf, state, err = sc.registerStart(user, msg)
		return err
	}); err != nil {
		return err
	}
	handle, err := s.putPending(r.Context(), kind, user, schemeName, state)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, startAnswer{Handle: handle, Msg: reply, KDF: kdf})
	return nil
}

// finishRegistration runs the second round and returns the account.
func (s *Server) finishRegistration(w http.ResponseWriter, r *http.Request, kind string) (*store.Account, error) {
	var req finishRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	p, err := s.takePending(r.Context(), req.Handle, kind)
	if err != nil {
		return nil, err
	}
	defer clear(p.state)
	sc, err := s.scheme(p.scheme)
	if err != nil {
		return nil, err
	}
	var record, kdf []byte
	err = timed(r.Context(), func() (err error) {
		record, kdf, err = sc.registerFinish(p.user, p.state, req.Msg)
		return err
	})
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now().UTC()
	return &store.Account{User: p.user, Scheme: p.scheme, Record: record, Params: kdf, Created: now, Updated: now}, nil
}

func (s *Server) registerFinish(w http.ResponseWriter, r *http.Request) error {
	a, err := s.finishRegistration(w, r, kindRegister)
	if err != nil {
		return err
	}
	return s.createAccount(r.Context(), w, *a)
}

// createAccount stores a new account and answers 201, or 409 user_exists.
func (s *Server) createAccount(ctx context.Context, w http.ResponseWriter, a store.Account) error {
	if err := s.st.CreateAccount(ctx, a); errors.Is(err, store.ErrExists) {
		s.m.regs.WithLabelValues(a.Scheme, "exists").Inc()
		return errorf(http.StatusConflict, CodeUserExists, "user %q is taken", a.User)
	} else if err != nil {
		return err
	}
	s.m.regs.WithLabelValues(a.Scheme, "created").Inc()
	s.log.Info("registered", "user", a.User, "scheme", a.Scheme)
	writeJSON(w, http.StatusCreated, registeredAnswer{User: a.User, Scheme: a.Scheme})
	return nil
}

// loginStart answers the first login round; it counts as a failure until
// its finish succeeds.
func (s *Server) loginStart(w http.ResponseWriter, r *http.Request) error {
	var req startRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	sc, err := s.loginRound(r, req.User, req.Scheme)
	if err != nil {
		return err
	}
	ctx := r.Context()
	// The start counts as a failure (until its finish succeeds), in the
	// transaction that checks the backoff: concurrent starts cannot all
	// pass one check.
	if _, err := s.st.StartAttempt(ctx, req.User, s.cfg.Now(), s.backoff); err != nil {
		return err
	}
	acct, err := s.account(ctx, req.User, req.Scheme)
	if err != nil {
		return err
	}
	var reply, state []byte
	var kdf *KDFParams
	err = s.heavy(ctx, func() (err error) {
		reply, kdf, state, err = sc.loginStart(req.User, acct, req.Msg)
		return err
	})
	if errors.Is(err, pakeerr.ErrAuthFailed) { // apakepq: the server sees a wrong password at once
		return s.authFailed(req.User, req.Scheme)
	}
	if err != nil {
		return err
	}
	handle, err := s.putPending(ctx, kindLogin, req.User, req.Scheme, state)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, startAnswer{Handle: handle, Msg: reply, KDF: kdf})
	return nil
}

// loginRound checks the user and scheme of a login round that names them
// (params, start) and takes a token from the client address's bucket.
func (s *Server) loginRound(r *http.Request, user, name string) (scheme, error) {
	if err := checkUser(user); err != nil {
		return nil, err
	}
	sc, err := s.scheme(name)
	if err != nil {
		return nil, err
	}
	return sc, s.throttle(r.Context(), "addr:"+clientAddr(r), s.cfg.AddrRate, s.cfg.AddrBurst)
}

// loginParams returns the KDF parameters of user's account for a scheme
// whose client needs them before its first message, or fake ones.
func (s *Server) loginParams(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		User   string `json:"user"`
		Scheme string `json:"scheme"`
	}
	if err := decode(w, r, &req); err != nil {
		return err
	}
	sc, err := s.loginRound(r, req.User, req.Scheme)
	if err != nil {
		return err
	}
	ps, ok := sc.(paramser)
	if !ok {
		return errorf(http.StatusBadRequest, CodeUnknownScheme, "scheme %q has no parameters to fetch", req.Scheme)
	}
	// The parameters only: a found account must not be slower to answer
	// than a missing one (see sqlcore's GetParams).
	var acct *store.Account
	switch scheme, params, err := s.st.GetParams(r.Context(), req.User); {
	case err == nil && scheme == req.Scheme:
		acct = &store.Account{User: req.User, Scheme: scheme, Params: params}
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	kdf, err := ps.params(req.User, acct)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"kdf": kdf})
	return nil
}

// account returns user's account if it is registered with scheme, nil if
// it is not (unknown, or another scheme: both are answered from fakes).
func (s *Server) account(ctx context.Context, user, scheme string) (*store.Account, error) {
	a, err := s.st.GetAccount(ctx, user)
	switch {
	case err == nil && a.Scheme == scheme:
		return &a, nil
	case err == nil || errors.Is(err, store.ErrNotFound):
		return nil, nil
	}
	return nil, err
}

// backoff refuses a login start for an account whose counter f shows too
// many failures (see the package doc); store.StartAttempt calls it.
func (s *Server) backoff(f store.Failures) error {
	limited := func(wait time.Duration) error {
		e := errorf(http.StatusTooManyRequests, CodeRateLimited, "too many failed logins for this account; retry later")
		e.retryAfter = wait
		return e
	}
	if f.Count >= s.cfg.MaxFailures {
		// Locked until the counter is a day idle (store.FailureIdle:
		// StartAttempt then counts from zero; refused starts do not count).
		return limited(max(f.Last.Add(store.FailureIdle).Sub(s.cfg.Now()), time.Minute))
	}
	if f.Count < s.cfg.FreeFailures {
		return nil
	}
	wait := time.Hour
	if n := f.Count - s.cfg.FreeFailures; n < 12 {
		wait = min(s.cfg.BackoffBase<<n, time.Hour)
	}
	if left := f.Last.Add(wait).Sub(s.cfg.Now()); left > 0 {
		return limited(left)
	}
	return nil
}

func (s *Server) loginFinish(w http.ResponseWriter, r *http.Request) error {
	var req finishRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	ctx := r.Context()
	p, err := s.takePending(ctx, req.Handle, kindLogin)
	if err != nil {
		return err
	}
	defer clear(p.state)
	sc, err := s.scheme(p.scheme)
	if err != nil {
		return err
	}
	var reply []byte
	err = timed(ctx, func() (err error) {
		reply, err = sc.loginFinish(p.state, req.Msg)
		return err
	})
	if errors.Is(err, pakeerr.ErrAuthFailed) {
		return s.authFailed(p.user, p.scheme)
	}
	if err != nil {
		return err
	}
	ans, err := s.newSession(ctx, w, p.user) // also resets the failure count
	if errors.Is(err, store.ErrNotFound) {   // the account was deleted during the login
		return s.authFailed(p.user, p.scheme)
	}
	if err != nil {
		return err
	}
	ans.Msg = reply
	s.m.logins.WithLabelValues(p.scheme, "success").Inc()
	s.log.Info("login", "user", p.user, "scheme", p.scheme)
	writeJSON(w, http.StatusOK, ans)
	return nil
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	sess, hash, err := s.authenticate(r)
	if err != nil {
		return err
	}
	if err := s.st.DeleteSession(r.Context(), hash); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	s.clearCookie(w)
	s.log.Info("logout", "user", sess.User)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) error {
	sess, _, err := s.authenticate(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sessionAnswer{User: sess.User, Expires: sess.Expires})
	return nil
}

// fresh returns the session of r if it was made by a login at most
// FreshLogin ago.
func (s *Server) fresh(r *http.Request) (store.Session, error) {
	sess, _, err := s.authenticate(r)
	if err != nil {
		return sess, err
	}
	if s.cfg.Now().Sub(sess.Created) > s.cfg.FreshLogin {
		return sess, errorf(http.StatusForbidden, CodeStaleSession, "log in again first (a login at most %v ago)", s.cfg.FreshLogin)
	}
	return sess, nil
}

func (s *Server) passwordStart(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.fresh(r)
	if err != nil {
		return err
	}
	var req struct {
		Scheme string     `json:"scheme"`
		Msg    bytesField `json:"msg,omitempty"`
	}
	if err := decode(w, r, &req); err != nil {
		return err
	}
	return s.startRegistration(w, r, kindChange, sess.User, req.Scheme, req.Msg)
}

// passwordFinish replaces the record (the scheme may change too) and
// revokes every session of the account.
func (s *Server) passwordFinish(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.fresh(r)
	if err != nil {
		return err
	}
	a, err := s.finishRegistration(w, r, kindChange)
	if err != nil {
		return err
	}
	if a.User != sess.User {
		return errorf(http.StatusBadRequest, CodeUnknownFlow, "this flow belongs to another session")
	}
	// One transaction: the new record, and the end of every session and
	// flow of the old one (store.UpdateAccount; Created stays).
	if err := s.st.UpdateAccount(r.Context(), *a); errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusUnauthorized, CodeUnauthorized, "the account was deleted")
	} else if err != nil {
		return err
	}
	s.clearCookie(w)
	s.m.regs.WithLabelValues(a.Scheme, "changed").Inc()
	s.log.Info("password changed", "user", a.User, "scheme", a.Scheme)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.fresh(r)
	if err != nil {
		return err
	}
	if err := s.st.DeleteAccount(r.Context(), sess.User); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	s.clearCookie(w)
	s.log.Info("account deleted", "user", sess.User)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// authFailed counts and logs a failed login and returns its answer.
func (s *Server) authFailed(user, scheme string) error {
	s.m.logins.WithLabelValues(scheme, "auth_failed").Inc()
	s.log.Info("login failed", "user", user, "scheme", scheme)
	return errorf(http.StatusUnauthorized, CodeAuthFailed, "wrong user name or password")
}
