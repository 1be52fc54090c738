package opaque

import (
	"io"

	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
)

// The wire structures of RFC 9807 §5.1 and §6.1. Each is a fixed-size
// concatenation of fixed-size fields. A message is immutable: the protocol
// functions build it, Parse* decodes it from the wire (checking the exact
// length and that every group element is a valid point other than the
// identity, §10.7), Bytes encodes it. Parse errors wrap ErrInvalidMessage.
// A nil or zero-value message encodes to nil and is refused where it is
// consumed (ErrInvalidMessage; a record, ErrInvalidParameter).

// RegistrationRequest is the client's first registration message (§5.1):
// blinded_message = SerializeElement(blind·HashToGroup(password)).
type RegistrationRequest struct{ p *protocol.RegistrationRequest }

// ParseRegistrationRequest decodes a RegistrationRequest.
func ParseRegistrationRequest(b []byte) (*RegistrationRequest, error) {
	m, err := protocol.ParseRegistrationRequest(b)
	return wrap[RegistrationRequest](m, err)
}

// Bytes returns the wire encoding (RegistrationRequestSize bytes).
func (m *RegistrationRequest) Bytes() []byte { return encode(m) }

// RegistrationResponse is the server's registration message (§5.1):
// evaluated_message = SerializeElement(oprf_key·blinded_element) ||
// server_public_key.
type RegistrationResponse struct {
	p *protocol.RegistrationResponse
}

// ParseRegistrationResponse decodes a RegistrationResponse.
func ParseRegistrationResponse(b []byte) (*RegistrationResponse, error) {
	m, err := protocol.ParseRegistrationResponse(b)
	return wrap[RegistrationResponse](m, err)
}

// Bytes returns the wire encoding (RegistrationResponseSize bytes).
func (m *RegistrationResponse) Bytes() []byte { return encode(m) }

// RegistrationRecord is the client's last registration message and what the
// server stores for it (§5.1): client_public_key || masking_key || Envelope,
// where Envelope (§4.1.1) is envelope_nonce || auth_tag.
type RegistrationRecord struct{ p *protocol.RegistrationRecord }

// ParseRegistrationRecord decodes a RegistrationRecord.
func ParseRegistrationRecord(b []byte) (*RegistrationRecord, error) {
	m, err := protocol.ParseRegistrationRecord(b)
	return wrap[RegistrationRecord](m, err)
}

// NewFakeRecord returns a record for a client that never registered
// (§6.3.2.2): a random client public key (a random scalar times the base
// point), a random masking_key and an all-zero envelope. A server answers
// requests for unknown credential identifiers with it, so that they cannot
// be told from requests for registered ones. Create it once and keep it.
// A nil rand means crypto/rand.
func NewFakeRecord(rand io.Reader) (*RegistrationRecord, error) {
	m, err := protocol.NewFakeRecord(rand)
	return wrap[RegistrationRecord](m, err)
}

// Bytes returns the wire encoding (RegistrationRecordSize bytes).
func (m *RegistrationRecord) Bytes() []byte { return encode(m) }

// KE1 is the client's first login message (§6.1): CredentialRequest
// (blinded_message) || AuthRequest (client_nonce || client_public_keyshare).
type KE1 struct{ p *protocol.KE1 }

// ParseKE1 decodes a KE1.
func ParseKE1(b []byte) (*KE1, error) {
	m, err := protocol.ParseKE1(b)
	return wrap[KE1](m, err)
}

// Bytes returns the wire encoding (KE1Size bytes).
func (m *KE1) Bytes() []byte { return encode(m) }

// KE2 is the server's login message (§6.1): CredentialResponse
// (evaluated_message || masking_nonce || masked_response) || AuthResponse
// (server_nonce || server_public_keyshare || server_mac). masked_response
// is (server_public_key || Envelope) XOR a pad derived from masking_key.
type KE2 struct{ p *protocol.KE2 }

// ParseKE2 decodes a KE2. The masked server key inside is checked later,
// once unmasked and authenticated by the envelope.
func ParseKE2(b []byte) (*KE2, error) {
	m, err := protocol.ParseKE2(b)
	return wrap[KE2](m, err)
}

// Bytes returns the wire encoding (KE2Size bytes).
func (m *KE2) Bytes() []byte { return encode(m) }

// KE3 is the client's last login message (§6.1): client_mac.
type KE3 struct{ p *protocol.KE3 }

// ParseKE3 decodes a KE3.
func ParseKE3(b []byte) (*KE3, error) {
	m, err := protocol.ParseKE3(b)
	return wrap[KE3](m, err)
}

// Bytes returns the wire encoding (KE3Size bytes).
func (m *KE3) Bytes() []byte { return encode(m) }

// Each public type with a protocol counterpart (the messages, Client,
// Server and the states) holds a pointer p to it: nil in a zero value,
// which the protocol functions refuse with a typed error.

// wrap returns the public value that holds p, or nil and err.
func wrap[W ~struct{ p *P }, P any](p *P, err error) (*W, error) {
	if err != nil {
		return nil, err
	}
	return &W{p}, nil
}

// inner returns the protocol value inside w: nil for a nil or zero-value w.
func inner[W ~struct{ p *P }, P any](w *W) *P {
	if w == nil {
		return nil
	}
	return struct{ p *P }(*w).p
}

// encode returns the wire encoding of the message inside w, nil for a nil
// or zero-value w.
func encode[W ~struct{ p *P }, P any, PP interface {
	*P
	Bytes() []byte
}](w *W) []byte {
	if p := inner(w); p != nil {
		return PP(p).Bytes()
	}
	return nil
}
