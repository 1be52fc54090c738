package protocol

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

// Client runs the client side of registration and login for one Config.
type Client struct{ cfg Config }

// NewClient checks cfg and returns a client for a copy of it.
func NewClient(cfg Config) (*Client, error) {
	cfg, err := cfg.clone()
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg}, nil
}

// ClientRegistration is the client's registration state: the password and
// the OPRF blind, which FinalizeRegistrationRequest consumes.
type ClientRegistration struct {
	cfg      *Config
	password []byte
	blind    *group.Scalar
}

// CreateRegistrationRequest is §5.2.1: blinded_message from a blind read
// from rand.
func (c *Client) CreateRegistrationRequest(rand io.Reader, password []byte) (*ClientRegistration, *RegistrationRequest, error) {
	r, blinded, err := oprf.Blind(rand, password)
	if err != nil {
		return nil, nil, err
	}
	st := &ClientRegistration{cfg: &c.cfg, password: bytes.Clone(password), blind: r}
	return st, &RegistrationRequest{b: blinded}, nil
}

// FinalizeRegistrationRequest is §5.2.3: randomized_password from the OPRF
// output, then Store (§4.1.2) with an envelope_nonce read from rand. It
// returns the record and export_key.
func (st *ClientRegistration) FinalizeRegistrationRequest(rand io.Reader, response *RegistrationResponse, serverIdentity, clientIdentity []byte) (*RegistrationRecord, []byte, error) {
	if st.blind == nil {
		return nil, nil, fmt.Errorf("%w: opaque: registration already finalized", pakeerr.ErrState)
	}
	blind := st.blind
	st.blind = nil
	if err := CheckIdentities(serverIdentity, clientIdentity); err != nil {
		return nil, nil, err
	}
	z, err := element(response.evaluated, response.b[:Noe])
	if err != nil {
		return nil, nil, err
	}
	serverPublicKey := response.b[Noe:]
	if _, err := element(response.serverKey, serverPublicKey); err != nil {
		return nil, nil, err
	}
	rwd, err := st.cfg.randomizedPassword(st.password, blind, z)
	if err != nil {
		return nil, nil, err
	}
	nonce := make([]byte, Nn)
	if _, err := io.ReadFull(rand, nonce); err != nil {
		return nil, nil, randomError(err)
	}
	env, clientPublicKey, exportKey, err := envelope.Store(rwd, nonce, serverPublicKey, serverIdentity, clientIdentity)
	if err != nil {
		return nil, nil, err
	}
	b := append(append(clientPublicKey, envelope.MaskingKey(rwd)...), env...)
	return &RegistrationRecord{b: b}, exportKey, nil
}

// randomizedPassword unblinds the OPRF evaluation z into oprf_output
// (Finalize, RFC 9497 §3.3.1) and returns randomized_password.
func (c *Config) randomizedPassword(password []byte, blind *group.Scalar, z *group.Point) ([]byte, error) {
	out, err := oprf.Finalize(password, blind, z)
	if err != nil {
		return nil, err
	}
	return RandomizedPassword(c.Stretch, out)
}

// ClientState is the client's login state (ClientState and ClientAkeState
// of §6, §6.4), which GenerateKE3 consumes.
type ClientState struct {
	cfg      *Config
	password []byte
	blind    *group.Scalar
	secret   *group.Scalar // client_secret, the ephemeral private key
	ke1      []byte
}

// GenerateKE1 is §6.2.1: CreateCredentialRequest and AuthClientStart,
// reading the blind, client_nonce and client_keyshare_seed from rand.
func (c *Client) GenerateKE1(rand io.Reader, password []byte) (*ClientState, *KE1, error) {
	r, blinded, err := oprf.Blind(rand, password)
	if err != nil {
		return nil, nil, err
	}
	nonceSeed := make([]byte, Nn+Nseed)
	if _, err := io.ReadFull(rand, nonceSeed); err != nil {
		return nil, nil, randomError(err)
	}
	secret, keyshare, err := ake.DeriveDiffieHellmanKeyPair(nonceSeed[Nn:], true)
	if err != nil {
		return nil, nil, err
	}
	ke1 := append(append(blinded, nonceSeed[:Nn]...), keyshare...)
	st := &ClientState{cfg: &c.cfg, password: bytes.Clone(password), blind: r, secret: secret, ke1: ke1}
	return st, &KE1{b: ke1}, nil
}

// GenerateKE3 is §6.2.3: RecoverCredentials (§6.3.2.3, with Recover of
// §4.1.3), then AuthClientFinalize (§6.4.3), which checks server_mac in
// constant time. It returns KE3, session_key and export_key.
func (st *ClientState) GenerateKE3(clientIdentity, serverIdentity []byte, ke2 *KE2) (ke3 *KE3, sessionKey, exportKey []byte, err error) {
	if st.blind == nil {
		return nil, nil, nil, fmt.Errorf("%w: opaque: login already finished", pakeerr.ErrState)
	}
	blind := st.blind
	st.blind = nil
	if err := CheckIdentities(serverIdentity, clientIdentity); err != nil {
		return nil, nil, nil, err
	}
	z, err := element(ke2.evaluated, ke2.b[:Noe])
	if err != nil {
		return nil, nil, nil, err
	}
	serverKeyshare, err := element(ke2.keyshare, ke2.b[ke2Keyshare:ke2ServerMAC])
	if err != nil {
		return nil, nil, nil, err
	}
	rwd, err := st.cfg.randomizedPassword(st.password, blind, z)
	if err != nil {
		return nil, nil, nil, err
	}

	rec, err := envelope.RecoverCredentials(rwd, ke2.b[ke2MaskingNonce:ke2MaskedResponse], ke2.b[ke2MaskedResponse:ke2ServerNonce], serverIdentity, clientIdentity)
	if err != nil {
		return nil, nil, nil, err
	}

	// AuthClientFinalize (§6.4.3).
	ikm, err := ake.TripleDH([3]*group.Scalar{st.secret, st.secret, rec.ClientPrivateKey}, [3]*group.Point{serverKeyshare, rec.ServerPublicKey, serverKeyshare})
	if err != nil {
		return nil, nil, nil, err
	}
	serverMAC, clientMAC, sessionKey := ake.KeySchedule(st.cfg.Context, rec.ClientIdentity, st.ke1, rec.ServerIdentity, ke2.b[:ke2ServerMAC], ikm)
	if !hmac.Equal(serverMAC, ke2.b[ke2ServerMAC:]) {
		return nil, nil, nil, fmt.Errorf("%w: opaque: server MAC mismatch", pakeerr.ErrAuthFailed)
	}
	return &KE3{b: clientMAC}, sessionKey, rec.ExportKey, nil
}
