package apakepq

import "io"

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

// NewClientFromSecrets is NewClient without the password stretching.
func NewClientFromSecrets(rand io.Reader, sec *Secrets, s Session) (*Client, error) {
	return newClient(rand, sec.sec, s)
}
