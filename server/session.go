package server

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kexlab/kexlab/server/store"
)

// CookieName is the session cookie.
const CookieName = "kexlab_session"

// signer makes the login assertions: JWTs signed with Ed25519 (EdDSA,
// RFC 8037) under a key id.
type signer struct {
	key    ed25519.PrivateKey
	kid    string
	issuer string
}

func newSigner(s *Secrets, issuer string) *signer {
	k, kid := s.signingKey()
	return &signer{key: k, kid: kid, issuer: issuer}
}

// assertion returns a JWT with sub = user, iss, iat and exp.
func (sg *signer) assertion(user string, now time.Time, ttl time.Duration) (string, error) {
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{
		Subject:   user,
		Issuer:    sg.issuer,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	})
	t.Header["kid"] = sg.kid
	return t.SignedString(sg.key)
}

// jwks answers the public key set (RFC 7517, OKP keys of RFC 8037).
func (s *Server) jwks(w http.ResponseWriter, r *http.Request) error {
	pub := s.signer.key.Public().(ed25519.PublicKey)
	writeJSON(w, http.StatusOK, map[string]any{"keys": []map[string]string{{
		"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": s.signer.kid,
		"x": base64.RawURLEncoding.EncodeToString(pub),
	}}})
	return nil
}

// newSession stores a session for user, sets its cookie and returns the
// answer of a login.
func (s *Server) newSession(ctx context.Context, w http.ResponseWriter, user string) (loginAnswer, error) {
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		return loginAnswer{}, err
	}
	hash := sha256.Sum256(token)
	now := s.cfg.Now().UTC()
	sess := store.Session{TokenHash: hash[:], User: user, Created: now, Expires: now.Add(s.cfg.SessionTTL)}
	if err := s.st.CreateSession(ctx, sess); err != nil {
		return loginAnswer{}, err
	}
	assertion, err := s.signer.assertion(user, now, s.cfg.AssertTTL)
	if err != nil {
		return loginAnswer{}, err
	}
	enc := base64.RawURLEncoding.EncodeToString(token)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: enc, Path: "/", Expires: sess.Expires,
		HttpOnly: true, Secure: !s.cfg.InsecureCookie, SameSite: http.SameSiteStrictMode})
	return loginAnswer{Session: enc, Expires: sess.Expires, Assertion: assertion}, nil
}

func (s *Server) clearCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: !s.cfg.InsecureCookie, SameSite: http.SameSiteStrictMode})
}

// authenticate returns the session of r's token ("Authorization: Bearer"
// or the cookie) and the token's hash, or 401.
func (s *Server) authenticate(r *http.Request) (store.Session, []byte, error) {
	var enc string
	if h := r.Header.Get("Authorization"); h != "" {
		var ok bool
		if enc, ok = strings.CutPrefix(h, "Bearer "); !ok {
			return store.Session{}, nil, errorf(http.StatusUnauthorized, CodeUnauthorized, "Authorization: want Bearer")
		}
	} else if c, err := r.Cookie(CookieName); err == nil {
		enc = c.Value
	}
	token, err := base64.RawURLEncoding.DecodeString(enc)
	if enc == "" || err != nil || len(token) != 32 {
		return store.Session{}, nil, errorf(http.StatusUnauthorized, CodeUnauthorized, "no valid session")
	}
	hash := sha256.Sum256(token)
	sess, err := s.st.GetSession(r.Context(), hash[:], s.cfg.Now())
	if errors.Is(err, store.ErrNotFound) {
		return sess, nil, errorf(http.StatusUnauthorized, CodeUnauthorized, "no valid session")
	}
	return sess, hash[:], err
}
