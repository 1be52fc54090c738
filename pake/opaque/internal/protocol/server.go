package protocol

import (
	"bytes"
	"crypto/hmac"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
	"github.com/kexlab/kexlab/pake/opaque/internal/ake"
	"github.com/kexlab/kexlab/pake/opaque/internal/envelope"
)

// GenerateServerKeys draws server_private_key and server_public_key as
// DeriveDiffieHellmanKeyPair of a random seed (§6.4.1), then oprf_seed,
// from rand.
func GenerateServerKeys(rand io.Reader) (privateKey, publicKey, oprfSeed []byte, err error) {
	b := make([]byte, Nseed+Nh)
	if _, err := io.ReadFull(sysrand.Or(rand), b); err != nil {
		return nil, nil, nil, randomError(err)
	}
	sk, pk, err := ake.DeriveDiffieHellmanKeyPair(b[:Nseed], true)
	clear(b[:Nseed])
	if err != nil {
		return nil, nil, nil, err
	}
	return sk.Bytes(), pk, b[Nseed:], nil
}

// PublicKey returns server_public_key for server_private_key, after
// checking it as NewServer does.
func PublicKey(privateKey []byte) ([]byte, error) {
	sk, err := ake.ParsePrivateKey(privateKey)
	if err != nil {
		return nil, err
	}
	defer sk.Set(group.NewScalar())
	return ake.PublicKey(sk), nil
}

// Server runs the server side of registration and login for one context
// and one set of server keys.
type Server struct {
	context  []byte
	sk       *group.Scalar
	pk       []byte
	oprfSeed []byte
}

// NewServer checks the context, that privateKey is a non-zero scalar below
// n, that publicKey is a valid point and equals privateKey·G, and the size
// of oprfSeed, and returns a server with copies of them. Errors wrap
// ErrInvalidParameter.
func NewServer(context, privateKey, publicKey, oprfSeed []byte) (*Server, error) {
	context, err := cloneContext(context)
	if err != nil {
		return nil, err
	}
	sk, err := ake.ParsePrivateKey(privateKey)
	if err != nil {
		return nil, err
	}
	if _, err := oprf.DeserializeElement(publicKey); err != nil {
		return nil, fmt.Errorf("%w: opaque: invalid server public key (want a %d-byte compressed point)", pakeerr.ErrInvalidParameter, Npk)
	}
	if !bytes.Equal(ake.PublicKey(sk), publicKey) {
		return nil, fmt.Errorf("%w: opaque: server public key does not match the private key", pakeerr.ErrInvalidParameter)
	}
	if len(oprfSeed) != Nh {
		return nil, fmt.Errorf("%w: opaque: oprf_seed of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(oprfSeed), Nh)
	}
	return &Server{context: context, sk: sk, pk: bytes.Clone(publicKey), oprfSeed: bytes.Clone(oprfSeed)}, nil
}

// PublicKey returns server_public_key.
func (s *Server) PublicKey() []byte {
	if s == nil {
		return nil
	}
	return bytes.Clone(s.pk)
}

// OPRFKey derives the per-credential OPRF key (§5.2.2):
// DeriveKeyPair(Expand(oprf_seed, credential_identifier || "OprfKey", Nok),
// "OPAQUE-DeriveKeyPair") (RFC 9497 §3.2.1).
func OPRFKey(oprfSeed, credentialIdentifier []byte) (*group.Scalar, error) {
	info := append(bytes.Clone(credentialIdentifier), "OprfKey"...)
	return oprf.DeriveKeyPair(ake.Expand(oprfSeed, info, oprf.ScalarSize), []byte("OPAQUE-DeriveKeyPair"))
}

// evaluate derives the credential's OPRF key and computes
// SerializeElement(oprf_key·blinded_element) (BlindEvaluate, RFC 9497).
func (s *Server) evaluate(blinded *group.Point, credentialIdentifier []byte) ([]byte, error) {
	k, err := OPRFKey(s.oprfSeed, credentialIdentifier)
	if err != nil {
		return nil, err
	}
	return oprf.BlindEvaluate(k, blinded), nil
}

// CreateRegistrationResponse is §5.2.2.
func (s *Server) CreateRegistrationResponse(request *RegistrationRequest, credentialIdentifier []byte) (*RegistrationResponse, error) {
	if s == nil {
		return nil, errNoServer
	}
	if request == nil {
		return nil, noMessage("RegistrationRequest")
	}
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

// ServerState is the server's login state (ServerAkeState, §6.4), which
// ServerFinish consumes.
type ServerState struct {
	expectedClientMAC []byte
	sessionKey        []byte
}

// GenerateKE2 is §6.2.2: CreateCredentialResponse (§6.3.2.2), then
// AuthServerRespond (§6.4.4), reading masking_nonce, server_nonce and
// server_keyshare_seed from rand.
func (s *Server) GenerateKE2(rand io.Reader, record *RegistrationRecord, credentialIdentifier []byte, ke1 *KE1, ids Identities) (*ServerState, *KE2, error) {
	if s == nil {
		return nil, nil, errNoServer
	}
	if err := ids.Check(); err != nil {
		return nil, nil, err
	}
	if record == nil {
		return nil, nil, fmt.Errorf("%w: opaque: no registration record", pakeerr.ErrInvalidParameter)
	}
	if ke1 == nil {
		return nil, nil, noMessage("KE1")
	}
	blinded, err := element(ke1.blinded, ke1.b[:Noe])
	if err != nil {
		return nil, nil, err
	}
	clientKeyshare, err := element(ke1.keyshare, ke1.b[Noe+Nn:])
	if err != nil {
		return nil, nil, err
	}
	clientKey, err := element(record.clientKey, record.ClientPublicKey())
	if err != nil {
		return nil, nil, err
	}
	evaluated, err := s.evaluate(blinded, credentialIdentifier)
	if err != nil {
		return nil, nil, err
	}
	random := make([]byte, 3*Nn)
	if _, err := io.ReadFull(sysrand.Or(rand), random); err != nil {
		return nil, nil, randomError(err)
	}
	maskingNonce, serverNonce, keyshareSeed := random[:Nn], random[Nn:2*Nn], random[2*Nn:]

	// credential_response = evaluated_message || masking_nonce ||
	// masked_response.
	b := make([]byte, 0, KE2Size)
	b = append(append(b, evaluated...), maskingNonce...)
	b = append(b, envelope.Mask(record.MaskingKey(), maskingNonce, append(bytes.Clone(s.pk), record.Envelope()...))...)

	// AuthServerRespond.
	secret, keyshare, err := ake.DeriveDiffieHellmanKeyPair(keyshareSeed, true)
	clear(keyshareSeed)
	if err != nil {
		return nil, nil, err
	}
	defer secret.Set(group.NewScalar())
	b = append(append(b, serverNonce...), keyshare...)
	ikm, err := ake.TripleDH([3]*group.Scalar{secret, s.sk, secret}, [3]*group.Point{clientKeyshare, clientKeyshare, clientKey})
	if err != nil {
		return nil, nil, err
	}
	defer clear(ikm)
	clientIdentity := envelope.DefaultIdentity(ids.Client, record.ClientPublicKey())
	serverIdentity := envelope.DefaultIdentity(ids.Server, s.pk)
	serverMAC, clientMAC, sessionKey := ake.KeySchedule(s.context, clientIdentity, ke1.b, serverIdentity, b, ikm)
	b = append(b, serverMAC...)
	return &ServerState{expectedClientMAC: clientMAC, sessionKey: sessionKey}, &KE2{b: b}, nil
}

// ServerFinish is AuthServerFinalize (§6.4.4): it checks client_mac in
// constant time and returns session_key.
func (st *ServerState) ServerFinish(ke3 *KE3) ([]byte, error) {
	if st == nil || st.sessionKey == nil {
		return nil, stateError("login not started, or already finished")
	}
	key, want := st.sessionKey, st.expectedClientMAC
	st.sessionKey, st.expectedClientMAC = nil, nil
	if ke3 == nil {
		clear(key)
		return nil, noMessage("KE3")
	}
	if !hmac.Equal(ke3.b, want) {
		clear(key)
		return nil, fmt.Errorf("%w: opaque: client MAC mismatch", pakeerr.ErrAuthFailed)
	}
	return key, nil
}

// ServerStateSize is the length of a marshalled ServerState:
// expected_client_mac (Nm) || session_key (Nx).
const ServerStateSize = Nm + Nh

// MarshalBinary returns expected_client_mac || session_key, so that a
// server can keep the state between GenerateKE2 and ServerFinish outside
// its memory (a database shared by several instances). The encoding is
// secret: session_key is in it. It fails with ErrState once finished.
func (st *ServerState) MarshalBinary() ([]byte, error) {
	if st == nil || st.sessionKey == nil {
		return nil, stateError("login not started, or already finished")
	}
	return append(append(make([]byte, 0, ServerStateSize), st.expectedClientMAC...), st.sessionKey...), nil
}

// UnmarshalServerState restores MarshalBinary's encoding.
func UnmarshalServerState(b []byte) (*ServerState, error) {
	if len(b) != ServerStateSize {
		return nil, fmt.Errorf("%w: opaque: server state of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(b), ServerStateSize)
	}
	return &ServerState{expectedClientMAC: bytes.Clone(b[:Nm]), sessionKey: bytes.Clone(b[Nm:])}, nil
}
