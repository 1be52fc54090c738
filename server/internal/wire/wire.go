// Package wire holds what the service (package server) and its Go client
// (server/client) must agree on byte for byte: the JSON encoding of binary
// fields, the KDF parameters, the first-round and login answers, and the
// identities and context the schemes bind. One definition, so that the two
// sides cannot drift apart.
package wire

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/scrypt"
)

// Bytes is a byte string carried as unpadded base64url (RFC 4648 §5) in
// JSON.
type Bytes []byte

func (b Bytes) MarshalJSON() ([]byte, error) {
	return json.Marshal(base64.RawURLEncoding.EncodeToString(b))
}

func (b *Bytes) UnmarshalJSON(in []byte) error {
	var s string
	if err := json.Unmarshal(in, &s); err != nil {
		return errors.New("want a base64url string")
	}
	d, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return errors.New("not unpadded base64url")
	}
	*b = d
	return nil
}

// KDFParams is a per-account key-stretching configuration that the client
// applies to the password before the PAKE (SRP: the password SRP sees is
// scrypt(password, salt, N, r, p, 32)). It is stored with the record, so
// that the server can raise it later (the client then re-registers).
type KDFParams struct {
	Alg  string `json:"alg"` // "scrypt"
	N    int    `json:"n"`
	R    int    `json:"r"`
	P    int    `json:"p"`
	Salt Bytes  `json:"salt"`
}

// Key stretches input to n bytes with k, for a client: scrypt only, and
// at most N = 2^22, r = 32, p = 16 (what a server may ask a client to
// run). It is SRP's and apakepq's stretching (n = 32) and the PBKDF of
// RFC 9383 §3.2 for SPAKE2+.
func (k *KDFParams) Key(input []byte, n int) ([]byte, error) {
	if k == nil || k.Alg != "scrypt" {
		return nil, errors.New("the service sent no scrypt parameters")
	}
	if k.N > 1<<22 || k.R > 32 || k.P > 16 {
		return nil, fmt.Errorf("scrypt N=%d r=%d p=%d is more than this client will run", k.N, k.R, k.P)
	}
	return scrypt.Key(input, k.Salt, k.N, k.R, k.P, n)
}

// StartAnswer answers the first round of a flow.
type StartAnswer struct {
	Handle Bytes      `json:"handle"`
	Msg    Bytes      `json:"msg"`
	KDF    *KDFParams `json:"kdf,omitempty"`
}

// LoginAnswer answers a login's finish.
type LoginAnswer struct {
	Msg       Bytes     `json:"msg,omitempty"`
	Session   string    `json:"session"`
	Expires   time.Time `json:"expires"`
	Assertion string    `json:"assertion"`
}

// The scheme parameters both sides bind.
var (
	// Context is bound into every SPAKE2+ transcript (RFC 9383 §3.3) and
	// every apakepq session.
	Context = []byte("kexlab service v1")
	// ServerID is SPAKE2+'s verifier identity and apakepq's ServerID; the
	// client's identity is the user name.
	ServerID = []byte("kexlab")
)

// APAKEPQIterations is the PBKDF2 count of apakepq in the service (see
// server.APAKEPQIterations).
const APAKEPQIterations = 1
