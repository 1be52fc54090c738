package opaque

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
)

// ServerKeys is the server's long-term material (§3.1, Setup): its AKE key
// pair and the seed from which it derives each credential's OPRF key.
type ServerKeys struct {
	PrivateKey []byte // server_private_key: a scalar, 32 bytes big-endian
	PublicKey  []byte // server_public_key: SerializeElement(PrivateKey·G), 33 bytes
	OPRFSeed   []byte // oprf_seed: 32 bytes
}

// GenerateServerKeys draws fresh server keys from rand: the key pair is
// DeriveDiffieHellmanKeyPair of a random seed (§6.4.1), then oprf_seed.
func GenerateServerKeys(rand io.Reader) (*ServerKeys, error) {
	sk, pk, seed, err := protocol.GenerateServerKeys(rand)
	if err != nil {
		return nil, err
	}
	return &ServerKeys{PrivateKey: sk, PublicKey: pk, OPRFSeed: seed}, nil
}

// Server runs the server side of registration and login for one set of
// ServerKeys. It is stateless and may be shared; each login keeps its state
// in a ServerState.
type Server struct{ s *protocol.Server }

// NewServer returns a server with the given keys. It checks their sizes,
// that the private key is a non-zero scalar below n and that the public key
// is a valid point; it trusts PublicKey to be PrivateKey·G.
func NewServer(cfg Config, keys *ServerKeys) (*Server, error) {
	s, err := protocol.NewServer(cfg.Context, keys.PrivateKey, keys.PublicKey, keys.OPRFSeed)
	if err != nil {
		return nil, err
	}
	return &Server{s}, nil
}

// PublicKey returns server_public_key.
func (s *Server) PublicKey() []byte { return s.s.PublicKey() }

// CreateRegistrationResponse answers a registration request (§5.2.2) for
// the credential named credentialIdentifier, which must stay the same at
// every login.
func (s *Server) CreateRegistrationResponse(request *RegistrationRequest, credentialIdentifier []byte) (*RegistrationResponse, error) {
	resp, err := s.s.CreateRegistrationResponse(request.m, credentialIdentifier)
	if err != nil {
		return nil, err
	}
	return &RegistrationResponse{resp}, nil
}

// ServerState is the server's state between GenerateKE2 and ServerFinish
// (ServerAkeState, §6.4).
type ServerState struct{ st *protocol.ServerState }

// GenerateKE2 answers a login (§6.2.2): CreateCredentialResponse (§6.3.2.2)
// evaluates the OPRF and masks server_public_key || envelope, then
// AuthServerRespond (§6.4.4) runs 3DH. It reads masking_nonce, server_nonce
// and server_keyshare_seed from rand, in that order. For an unknown client,
// pass a fake record (NewFakeRecord). Empty identities default to the
// public keys.
func (s *Server) GenerateKE2(rand io.Reader, serverIdentity []byte, record *RegistrationRecord, credentialIdentifier, clientIdentity []byte, ke1 *KE1) (*ServerState, *KE2, error) {
	st, ke2, err := s.s.GenerateKE2(rand, serverIdentity, record.m, credentialIdentifier, clientIdentity, ke1.m)
	if err != nil {
		return nil, nil, err
	}
	return &ServerState{st}, &KE2{ke2}, nil
}

// ServerFinish checks the client's MAC (AuthServerFinalize, §6.4.4) and
// returns session_key, or ErrAuthFailed. A state finishes once.
func (st *ServerState) ServerFinish(ke3 *KE3) ([]byte, error) { return st.st.ServerFinish(ke3.m) }

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

// Bytes encodes r.
func (r *StoredRecord) Bytes() []byte {
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
