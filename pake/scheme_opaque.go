package pake

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/pake/opaque"
)

func init() { register(opaqueScheme{}) }

// opaqueScheme adapts package opaque (RFC 9807, OPAQUE-3DH with OPRF
// P256-SHA256, HKDF-SHA-256, HMAC-SHA-256, SHA-256, P-256) to Scheme.
//
// The client stretches the OPRF output with scrypt (N=32768, r=8, p=1, the
// RFC 9807 §7 recommendation), at registration and at every login. Register
// runs the whole registration in-process and gives each record its own
// server key pair and oprf_seed; the credential identifier is ClientID. The
// record is opaque.StoredRecord: server_private_key (32) ||
// server_public_key (33) || oprf_seed (32) || RegistrationRecord (129) ||
// credential_identifier (len(ClientID)). Empty identities default to the
// public keys, as RFC 9807 §4 says. Login is KE1, KE2, KE3.
type opaqueScheme struct{}

func (opaqueScheme) Info() Info {
	return Info{
		Name:            "opaque",
		Suite:           "OPAQUE-3DH P256-SHA256",
		Spec:            "RFC 9807",
		Augmented:       true,
		KeyConfirmation: true,
		Uses:            []string{"ClientID", "ServerID", "Context"},
		// Points are compressed on the wire and there is no IV, so the
		// study's accounting is the standard one.
		Messages: []Message{
			{Name: "KE1", From: Client, Size: opaque.KE1Size, StudySize: opaque.KE1Size},
			{Name: "KE2", From: Server, Size: opaque.KE2Size, StudySize: opaque.KE2Size},
			{Name: "KE3", From: Client, Size: opaque.KE3Size, StudySize: opaque.KE3Size},
		},
	}
}

func opaqueConfig(c Credentials) opaque.Config {
	return opaque.Config{Context: c.Context, KSF: opaque.Scrypt}
}

// opaqueIdentities maps ClientID and ServerID to client_identity and
// server_identity; empty ones default to the public keys (RFC 9807 §4).
func opaqueIdentities(c Credentials) opaque.Identities {
	return opaque.Identities{Client: c.ClientID, Server: c.ServerID}
}

func (opaqueScheme) Register(rand io.Reader, c Credentials) ([]byte, error) {
	if len(c.Password) == 0 {
		return nil, fmt.Errorf("%w: empty password", ErrInvalidParameter)
	}
	keys, err := opaque.GenerateServerKeys(rand)
	if err != nil {
		return nil, err
	}
	server, err := opaque.NewServer(opaqueConfig(c), keys)
	if err != nil {
		return nil, err
	}
	client, err := opaque.NewClient(opaqueConfig(c))
	if err != nil {
		return nil, err
	}
	reg, request, err := client.CreateRegistrationRequest(rand, c.Password)
	if err != nil {
		return nil, err
	}
	response, err := server.CreateRegistrationResponse(request, c.ClientID)
	if err != nil {
		return nil, err
	}
	record, _, err := reg.FinalizeRegistrationRequest(rand, response, opaqueIdentities(c))
	if err != nil {
		return nil, err
	}
	return (&opaque.StoredRecord{Keys: *keys, Record: record, CredentialIdentifier: c.ClientID}).Bytes(), nil
}

func (opaqueScheme) NewClient(rand io.Reader, c Credentials) (Party, error) {
	if len(c.Password) == 0 {
		return nil, fmt.Errorf("%w: empty password", ErrInvalidParameter)
	}
	return opaque.NewClientParty(rand, opaqueConfig(c), c.Password, opaqueIdentities(c))
}

func (opaqueScheme) NewServer(rand io.Reader, c Credentials, record []byte) (Party, error) {
	r, err := opaque.ParseStoredRecord(record)
	if err != nil {
		return nil, err
	}
	server, err := opaque.NewServer(opaqueConfig(c), &r.Keys)
	if err != nil {
		return nil, err
	}
	return opaque.NewServerParty(rand, server, r.Record, r.CredentialIdentifier, opaqueIdentities(c))
}

func (opaqueScheme) KnownAnswerTests() []KnownAnswer { return opaque.KnownAnswerTests() }

// Floor returns opaque.Unavoidable with the KSF of the scheme's
// configuration (pake.Floorer): the client stretches at every login.
func (opaqueScheme) Floor(rand io.Reader) (*Floor, error) {
	f, err := opaque.Unavoidable(rand, opaqueConfig(Credentials{}).KSF)
	if err != nil {
		return nil, err
	}
	return f, nil
}
