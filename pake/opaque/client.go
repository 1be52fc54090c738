package opaque

import (
	"io"

	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
)

// Client runs the client side of registration and login. It is stateless
// and may be shared; each run keeps its state in a ClientRegistration or
// ClientState, which can be finished once.
type Client struct{ c *protocol.Client }

// NewClient returns a client for cfg.
func NewClient(cfg Config) (*Client, error) {
	c, err := protocol.NewClient(cfg.toProtocol())
	if err != nil {
		return nil, err
	}
	return &Client{c}, nil
}

// ClientRegistration is the client's state between CreateRegistrationRequest
// and FinalizeRegistrationRequest: the password and the OPRF blind.
type ClientRegistration struct{ st *protocol.ClientRegistration }

// CreateRegistrationRequest starts registration (§5.2.1): it blinds the
// password, reading the blind from rand (48 bytes, reduced mod n).
func (c *Client) CreateRegistrationRequest(rand io.Reader, password []byte) (*ClientRegistration, *RegistrationRequest, error) {
	st, req, err := c.c.CreateRegistrationRequest(rand, password)
	if err != nil {
		return nil, nil, err
	}
	return &ClientRegistration{st}, &RegistrationRequest{req}, nil
}

// FinalizeRegistrationRequest finishes registration (§5.2.3): it unblinds
// the OPRF output, stretches it into randomized_password and creates the
// envelope (Store, §4.1.2), reading envelope_nonce from rand. It returns the
// record to send to the server and export_key. Empty identities default to
// the public keys.
func (st *ClientRegistration) FinalizeRegistrationRequest(rand io.Reader, response *RegistrationResponse, serverIdentity, clientIdentity []byte) (*RegistrationRecord, []byte, error) {
	rec, exportKey, err := st.st.FinalizeRegistrationRequest(rand, response.m, serverIdentity, clientIdentity)
	if err != nil {
		return nil, nil, err
	}
	return &RegistrationRecord{rec}, exportKey, nil
}

// ClientState is the client's state between GenerateKE1 and GenerateKE3
// (ClientState and ClientAkeState of §6, §6.4).
type ClientState struct{ st *protocol.ClientState }

// GenerateKE1 starts a login (§6.2.1): it blinds the password
// (CreateCredentialRequest) and derives an ephemeral key pair
// (AuthClientStart), reading from rand the blind (48 bytes, reduced mod n),
// client_nonce and client_keyshare_seed, in that order.
func (c *Client) GenerateKE1(rand io.Reader, password []byte) (*ClientState, *KE1, error) {
	st, ke1, err := c.c.GenerateKE1(rand, password)
	if err != nil {
		return nil, nil, err
	}
	return &ClientState{st}, &KE1{ke1}, nil
}

// GenerateKE3 finishes the client's login (§6.2.3): it recovers the
// credentials from ke2 (RecoverCredentials, §6.3.2.3, and Recover, §4.1.3),
// runs 3DH and checks server_mac (AuthClientFinalize, §6.4.3). It returns
// KE3, session_key and export_key, the latter only once the server is
// authenticated (§6). A wrong password, a fake record or a modified KE2 fail
// with ErrAuthFailed. Empty identities default to the public keys.
func (st *ClientState) GenerateKE3(clientIdentity, serverIdentity []byte, ke2 *KE2) (ke3 *KE3, sessionKey, exportKey []byte, err error) {
	m, sessionKey, exportKey, err := st.st.GenerateKE3(clientIdentity, serverIdentity, ke2.m)
	if err != nil {
		return nil, nil, nil, err
	}
	return &KE3{m}, sessionKey, exportKey, nil
}
