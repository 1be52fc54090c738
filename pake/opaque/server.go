package opaque

import (
	"bytes"
	"crypto/hmac"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque/internal/ake"
	"github.com/kexlab/kexlab/pake/opaque/internal/envelope"
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
	b := make([]byte, nseed+nh)
	if _, err := io.ReadFull(rand, b); err != nil {
		return nil, randomError(err)
	}
	sk, pk, err := ake.DeriveDiffieHellmanKeyPair(b[:nseed], true)
	if err != nil {
		return nil, err
	}
	return &ServerKeys{PrivateKey: sk.Bytes(), PublicKey: pk, OPRFSeed: b[nseed:]}, nil
}

// Server runs the server side of registration and login for one set of
// ServerKeys. It is stateless and may be shared; each login keeps its state
// in a ServerState.
type Server struct {
	cfg      Config
	sk       *group.Scalar
	pk       []byte
	oprfSeed []byte
}

// NewServer returns a server with the given keys. It checks their sizes,
// that the private key is a non-zero scalar below n and that the public key
// is a valid point; it trusts PublicKey to be PrivateKey·G.
func NewServer(cfg Config, keys *ServerKeys) (*Server, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	sk, err := group.NewScalar().SetCanonicalBytes(keys.PrivateKey)
	if err != nil || sk.IsZero() == 1 {
		return nil, fmt.Errorf("%w: opaque: invalid server private key", pakeerr.ErrInvalidParameter)
	}
	if _, err := oprf.DeserializeElement(keys.PublicKey); err != nil {
		return nil, fmt.Errorf("%w: opaque: invalid server public key", pakeerr.ErrInvalidParameter)
	}
	if len(keys.OPRFSeed) != nh {
		return nil, fmt.Errorf("%w: opaque: oprf_seed of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(keys.OPRFSeed), nh)
	}
	cfg.Context = bytes.Clone(cfg.Context)
	return &Server{cfg: cfg, sk: sk, pk: bytes.Clone(keys.PublicKey), oprfSeed: bytes.Clone(keys.OPRFSeed)}, nil
}

// PublicKey returns server_public_key.
func (s *Server) PublicKey() []byte { return bytes.Clone(s.pk) }

// oprfKey derives the per-credential OPRF key (§5.2.2):
// DeriveKeyPair(Expand(oprf_seed, credential_identifier || "OprfKey", Nok),
// "OPAQUE-DeriveKeyPair") (RFC 9497 §3.2.1).
func oprfKey(oprfSeed, credentialIdentifier []byte) (*group.Scalar, error) {
	info := append(bytes.Clone(credentialIdentifier), "OprfKey"...)
	return oprf.DeriveKeyPair(ake.Expand(oprfSeed, info, oprf.ScalarSize), []byte("OPAQUE-DeriveKeyPair"))
}

// evaluate derives the credential's OPRF key and computes
// SerializeElement(oprf_key·blinded_element) (BlindEvaluate, RFC 9497).
func (s *Server) evaluate(blinded *group.Point, credentialIdentifier []byte) ([]byte, error) {
	k, err := oprfKey(s.oprfSeed, credentialIdentifier)
	if err != nil {
		return nil, err
	}
	return oprf.BlindEvaluate(k, blinded), nil
}

// CreateRegistrationResponse answers a registration request (§5.2.2) for
// the credential named credentialIdentifier, which must stay the same at
// every login.
func (s *Server) CreateRegistrationResponse(request *RegistrationRequest, credentialIdentifier []byte) (*RegistrationResponse, error) {
	blinded, err := element(request.blinded, request.b)
	if err != nil {
		return nil, err
	}
	evaluated, err := s.evaluate(blinded, credentialIdentifier)
	if err != nil {
		return nil, err
	}
	return &RegistrationResponse{b: append(evaluated, s.pk...)}, nil
}

// ServerState is the server's state between GenerateKE2 and ServerFinish
// (ServerAkeState, §6.4).
type ServerState struct {
	expectedClientMAC []byte
	sessionKey        []byte
}

// GenerateKE2 answers a login (§6.2.2): CreateCredentialResponse (§6.3.2.2)
// evaluates the OPRF and masks server_public_key || envelope, then
// AuthServerRespond (§6.4.4) runs 3DH. It reads masking_nonce, server_nonce
// and server_keyshare_seed from rand, in that order. For an unknown client,
// pass a fake record (NewFakeRecord). Empty identities default to the
// public keys.
func (s *Server) GenerateKE2(rand io.Reader, serverIdentity []byte, record *RegistrationRecord, credentialIdentifier, clientIdentity []byte, ke1 *KE1) (*ServerState, *KE2, error) {
	if err := checkIdentities(serverIdentity, clientIdentity); err != nil {
		return nil, nil, err
	}
	blinded, err := element(ke1.blinded, ke1.b[:noe])
	if err != nil {
		return nil, nil, err
	}
	clientKeyshare, err := element(ke1.keyshare, ke1.b[noe+nn:])
	if err != nil {
		return nil, nil, err
	}
	clientKey, err := element(record.clientKey, record.clientPublicKey())
	if err != nil {
		return nil, nil, err
	}
	evaluated, err := s.evaluate(blinded, credentialIdentifier)
	if err != nil {
		return nil, nil, err
	}
	random := make([]byte, 3*nn)
	if _, err := io.ReadFull(rand, random); err != nil {
		return nil, nil, randomError(err)
	}
	maskingNonce, serverNonce, keyshareSeed := random[:nn], random[nn:2*nn], random[2*nn:]

	// credential_response = evaluated_message || masking_nonce ||
	// masked_response.
	b := make([]byte, 0, KE2Size)
	b = append(append(b, evaluated...), maskingNonce...)
	b = append(b, envelope.Mask(record.maskingKey(), maskingNonce, append(bytes.Clone(s.pk), record.envelope()...))...)

	// AuthServerRespond.
	secret, keyshare, err := ake.DeriveDiffieHellmanKeyPair(keyshareSeed, true)
	if err != nil {
		return nil, nil, err
	}
	b = append(append(b, serverNonce...), keyshare...)
	ikm, err := ake.TripleDH([3]*group.Scalar{secret, s.sk, secret}, [3]*group.Point{clientKeyshare, clientKeyshare, clientKey})
	if err != nil {
		return nil, nil, err
	}
	clientIdentity = orDefault(clientIdentity, record.clientPublicKey())
	serverIdentity = orDefault(serverIdentity, s.pk)
	serverMAC, clientMAC, sessionKey := ake.KeySchedule(s.cfg.Context, clientIdentity, ke1.b, serverIdentity, b, ikm)
	b = append(b, serverMAC...)
	return &ServerState{expectedClientMAC: clientMAC, sessionKey: sessionKey}, &KE2{b: b}, nil
}

// ServerFinish checks the client's MAC (AuthServerFinalize, §6.4.4) and
// returns session_key, or ErrAuthFailed. A state finishes once.
func (st *ServerState) ServerFinish(ke3 *KE3) ([]byte, error) {
	if st.sessionKey == nil {
		return nil, fmt.Errorf("%w: opaque: login already finished", pakeerr.ErrState)
	}
	key, want := st.sessionKey, st.expectedClientMAC
	st.sessionKey, st.expectedClientMAC = nil, nil
	if !hmac.Equal(ke3.b, want) {
		return nil, fmt.Errorf("%w: opaque: client MAC mismatch", pakeerr.ErrAuthFailed)
	}
	return key, nil
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

const storedRecordFixedSize = nsk + npk + nh + RegistrationRecordSize

// Bytes encodes r.
func (r *StoredRecord) Bytes() []byte {
	b := make([]byte, 0, storedRecordFixedSize+len(r.CredentialIdentifier))
	b = append(append(append(b, r.Keys.PrivateKey...), r.Keys.PublicKey...), r.Keys.OPRFSeed...)
	return append(append(b, r.Record.b...), r.CredentialIdentifier...)
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
