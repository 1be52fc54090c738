package opaque

import (
	"bytes"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
)

// The wire structures of RFC 9807 §5.1 and §6.1. Each is a fixed-size
// concatenation of fixed-size fields. A message is immutable: the protocol
// functions build it, Parse* decodes it from the wire (checking the exact
// length and that every group element is a valid point other than the
// identity), Bytes encodes it. Parsed messages keep their decoded points.

// RegistrationRequest is the client's first registration message (§5.1):
// blinded_message = SerializeElement(blind·HashToGroup(password)).
type RegistrationRequest struct {
	b       []byte
	blinded *group.Point
}

// ParseRegistrationRequest decodes a RegistrationRequest.
func ParseRegistrationRequest(b []byte) (*RegistrationRequest, error) {
	c, p, err := parse("RegistrationRequest", b, RegistrationRequestSize, 0)
	if err != nil {
		return nil, err
	}
	return &RegistrationRequest{b: c, blinded: p[0]}, nil
}

// Bytes returns the wire encoding (RegistrationRequestSize bytes).
func (m *RegistrationRequest) Bytes() []byte { return bytes.Clone(m.b) }

// RegistrationResponse is the server's registration message (§5.1):
// evaluated_message = SerializeElement(oprf_key·blinded_element) ||
// server_public_key.
type RegistrationResponse struct {
	b                    []byte
	evaluated, serverKey *group.Point
}

// ParseRegistrationResponse decodes a RegistrationResponse.
func ParseRegistrationResponse(b []byte) (*RegistrationResponse, error) {
	c, p, err := parse("RegistrationResponse", b, RegistrationResponseSize, 0, noe)
	if err != nil {
		return nil, err
	}
	return &RegistrationResponse{b: c, evaluated: p[0], serverKey: p[1]}, nil
}

// Bytes returns the wire encoding (RegistrationResponseSize bytes).
func (m *RegistrationResponse) Bytes() []byte { return bytes.Clone(m.b) }

// RegistrationRecord is the client's last registration message and what the
// server stores for it (§5.1): client_public_key || masking_key || Envelope,
// where Envelope (§4.1.1) is envelope_nonce || auth_tag.
type RegistrationRecord struct {
	b         []byte
	clientKey *group.Point
}

// ParseRegistrationRecord decodes a RegistrationRecord.
func ParseRegistrationRecord(b []byte) (*RegistrationRecord, error) {
	c, p, err := parse("RegistrationRecord", b, RegistrationRecordSize, 0)
	if err != nil {
		return nil, err
	}
	return &RegistrationRecord{b: c, clientKey: p[0]}, nil
}

// NewFakeRecord returns a record for a client that never registered
// (§6.3.2.2): a random client public key (a random scalar times the base
// point), a random masking_key and an all-zero envelope. A server answers
// requests for unknown credential identifiers with it, so that they cannot
// be told from requests for registered ones. Create it once and keep it.
func NewFakeRecord(rand io.Reader) (*RegistrationRecord, error) {
	sk, err := group.RandomScalar(rand)
	if err != nil {
		return nil, randomError(err)
	}
	pk := group.NewPoint().ScalarBaseMult(sk)
	b := append(pk.BytesCompressed(), make([]byte, nh+envelopeSize)...)
	if _, err := io.ReadFull(rand, b[npk:npk+nh]); err != nil {
		return nil, randomError(err)
	}
	return &RegistrationRecord{b: b, clientKey: pk}, nil
}

// Bytes returns the wire encoding (RegistrationRecordSize bytes).
func (m *RegistrationRecord) Bytes() []byte { return bytes.Clone(m.b) }

func (m *RegistrationRecord) clientPublicKey() []byte { return m.b[:npk] }
func (m *RegistrationRecord) maskingKey() []byte      { return m.b[npk : npk+nh] }
func (m *RegistrationRecord) envelope() []byte        { return m.b[npk+nh:] }

// KE1 is the client's first login message (§6.1): CredentialRequest
// (blinded_message) || AuthRequest (client_nonce || client_public_keyshare).
type KE1 struct {
	b                 []byte
	blinded, keyshare *group.Point
}

// ParseKE1 decodes a KE1.
func ParseKE1(b []byte) (*KE1, error) {
	c, p, err := parse("KE1", b, KE1Size, 0, noe+nn)
	if err != nil {
		return nil, err
	}
	return &KE1{b: c, blinded: p[0], keyshare: p[1]}, nil
}

// Bytes returns the wire encoding (KE1Size bytes).
func (m *KE1) Bytes() []byte { return bytes.Clone(m.b) }

// Offsets of the fields of KE2.
const (
	ke2MaskingNonce   = noe
	ke2MaskedResponse = ke2MaskingNonce + nn
	ke2ServerNonce    = ke2MaskedResponse + maskedResponseSize
	ke2Keyshare       = ke2ServerNonce + nn
	ke2ServerMAC      = ke2Keyshare + npk
)

// KE2 is the server's login message (§6.1): CredentialResponse
// (evaluated_message || masking_nonce || masked_response) || AuthResponse
// (server_nonce || server_public_keyshare || server_mac). masked_response
// is (server_public_key || Envelope) XOR a pad derived from masking_key.
type KE2 struct {
	b                   []byte
	evaluated, keyshare *group.Point
}

// ParseKE2 decodes a KE2. The masked server key inside is checked later,
// once unmasked and authenticated by the envelope.
func ParseKE2(b []byte) (*KE2, error) {
	c, p, err := parse("KE2", b, KE2Size, 0, ke2Keyshare)
	if err != nil {
		return nil, err
	}
	return &KE2{b: c, evaluated: p[0], keyshare: p[1]}, nil
}

// Bytes returns the wire encoding (KE2Size bytes).
func (m *KE2) Bytes() []byte { return bytes.Clone(m.b) }

// KE3 is the client's last login message (§6.1): client_mac.
type KE3 struct{ b []byte }

// ParseKE3 decodes a KE3.
func ParseKE3(b []byte) (*KE3, error) {
	c, _, err := parse("KE3", b, KE3Size)
	if err != nil {
		return nil, err
	}
	return &KE3{b: c}, nil
}

// Bytes returns the wire encoding (KE3Size bytes).
func (m *KE3) Bytes() []byte { return bytes.Clone(m.b) }

// parse checks that b has exactly size bytes and decodes the group elements
// at the given offsets. It returns a copy of b and the points.
func parse(name string, b []byte, size int, elements ...int) ([]byte, []*group.Point, error) {
	if len(b) != size {
		return nil, nil, invalidMessage("%s of %d bytes, want %d", name, len(b), size)
	}
	points := make([]*group.Point, len(elements))
	for i, off := range elements {
		p, err := group.NewPoint().SetBytes(b[off : off+noe])
		if err != nil {
			return nil, nil, invalidMessage("%s: element at byte %d: %v", name, off, err)
		}
		points[i] = p
	}
	return bytes.Clone(b), points, nil
}

// element returns a message's decoded point, or decodes enc for a message
// that was built locally rather than parsed.
func element(cached *group.Point, enc []byte) (*group.Point, error) {
	if cached != nil {
		return cached, nil
	}
	return oprf.DeserializeElement(enc)
}
