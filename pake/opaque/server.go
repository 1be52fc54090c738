package opaque

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
)

// ServerKeys is the server's long-term material (§3.1, Setup): its AKE key
// pair and the seed from which it derives each credential's OPRF key. The
// encodings are those of RFC 9807 §7 for P-256, so keys made by another
// implementation of the same configuration import unchanged (see the
// package documentation).
type ServerKeys struct {
	PrivateKey []byte // server_private_key: SerializeScalar, 32 bytes big-endian
	PublicKey  []byte // server_public_key: SerializeElement(PrivateKey·G), 33 bytes
	OPRFSeed   []byte // oprf_seed: Nh = 32 bytes
}

// GenerateServerKeys draws fresh server keys from rand (nil means
// crypto/rand): the key pair is DeriveDiffieHellmanKeyPair of a random seed
// (§6.4.1), then oprf_seed.
func GenerateServerKeys(rand io.Reader) (*ServerKeys, error) {
	sk, pk, seed, err := protocol.GenerateServerKeys(rand)
	if err != nil {
		return nil, err
	}
	return &ServerKeys{PrivateKey: sk, PublicKey: pk, OPRFSeed: seed}, nil
}

// ServerPublicKey returns the public key of a server private key:
// SerializeElement(privateKey·G), the compressed SEC 1 point of 33 bytes
// (RFC 9497 §4.3). privateKey is SerializeScalar of a scalar in [1, n-1]:
// 32 bytes, big-endian; anything else fails with ErrInvalidParameter.
func ServerPublicKey(privateKey []byte) ([]byte, error) { return protocol.PublicKey(privateKey) }

// NewServerKeys returns the server keys for a private key and an
// oprf_seed, with the public key derived from the private key
// (ServerPublicKey). It is how to import the keys of an existing
// deployment: the private key alone determines the key pair. The result
// holds copies of the arguments.
func NewServerKeys(privateKey, oprfSeed []byte) (*ServerKeys, error) {
	pk, err := ServerPublicKey(privateKey)
	if err != nil {
		return nil, err
	}
	k := &ServerKeys{PrivateKey: bytes.Clone(privateKey), PublicKey: pk, OPRFSeed: bytes.Clone(oprfSeed)}
	if err := k.Check(); err != nil {
		return nil, err
	}
	return k, nil
}

var errNoKeys = fmt.Errorf("%w: opaque: no server keys", pakeerr.ErrInvalidParameter)

// Check checks k as NewServer does: PrivateKey is 32 bytes encoding a
// scalar in [1, n-1], PublicKey a valid 33-byte compressed point equal to
// PrivateKey·G, and OPRFSeed 32 bytes. Errors wrap ErrInvalidParameter.
func (k *ServerKeys) Check() error {
	if k == nil {
		return errNoKeys
	}
	_, err := protocol.NewServer(nil, k.PrivateKey, k.PublicKey, k.OPRFSeed)
	return err
}

// Server runs the server side of registration and login for one set of
// ServerKeys. It is stateless and may be shared; each login keeps its state
// in a ServerState. A Server must come from NewServer: the methods of a zero
// Server fail with ErrInvalidParameter.
type Server struct{ p *protocol.Server }

// NewServer returns a server with the given keys, after checking them
// (ServerKeys.Check): a public key that is not the private key's fails
// with ErrInvalidParameter.
func NewServer(cfg Config, keys *ServerKeys) (*Server, error) {
	if keys == nil {
		return nil, errNoKeys
	}
	s, err := protocol.NewServer(cfg.Context, keys.PrivateKey, keys.PublicKey, keys.OPRFSeed)
	return wrap[Server](s, err)
}

// PublicKey returns server_public_key (nil for a zero Server).
func (s *Server) PublicKey() []byte { return inner(s).PublicKey() }

// CreateRegistrationResponse answers a registration request (§5.2.2) for
// the credential named credentialIdentifier, which must stay the same at
// every login.
func (s *Server) CreateRegistrationResponse(request *RegistrationRequest, credentialIdentifier []byte) (*RegistrationResponse, error) {
	resp, err := inner(s).CreateRegistrationResponse(inner(request), credentialIdentifier)
	return wrap[RegistrationResponse](resp, err)
}

// ServerState is the server's state between GenerateKE2 and ServerFinish
// (ServerAkeState, §6.4).
type ServerState struct{ p *protocol.ServerState }

// GenerateKE2 answers a login (§6.2.2) for the client whose record is
// stored under credentialIdentifier, with the identities of its
// registration: CreateCredentialResponse (§6.3.2.2) evaluates the OPRF and
// masks server_public_key || envelope, then AuthServerRespond (§6.4.4) runs
// 3DH. It reads masking_nonce, server_nonce and server_keyshare_seed from
// rand, in that order (nil means crypto/rand). For an unknown client, pass
// a fake record (NewFakeRecord).
func (s *Server) GenerateKE2(rand io.Reader, record *RegistrationRecord, credentialIdentifier []byte, ke1 *KE1, ids Identities) (*ServerState, *KE2, error) {
	st, ke2, err := inner(s).GenerateKE2(rand, inner(record), credentialIdentifier, inner(ke1), protocol.Identities(ids))
	if err != nil {
		return nil, nil, err
	}
	return &ServerState{st}, &KE2{ke2}, nil
}

// ServerFinish checks the client's MAC (AuthServerFinalize, §6.4.4) and
// returns session_key, or ErrAuthFailed. A state finishes once, even on
// error; after that, and for a zero ServerState, it fails with ErrState.
func (st *ServerState) ServerFinish(ke3 *KE3) ([]byte, error) {
	return inner(st).ServerFinish(inner(ke3))
}

// StoredRecord is kexlab's storage format for one registered client, used
// by the uniform pake interface (it is not part of RFC 9807): the server
// keys, the RFC's RegistrationRecord and the credential identifier, as
//
//	server_private_key (32) || server_public_key (33) || oprf_seed (32) ||
//	RegistrationRecord (129) || credential_identifier (the rest).
type StoredRecord struct {
	Keys                 ServerKeys
	Record               *RegistrationRecord
	CredentialIdentifier []byte
}

// Field sizes of a StoredRecord.
const (
	nsk                   = protocol.Nsk
	npk                   = protocol.Npk
	nh                    = protocol.Nh
	storedRecordFixedSize = nsk + npk + nh + RegistrationRecordSize
)

// Bytes encodes r. It returns nil for a nil r, or one whose fields do not
// have their sizes (which ParseStoredRecord could not decode).
func (r *StoredRecord) Bytes() []byte {
	if r == nil || inner(r.Record) == nil || len(r.Keys.PrivateKey) != nsk || len(r.Keys.PublicKey) != npk || len(r.Keys.OPRFSeed) != nh {
		return nil
	}
	b := make([]byte, 0, storedRecordFixedSize+len(r.CredentialIdentifier))
	b = append(append(append(b, r.Keys.PrivateKey...), r.Keys.PublicKey...), r.Keys.OPRFSeed...)
	return append(append(b, r.Record.Bytes()...), r.CredentialIdentifier...)
}

// ParseStoredRecord decodes a StoredRecord. It checks the record's client
// public key; NewServer checks the keys. Errors wrap ErrInvalidParameter.
func ParseStoredRecord(b []byte) (*StoredRecord, error) {
	if len(b) < storedRecordFixedSize {
		return nil, fmt.Errorf("%w: opaque: stored record of %d bytes, want at least %d", pakeerr.ErrInvalidParameter, len(b), storedRecordFixedSize)
	}
	b = bytes.Clone(b)
	rec, err := ParseRegistrationRecord(b[nsk+npk+nh : storedRecordFixedSize])
	if err != nil {
		return nil, fmt.Errorf("%w: opaque: stored record: %v", pakeerr.ErrInvalidParameter, err)
	}
	return &StoredRecord{
		Keys:                 ServerKeys{PrivateKey: b[:nsk:nsk], PublicKey: b[nsk : nsk+npk : nsk+npk], OPRFSeed: b[nsk+npk : nsk+npk+nh : nsk+npk+nh]},
		Record:               rec,
		CredentialIdentifier: b[storedRecordFixedSize:],
	}, nil
}

// MarshalBinary encodes the state between GenerateKE2 and ServerFinish
// (expected_client_mac || session_key, 64 bytes), so that another process
// can finish the login (UnmarshalServerState). The encoding holds the
// session key: keep it secret and short-lived. It fails with ErrState once
// the state has finished.
func (st *ServerState) MarshalBinary() ([]byte, error) { return inner(st).MarshalBinary() }

// UnmarshalServerState restores a ServerState from MarshalBinary's
// encoding; a wrong length fails with ErrInvalidParameter.
func UnmarshalServerState(b []byte) (*ServerState, error) {
	return wrap[ServerState](protocol.UnmarshalServerState(b))
}
