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
	if c == nil {
		return nil, nil, errNoClient
	}
	r, blinded, err := oprf.Blind(sysrand.Or(rand), password)
	if err != nil {
		return nil, nil, err
	}
	st := &ClientRegistration{cfg: &c.cfg, password: bytes.Clone(password), blind: r}
	return st, &RegistrationRequest{b: blinded}, nil
}

// FinalizeRegistrationRequest is §5.2.3: randomized_password from the OPRF
// output, then Store (§4.1.2) with an envelope_nonce read from rand. It
// returns the record and export_key. The state is consumed even on error.
func (st *ClientRegistration) FinalizeRegistrationRequest(rand io.Reader, response *RegistrationResponse, ids Identities) (*RegistrationRecord, []byte, error) {
	if st == nil || st.blind == nil {
		return nil, nil, stateError("registration not started, or already finalized")
	}
	blind, password := st.blind, st.password
	st.blind, st.password = nil, nil
	defer clear(password)
	if err := ids.Check(); err != nil {
		return nil, nil, err
	}
	if response == nil {
		return nil, nil, noMessage("RegistrationResponse")
	}
	z, err := element(response.evaluated, response.b[:Noe])
	if err != nil {
		return nil, nil, err
	}
	serverPublicKey := response.b[Noe:]
	if _, err := element(response.serverKey, serverPublicKey); err != nil {
		return nil, nil, err
	}
	rwd, err := st.cfg.randomizedPassword(password, blind, z)
	if err != nil {
		return nil, nil, err
	}
	defer clear(rwd)
	nonce := make([]byte, Nn)
	if _, err := io.ReadFull(sysrand.Or(rand), nonce); err != nil {
		return nil, nil, randomError(err)
	}
	env, clientPublicKey, exportKey, err := envelope.Store(rwd, nonce, serverPublicKey, ids.Server, ids.Client)
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
	defer clear(out)
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
	if c == nil {
		return nil, nil, errNoClient
	}
	rand = sysrand.Or(rand)
	r, blinded, err := oprf.Blind(rand, password)
	if err != nil {
		return nil, nil, err
	}
	nonceSeed := make([]byte, Nn+Nseed)
	if _, err := io.ReadFull(rand, nonceSeed); err != nil {
		return nil, nil, randomError(err)
	}
	secret, keyshare, err := ake.DeriveDiffieHellmanKeyPair(nonceSeed[Nn:], true)
	clear(nonceSeed[Nn:])
	if err != nil {
		return nil, nil, err
	}
	ke1 := append(append(blinded, nonceSeed[:Nn]...), keyshare...)
	st := &ClientState{cfg: &c.cfg, password: bytes.Clone(password), blind: r, secret: secret, ke1: ke1}
	return st, &KE1{b: ke1}, nil
}

// GenerateKE3 is §6.2.3: RecoverCredentials (§6.3.2.3, with Recover of
// §4.1.3), then AuthClientFinalize (§6.4.3), which checks server_mac in
// constant time. It returns KE3, session_key and export_key. The state is
// consumed even on error.
func (st *ClientState) GenerateKE3(ke2 *KE2, ids Identities) (ke3 *KE3, sessionKey, exportKey []byte, err error) {
	if st == nil || st.blind == nil {
		return nil, nil, nil, stateError("login not started, or already finished")
	}
	blind, password, secret := st.blind, st.password, st.secret
	st.blind, st.password, st.secret = nil, nil, nil
	defer clear(password)
	defer secret.Set(group.NewScalar())
	if err := ids.Check(); err != nil {
		return nil, nil, nil, err
	}
	if ke2 == nil {
		return nil, nil, nil, noMessage("KE2")
	}
	z, err := element(ke2.evaluated, ke2.b[:Noe])
	if err != nil {
		return nil, nil, nil, err
	}
	serverKeyshare, err := element(ke2.keyshare, ke2.b[ke2Keyshare:ke2ServerMAC])
	if err != nil {
		return nil, nil, nil, err
	}
	rwd, err := st.cfg.randomizedPassword(password, blind, z)
	if err != nil {
		return nil, nil, nil, err
	}
	defer clear(rwd)

	rec, err := envelope.RecoverCredentials(rwd, ke2.b[ke2MaskingNonce:ke2MaskedResponse], ke2.b[ke2MaskedResponse:ke2ServerNonce], ids.Server, ids.Client)
	if err != nil {
		return nil, nil, nil, err
	}

	// AuthClientFinalize (§6.4.3).
	defer rec.ClientPrivateKey.Set(group.NewScalar())
	ikm, err := ake.TripleDH([3]*group.Scalar{secret, secret, rec.ClientPrivateKey}, [3]*group.Point{serverKeyshare, rec.ServerPublicKey, serverKeyshare})
	if err != nil {
		return nil, nil, nil, err
	}
	defer clear(ikm)
	serverMAC, clientMAC, sessionKey := ake.KeySchedule(st.cfg.Context, rec.ClientIdentity, st.ke1, rec.ServerIdentity, ke2.b[:ke2ServerMAC], ikm)
	if !hmac.Equal(serverMAC, ke2.b[ke2ServerMAC:]) {
		clear(sessionKey)
		return nil, nil, nil, fmt.Errorf("%w: opaque: server MAC mismatch", pakeerr.ErrAuthFailed)
	}
	return &KE3{b: clientMAC}, sessionKey, rec.ExportKey, nil
}
