package opaque

import (
	"crypto/hmac"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque/internal/ake"
	"github.com/kexlab/kexlab/pake/opaque/internal/envelope"
)

// Client runs the client side of registration and login. It is stateless
// and may be shared; each run keeps its state in a ClientRegistration or
// ClientState, which can be finished once.
type Client struct{ cfg Config }

// NewClient returns a client for cfg.
func NewClient(cfg Config) (*Client, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg.Context = append([]byte(nil), cfg.Context...)
	return &Client{cfg: cfg}, nil
}

// ClientRegistration is the client's state between CreateRegistrationRequest
// and FinalizeRegistrationRequest: the password and the OPRF blind.
type ClientRegistration struct {
	cfg      *Config
	password []byte
	blind    *group.Scalar
}

// CreateRegistrationRequest starts registration (§5.2.1): it blinds the
// password, reading the blind from rand (48 bytes, reduced mod n).
func (c *Client) CreateRegistrationRequest(rand io.Reader, password []byte) (*ClientRegistration, *RegistrationRequest, error) {
	r, blinded, err := oprf.Blind(rand, password)
	if err != nil {
		return nil, nil, err
	}
	st := &ClientRegistration{cfg: &c.cfg, password: append([]byte(nil), password...), blind: r}
	return st, &RegistrationRequest{b: blinded}, nil
}

// FinalizeRegistrationRequest finishes registration (§5.2.3): it unblinds
// the OPRF output, stretches it into randomized_password and creates the
// envelope (Store, §4.1.2), reading envelope_nonce from rand. It returns the
// record to send to the server and export_key. Empty identities default to
// the public keys.
func (st *ClientRegistration) FinalizeRegistrationRequest(rand io.Reader, response *RegistrationResponse, serverIdentity, clientIdentity []byte) (*RegistrationRecord, []byte, error) {
	if st.blind == nil {
		return nil, nil, fmt.Errorf("%w: opaque: registration already finalized", pakeerr.ErrState)
	}
	blind := st.blind
	st.blind = nil
	if err := checkIdentities(serverIdentity, clientIdentity); err != nil {
		return nil, nil, err
	}
	z, err := element(response.evaluated, response.b[:noe])
	if err != nil {
		return nil, nil, err
	}
	serverPublicKey := response.b[noe:]
	if _, err := element(response.serverKey, serverPublicKey); err != nil {
		return nil, nil, err
	}
	rwd, err := st.cfg.finalize(st.password, blind, z)
	if err != nil {
		return nil, nil, err
	}

	nonce := make([]byte, nn)
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

// ClientState is the client's state between GenerateKE1 and GenerateKE3
// (ClientState and ClientAkeState of §6, §6.4).
type ClientState struct {
	cfg      *Config
	password []byte
	blind    *group.Scalar
	secret   *group.Scalar // client_secret, the ephemeral private key
	ke1      []byte
}

// GenerateKE1 starts a login (§6.2.1): it blinds the password
// (CreateCredentialRequest) and derives an ephemeral key pair
// (AuthClientStart), reading from rand the blind (48 bytes, reduced mod n),
// client_nonce and client_keyshare_seed, in that order.
func (c *Client) GenerateKE1(rand io.Reader, password []byte) (*ClientState, *KE1, error) {
	r, blinded, err := oprf.Blind(rand, password)
	if err != nil {
		return nil, nil, err
	}
	nonceSeed := make([]byte, nn+nseed)
	if _, err := io.ReadFull(rand, nonceSeed); err != nil {
		return nil, nil, randomError(err)
	}
	secret, keyshare, err := ake.DeriveDiffieHellmanKeyPair(nonceSeed[nn:], true)
	if err != nil {
		return nil, nil, err
	}
	ke1 := append(append(blinded, nonceSeed[:nn]...), keyshare...)
	st := &ClientState{cfg: &c.cfg, password: append([]byte(nil), password...), blind: r, secret: secret, ke1: ke1}
	return st, &KE1{b: ke1}, nil
}

// GenerateKE3 finishes the client's login (§6.2.3): it recovers the
// credentials from ke2 (RecoverCredentials, §6.3.2.3, and Recover, §4.1.3),
// runs 3DH and checks server_mac (AuthClientFinalize, §6.4.3). It returns
// KE3, session_key and export_key, the latter only once the server is
// authenticated (§6). A wrong password, a fake record or a modified KE2 fail
// with ErrAuthFailed. Empty identities default to the public keys.
func (st *ClientState) GenerateKE3(clientIdentity, serverIdentity []byte, ke2 *KE2) (ke3 *KE3, sessionKey, exportKey []byte, err error) {
	if st.blind == nil {
		return nil, nil, nil, fmt.Errorf("%w: opaque: login already finished", pakeerr.ErrState)
	}
	blind := st.blind
	st.blind = nil
	if err := checkIdentities(serverIdentity, clientIdentity); err != nil {
		return nil, nil, nil, err
	}
	z, err := element(ke2.evaluated, ke2.b[:noe])
	if err != nil {
		return nil, nil, nil, err
	}
	serverKeyshare, err := element(ke2.keyshare, ke2.b[ke2Keyshare:ke2ServerMAC])
	if err != nil {
		return nil, nil, nil, err
	}
	rwd, err := st.cfg.finalize(st.password, blind, z)
	if err != nil {
		return nil, nil, nil, err
	}

	// Unmask server_public_key || envelope (§6.3.2.3) and Recover (§4.1.3).
	unmasked := envelope.Mask(envelope.MaskingKey(rwd), ke2.b[ke2MaskingNonce:ke2MaskedResponse], ke2.b[ke2MaskedResponse:ke2ServerNonce])
	serverPublicKey := unmasked[:npk]
	rec, err := envelope.Recover(rwd, serverPublicKey, unmasked[npk:], serverIdentity, clientIdentity)
	if err != nil {
		return nil, nil, nil, err
	}
	serverKey, err := oprf.DeserializeElement(serverPublicKey)
	if err != nil {
		return nil, nil, nil, err
	}

	// AuthClientFinalize (§6.4.3).
	ikm, err := ake.TripleDH([3]*group.Scalar{st.secret, st.secret, rec.ClientPrivateKey}, [3]*group.Point{serverKeyshare, serverKey, serverKeyshare})
	if err != nil {
		return nil, nil, nil, err
	}
	serverMAC, clientMAC, sessionKey := ake.KeySchedule(st.cfg.Context, rec.ClientIdentity, st.ke1, rec.ServerIdentity, ke2.b[:ke2ServerMAC], ikm)
	if !hmac.Equal(serverMAC, ke2.b[ke2ServerMAC:]) {
		return nil, nil, nil, fmt.Errorf("%w: opaque: server MAC mismatch", pakeerr.ErrAuthFailed)
	}
	return &KE3{b: clientMAC}, sessionKey, rec.ExportKey, nil
}

func checkIdentities(serverIdentity, clientIdentity []byte) error {
	if err := checkIdentity(serverIdentity); err != nil {
		return err
	}
	return checkIdentity(clientIdentity)
}
