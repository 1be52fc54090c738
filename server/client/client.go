// Package client is a Go client of the PAKE authentication service (package
// server, kexlab serve): it runs the client side of each scheme with the
// schemes' typed APIs and speaks the service's JSON API. The tests and the
// load generator use it; so can a Go program that logs users in.
//
// The password never leaves the client: SRP sends a verifier of the
// password stretched with the account's scrypt parameters, OPAQUE its
// registration record.
package client

import (
	"github.com/kexlab/kexlab/server/internal/wire"

	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/apakepq"
	"github.com/kexlab/kexlab/pake/opaque"
	"github.com/kexlab/kexlab/pake/spake2plus"
	"github.com/kexlab/kexlab/pake/srp"
)

// Client talks to one service.
type Client struct {
	base string
	hc   *http.Client

	// OPAQUE is the configuration of OPAQUE registrations and logins; the
	// zero value is the service's (RFC 9807 P-256 with the scrypt KSF; the
	// Context must stay empty, as the service's is).
	// The KSF runs on the client only — the server never sees its output
	// — so a client may pick another, but must use the same one at
	// registration and at every login (a load generator uses
	// opaque.Identity, to keep its own cost out of the server's).
	OPAQUE opaque.Config
}

// New returns a client of the service at baseURL (e.g.
// "http://127.0.0.1:8080"); a nil hc means http.DefaultClient.
func New(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), hc: hc}
}

// Error is an error answer of the service.
type Error struct {
	Status     int
	Code       string // the service's stable code, e.g. "auth_failed"
	Message    string
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("kexlab service: %d %s: %s", e.Status, e.Code, e.Message)
}

// IsCode reports whether err is an *Error with the given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Session is a login.
type Session struct {
	User      string
	Token     string // the bearer token (also set as a cookie by the service)
	Expires   time.Time
	Assertion string // the signed JWT for web servers that delegate login
}

// The wire types the service shares with this client.
type (
	b64         = wire.Bytes
	kdfParams   = wire.KDFParams
	startAnswer = wire.StartAnswer
	loginAnswer = wire.LoginAnswer
)

// call sends a JSON request and decodes the answer into out (nil: none).
func (c *Client) call(ctx context.Context, method, path string, sess *Session, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if sess != nil {
		req.Header.Set("Authorization", "Bearer "+sess.Token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		json.Unmarshal(data, &e)
		ae := &Error{Status: resp.StatusCode, Code: e.Error.Code, Message: e.Error.Message}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			ae.RetryAfter = time.Duration(s) * time.Second
		}
		return ae
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("kexlab service: %s %s: answer: %w", method, path, err)
	}
	return nil
}

// spake2plusW derives w0, w1 and L from the password with the account's
// scrypt parameters (RFC 9383 §3.2).
func spake2plusW(user string, password []byte, k *kdfParams) (w0, w1, L []byte, err error) {
	return spake2plus.Register(password, []byte(user), wire.ServerID, k.Key)
}

// loginParams fetches the KDF parameters user's login needs first.
func (c *Client) loginParams(ctx context.Context, user, scheme string) (*kdfParams, error) {
	var ans struct {
		KDF *kdfParams `json:"kdf"`
	}
	if err := c.call(ctx, http.MethodPost, "/v1/login/params", nil, map[string]any{"user": user, "scheme": scheme}, &ans); err != nil {
		return nil, err
	}
	return ans.KDF, nil
}

// srpParams returns the parameters of an "srp-BITS" scheme.
func srpParams(scheme string) (*srp.Params, error) {
	bits, ok := map[string]int{"srp-1024": 1024, "srp-1536": 1536, "srp-2048": 2048, "srp-3072": 3072}[scheme]
	if !ok {
		return nil, fmt.Errorf("client: %q is not an SRP scheme", scheme)
	}
	return srp.NewParams(bits, crypto.SHA256)
}

// stretch applies the account's key stretching to the password.
func stretch(password []byte, k *kdfParams) ([]byte, error) {
	return k.Key(password, 32)
}

// register runs a registration flow at prefix ("/v1/register" or
// "/v1/password"), with sess for a password change.
func (c *Client) register(ctx context.Context, prefix string, sess *Session, scheme, user string, password []byte) error {
	start := map[string]any{"scheme": scheme}
	if sess == nil {
		start["user"] = user
	}
	var finishMsg func(reply []byte, kdf *kdfParams) ([]byte, error)
	switch scheme {
	case "opaque":
		cl, err := opaque.NewClient(c.OPAQUE)
		if err != nil {
			return err
		}
		reg, req, err := cl.CreateRegistrationRequest(nil, password)
		if err != nil {
			return err
		}
		start["msg"] = b64(req.Bytes())
		finishMsg = func(reply []byte, _ *kdfParams) ([]byte, error) {
			resp, err := opaque.ParseRegistrationResponse(reply)
			if err != nil {
				return nil, err
			}
			rec, _, err := reg.FinalizeRegistrationRequest(nil, resp, opaque.Identities{})
			if err != nil {
				return nil, err
			}
			return rec.Bytes(), nil
		}
	case "apakepq":
		finishMsg = func(_ []byte, kdf *kdfParams) ([]byte, error) {
			pw, err := stretch(password, kdf)
			if err != nil {
				return nil, err
			}
			defer clear(pw)
			rec, err := apakepq.Register(pw, []byte(user), wire.ServerID, wire.APAKEPQIterations)
			if err != nil {
				return nil, err
			}
			return rec.Bytes(), nil
		}
	case "spake2plus":
		finishMsg = func(_ []byte, kdf *kdfParams) ([]byte, error) {
			w0, w1, L, err := spake2plusW(user, password, kdf)
			if err != nil {
				return nil, err
			}
			clear(w1)
			return append(w0, L...), nil
		}
	default:
		p, err := srpParams(scheme)
		if err != nil {
			return err
		}
		finishMsg = func(salt []byte, kdf *kdfParams) ([]byte, error) {
			pw, err := stretch(password, kdf)
			if err != nil {
				return nil, err
			}
			defer clear(pw)
			return p.Verifier([]byte(user), pw, salt)
		}
	}
	var ans startAnswer
	if err := c.call(ctx, http.MethodPost, prefix+"/start", sess, start, &ans); err != nil {
		return err
	}
	msg, err := finishMsg(ans.Msg, ans.KDF)
	if err != nil {
		return err
	}
	return c.call(ctx, http.MethodPost, prefix+"/finish", sess, map[string]any{"handle": ans.Handle, "msg": b64(msg)}, nil)
}

// Register creates the account user with scheme ("srp-2048", "srp-3072",
// "spake2plus", "opaque" or "apakepq"; a service in study mode also
// takes "srp-1024", "srp-1536" and the password hashes of IsHash).
func (c *Client) Register(ctx context.Context, scheme, user string, password []byte) error {
	if IsHash(scheme) {
		return c.call(ctx, http.MethodPost, "/v1/hash/register", nil, hashBody(scheme, user, password), nil)
	}
	return c.register(ctx, "/v1/register", nil, scheme, user, password)
}

// IsHash reports whether scheme is one of a study-mode service's
// password-hash logins ("bcrypt-10", "bcrypt-12", "argon2id"), which send
// the password itself: a baseline for measurements, never a login to use.
func IsHash(scheme string) bool {
	return scheme == "bcrypt-10" || scheme == "bcrypt-12" || scheme == "argon2id"
}

func hashBody(scheme, user string, password []byte) map[string]any {
	return map[string]any{"user": user, "scheme": scheme, "password": b64(password)}
}

// hashLogin is Login with a password hash: one request.
func (c *Client) hashLogin(ctx context.Context, scheme, user string, password []byte) (*Session, error) {
	var la loginAnswer
	if err := c.call(ctx, http.MethodPost, "/v1/hash/login", nil, hashBody(scheme, user, password), &la); err != nil {
		return nil, err
	}
	return &Session{User: user, Token: la.Session, Expires: la.Expires, Assertion: la.Assertion}, nil
}

// ChangePassword replaces the account's password (and scheme) over a
// session from a recent login; the service then revokes every session.
func (c *Client) ChangePassword(ctx context.Context, sess *Session, scheme string, password []byte) error {
	return c.register(ctx, "/v1/password", sess, scheme, sess.User, password)
}

// Login logs user in with scheme. A wrong password (or an unknown user)
// is an *Error with code "auth_failed".
func (c *Client) Login(ctx context.Context, scheme, user string, password []byte) (*Session, error) {
	if IsHash(scheme) {
		return c.hashLogin(ctx, scheme, user, password)
	}
	var first []byte
	var second func(reply []byte, kdf *kdfParams) ([]byte, error)
	var check func(last []byte) error
	switch scheme {
	case "opaque":
		cl, err := opaque.NewClient(c.OPAQUE)
		if err != nil {
			return nil, err
		}
		st, ke1, err := cl.GenerateKE1(nil, password)
		if err != nil {
			return nil, err
		}
		first = ke1.Bytes()
		second = func(reply []byte, _ *kdfParams) ([]byte, error) {
			ke2, err := opaque.ParseKE2(reply)
			if err != nil {
				return nil, err
			}
			ke3, _, _, err := st.GenerateKE3(ke2, opaque.Identities{})
			if err != nil {
				return nil, err
			}
			return ke3.Bytes(), nil
		}
		check = func([]byte) error { return nil }
	case "apakepq":
		kdf, err := c.loginParams(ctx, user, scheme)
		if err != nil {
			return nil, err
		}
		pw, err := stretch(password, kdf)
		if err != nil {
			return nil, err
		}
		sec, err := apakepq.DeriveSecrets(pw, []byte(user), wire.ServerID, wire.APAKEPQIterations)
		clear(pw)
		if err != nil {
			return nil, err
		}
		cl, err := apakepq.NewClientFromSecrets(nil, sec, apakepq.Session{ClientID: []byte(user), ServerID: wire.ServerID, Context: wire.Context})
		if err != nil {
			return nil, err
		}
		if first, err = cl.Next(nil); err != nil {
			return nil, err
		}
		second = func(reply []byte, _ *kdfParams) ([]byte, error) { return cl.Next(reply) }
		check = func([]byte) error { return nil }
	case "spake2plus":
		kdf, err := c.loginParams(ctx, user, scheme)
		if err != nil {
			return nil, err
		}
		w0, w1, _, err := spake2plusW(user, password, kdf)
		if err != nil {
			return nil, err
		}
		pr, err := spake2plus.NewProver(nil, wire.Context, []byte(user), wire.ServerID, w0, w1)
		clear(w1)
		if err != nil {
			return nil, err
		}
		if first, err = pr.Start(); err != nil {
			return nil, err
		}
		second = func(reply []byte, _ *kdfParams) ([]byte, error) {
			if len(reply) != spake2plus.ShareSize+spake2plus.ConfirmSize {
				return nil, fmt.Errorf("client: SPAKE2+ answer of %d bytes", len(reply))
			}
			return pr.Finish(reply[:spake2plus.ShareSize], reply[spake2plus.ShareSize:])
		}
		check = func([]byte) error { return nil }
	default:
		p, err := srpParams(scheme)
		if err != nil {
			return nil, err
		}
		cl, err := srp.NewClientWithoutPassword(nil, p, []byte(user))
		if err != nil {
			return nil, err
		}
		if first, err = cl.Next(nil); err != nil {
			return nil, err
		}
		second = func(reply []byte, kdf *kdfParams) ([]byte, error) {
			pw, err := stretch(password, kdf)
			if err != nil {
				return nil, err
			}
			defer clear(pw)
			if err := cl.SetPassword(pw); err != nil {
				return nil, err
			}
			return cl.Next(reply)
		}
		check = func(m2 []byte) error { _, err := cl.Next(m2); return err }
	}
	var ans startAnswer
	if err := c.call(ctx, http.MethodPost, "/v1/login/start", nil, map[string]any{"user": user, "scheme": scheme, "msg": b64(first)}, &ans); err != nil {
		return nil, err
	}
	msg, err := second(ans.Msg, ans.KDF)
	if errors.Is(err, pakeerr.ErrAuthFailed) { // OPAQUE: the client sees it first
		return nil, &Error{Code: "auth_failed", Message: "wrong user name or password (found by the client)"}
	}
	if err != nil {
		return nil, err
	}
	var la loginAnswer
	if err := c.call(ctx, http.MethodPost, "/v1/login/finish", nil, map[string]any{"handle": ans.Handle, "msg": b64(msg)}, &la); err != nil {
		return nil, err
	}
	// SRP: the server proves it knew the verifier (M2) too.
	if err := check(la.Msg); err != nil {
		return nil, fmt.Errorf("client: the service's confirmation: %w", err)
	}
	return &Session{User: user, Token: la.Session, Expires: la.Expires, Assertion: la.Assertion}, nil
}

// Logout ends the session.
func (c *Client) Logout(ctx context.Context, sess *Session) error {
	return c.call(ctx, http.MethodPost, "/v1/logout", sess, nil, nil)
}

// Whoami returns the user of a live session.
func (c *Client) Whoami(ctx context.Context, sess *Session) (string, error) {
	var ans struct {
		User string `json:"user"`
	}
	err := c.call(ctx, http.MethodGet, "/v1/session", sess, nil, &ans)
	return ans.User, err
}

// DeleteAccount deletes the session's account (a recent login needed).
func (c *Client) DeleteAccount(ctx context.Context, sess *Session) error {
	return c.call(ctx, http.MethodDelete, "/v1/account", sess, nil, nil)
}
