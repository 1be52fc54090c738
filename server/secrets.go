package server

import (
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/pake/opaque"
)

// SecretsFile is the name of the server's secrets in its data directory.
const SecretsFile = "secrets.json"

// Secrets are the server's long-term secrets. Every instance that serves
// the same users needs the same ones (copy the file, mode 0600).
type Secrets struct {
	// OPAQUE's server key pair and oprf_seed (RFC 9807 §3.1): the private
	// key alone determines the pair.
	OPAQUEPrivateKey []byte `json:"opaque_private_key"`
	OPAQUESeed       []byte `json:"opaque_oprf_seed"`
	// Fake is the key from which the records of unknown users are derived
	// (enumeration protection), deterministically per user name.
	Fake []byte `json:"fake_record_key"`
	// State is the AES-256-GCM key that seals pending flows in the store.
	State []byte `json:"state_key"`
	// Signing is the Ed25519 seed of the login assertions (JWT, EdDSA).
	Signing []byte `json:"signing_seed"`
}

// GenerateSecrets draws fresh secrets from crypto/rand.
func GenerateSecrets() (*Secrets, error) {
	keys, err := opaque.GenerateServerKeys(nil)
	if err != nil {
		return nil, err
	}
	s := &Secrets{OPAQUEPrivateKey: keys.PrivateKey, OPAQUESeed: keys.OPRFSeed,
		Fake: make([]byte, 32), State: make([]byte, 32), Signing: make([]byte, ed25519.SeedSize)}
	for _, b := range [][]byte{s.Fake, s.State, s.Signing} {
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// check validates the lengths and the OPAQUE key.
func (s *Secrets) check() error {
	if len(s.Fake) != 32 || len(s.State) != 32 || len(s.Signing) != ed25519.SeedSize {
		return errors.New("a key has the wrong length")
	}
	_, err := opaque.NewServerKeys(s.OPAQUEPrivateKey, s.OPAQUESeed)
	return err
}

// signingKey returns the Ed25519 key and its key id (the first 8 bytes of
// SHA-256 of the public key, hex).
func (s *Secrets) signingKey() (ed25519.PrivateKey, string) {
	k := ed25519.NewKeyFromSeed(s.Signing)
	sum := sha256.Sum256(k.Public().(ed25519.PublicKey))
	return k, fmt.Sprintf("%x", sum[:8])
}

// derive returns n bytes of HKDF-SHA256 (RFC 5869) keyed by Fake with the
// info label || 0 || user: the deterministic material of an unknown user's
// fake record, the same on every instance and at every query.
func (s *Secrets) derive(label, user string, n int) []byte {
	b, err := hkdf.Key(sha256.New, s.Fake, nil, label+"\x00"+user, n)
	if err != nil { // n > 255·32: a programming error
		panic("server: " + err.Error())
	}
	return b
}

// LoadOrCreateSecrets reads dir/secrets.json, or, when it does not exist,
// creates dir (mode 0700) and the file (mode 0600, exclusively, so two
// instances starting together agree on one) with fresh secrets. A file
// readable by others is refused.
func LoadOrCreateSecrets(dir string) (*Secrets, error) {
	path := filepath.Join(dir, SecretsFile)
	b, err := fileio.ReadFile(path, 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return createSecrets(dir, path)
	}
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: mode %v: the server's secrets must not be readable by others (chmod 600)", path, fi.Mode().Perm())
	}
	var s Secrets
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	clear(b)
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &s, nil
}

func createSecrets(dir, path string) (*Secrets, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	s, err := GenerateSecrets()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	defer clear(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another instance was first
		return LoadOrCreateSecrets(dir)
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		os.Remove(path)
		return nil, err
	}
	return s, nil
}
