package opaque

import (
	"io"

	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
)

// Client runs the client side of registration and login. It is stateless
// and may be shared; each run keeps its state in a ClientRegistration or
// ClientState, which can be finished once. A Client must come from
// NewClient: the methods of a zero Client fail with ErrInvalidParameter.
type Client struct{ p *protocol.Client }

// NewClient returns a client for cfg.
func NewClient(cfg Config) (*Client, error) {
	c, err := protocol.NewClient(cfg.toProtocol())
	return wrap[Client](c, err)
}

// ClientRegistration is the client's state between CreateRegistrationRequest
// and FinalizeRegistrationRequest: the password and the OPRF blind.
type ClientRegistration struct{ p *protocol.ClientRegistration }

// CreateRegistrationRequest starts registration (§5.2.1): it blinds the
// password, reading the blind from rand (48 bytes, reduced mod n; nil
// means crypto/rand).
func (c *Client) CreateRegistrationRequest(rand io.Reader, password []byte) (*ClientRegistration, *RegistrationRequest, error) {
	st, req, err := inner(c).CreateRegistrationRequest(rand, password)
	if err != nil {
		return nil, nil, err
	}
	return &ClientRegistration{st}, &RegistrationRequest{req}, nil
}

// FinalizeRegistrationRequest finishes registration (§5.2.3): it unblinds
// the OPRF output, stretches it into randomized_password and creates the
// envelope (Store, §4.1.2), binding ids into it, reading envelope_nonce
// from rand (nil means crypto/rand). It returns the record to send to the
// server and export_key. Every login must use the same ids. A state
// finalizes once, even on error; after that, and for a zero
// ClientRegistration, it fails with ErrState.
func (st *ClientRegistration) FinalizeRegistrationRequest(rand io.Reader, response *RegistrationResponse, ids Identities) (*RegistrationRecord, []byte, error) {
	rec, exportKey, err := inner(st).FinalizeRegistrationRequest(rand, inner(response), protocol.Identities(ids))
	if err != nil {
		return nil, nil, err
	}
	return &RegistrationRecord{rec}, exportKey, nil
}

// ClientState is the client's state between GenerateKE1 and GenerateKE3
// (ClientState and ClientAkeState of §6, §6.4).
type ClientState struct{ p *protocol.ClientState }

// GenerateKE1 starts a login (§6.2.1): it blinds the password
// (CreateCredentialRequest) and derives an ephemeral key pair
// (AuthClientStart), reading from rand the blind (48 bytes, reduced mod n),
// client_nonce and client_keyshare_seed, in that order (nil means
// crypto/rand).
func (c *Client) GenerateKE1(rand io.Reader, password []byte) (*ClientState, *KE1, error) {
	st, ke1, err := inner(c).GenerateKE1(rand, password)
	if err != nil {
		return nil, nil, err
	}
	return &ClientState{st}, &KE1{ke1}, nil
}

// GenerateKE3 finishes the client's login (§6.2.3): it recovers the
// credentials from ke2 (RecoverCredentials, §6.3.2.3, and Recover, §4.1.3)
// with the identities of registration, runs 3DH and checks server_mac
// (AuthClientFinalize, §6.4.3). It returns KE3, session_key and export_key,
// the latter only once the server is authenticated (§6). A wrong password,
// other identities, a fake record or a modified KE2 fail with
// ErrAuthFailed. A state finishes once, even on error; after that, and for
// a zero ClientState, it fails with ErrState.
func (st *ClientState) GenerateKE3(ke2 *KE2, ids Identities) (ke3 *KE3, sessionKey, exportKey []byte, err error) {
	m, sessionKey, exportKey, err := inner(st).GenerateKE3(inner(ke2), protocol.Identities(ids))
	if err != nil {
		return nil, nil, nil, err
	}
	return &KE3{m}, sessionKey, exportKey, nil
}
