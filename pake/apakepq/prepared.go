package apakepq

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Secrets are a client's password-derived secrets (the PBKDF2 output: the
// OCAKE password key rw and the ML-KEM decapsulation key). A client that
// logs in repeatedly derives them once with DeriveSecrets and starts each
// session with NewClientFromSecrets.
type Secrets struct{ sec *secrets }

// DeriveSecrets runs PBKDF2-HMAC-SHA256 with iterations (zero meaning
// DefaultIterations) as at registration.
func DeriveSecrets(password, clientID, serverID []byte, iterations int) (*Secrets, error) {
	sec, err := deriveSecrets(password, clientID, serverID, iterations)
	if err != nil {
		return nil, err
	}
	return &Secrets{sec: sec}, nil
}

// NewClientFromSecrets is NewClient without the password stretching. Nil
// or zero Secrets (not from DeriveSecrets) fail with
// pakeerr.ErrInvalidParameter.
func NewClientFromSecrets(rand io.Reader, sec *Secrets, s Session) (*Client, error) {
	if sec == nil || sec.sec == nil {
		return nil, fmt.Errorf("%w: no secrets (use DeriveSecrets)", pakeerr.ErrInvalidParameter)
	}
	return newClient(rand, sec.sec, s)
}
