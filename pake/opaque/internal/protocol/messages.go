package protocol

import (
	"bytes"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// The wire structures of RFC 9807 §5.1 and §6.1. Each is a fixed-size
// concatenation of fixed-size fields. A message is immutable: the protocol
// functions build it, Parse* decodes it from the wire (checking the exact
// length and that every group element is a valid point other than the
// identity, §10.7), Bytes encodes it. Parsed messages keep their decoded
// points; locally built ones decode them when needed.

// RegistrationRequest is blinded_message (§5.1).
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

// Bytes returns a copy of the wire encoding.
func (m *RegistrationRequest) Bytes() []byte { return bytes.Clone(m.b) }

// RegistrationResponse is evaluated_message || server_public_key (§5.1).
type RegistrationResponse struct {
	b                    []byte
	evaluated, serverKey *group.Point
}

// ParseRegistrationResponse decodes a RegistrationResponse.
func ParseRegistrationResponse(b []byte) (*RegistrationResponse, error) {
	c, p, err := parse("RegistrationResponse", b, RegistrationResponseSize, 0, Noe)
	if err != nil {
		return nil, err
	}
	return &RegistrationResponse{b: c, evaluated: p[0], serverKey: p[1]}, nil
}

// Bytes returns a copy of the wire encoding.
func (m *RegistrationResponse) Bytes() []byte { return bytes.Clone(m.b) }

// RegistrationRecord is client_public_key || masking_key || envelope
// (§5.1), envelope = envelope_nonce || auth_tag (§4.1.1).
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

// NewFakeRecord returns the fake record of §6.3.2.2: a random client
// public key (a random scalar times G), a random masking_key and an
// all-zero envelope.
func NewFakeRecord(rand io.Reader) (*RegistrationRecord, error) {
	rand = sysrand.Or(rand)
	sk, err := group.RandomScalar(rand)
	if err != nil {
		return nil, randomError(err)
	}
	pk := group.NewPoint().ScalarBaseMult(sk)
	b := append(pk.BytesCompressed(), make([]byte, Nh+EnvelopeSize)...)
	if _, err := io.ReadFull(rand, b[Npk:Npk+Nh]); err != nil {
		return nil, randomError(err)
	}
	return &RegistrationRecord{b: b, clientKey: pk}, nil
}

// Bytes returns a copy of the wire encoding.
func (m *RegistrationRecord) Bytes() []byte { return bytes.Clone(m.b) }

// ClientPublicKey, MaskingKey and Envelope return the record's fields.
func (m *RegistrationRecord) ClientPublicKey() []byte { return m.b[:Npk] }
func (m *RegistrationRecord) MaskingKey() []byte      { return m.b[Npk : Npk+Nh] }
func (m *RegistrationRecord) Envelope() []byte        { return m.b[Npk+Nh:] }

// KE1 is blinded_message || client_nonce || client_public_keyshare (§6.1).
type KE1 struct {
	b                 []byte
	blinded, keyshare *group.Point
}

// ParseKE1 decodes a KE1.
func ParseKE1(b []byte) (*KE1, error) {
	c, p, err := parse("KE1", b, KE1Size, 0, Noe+Nn)
	if err != nil {
		return nil, err
	}
	return &KE1{b: c, blinded: p[0], keyshare: p[1]}, nil
}

// Bytes returns a copy of the wire encoding.
func (m *KE1) Bytes() []byte { return bytes.Clone(m.b) }

// Offsets of the fields of KE2.
const (
	ke2MaskingNonce   = Noe
	ke2MaskedResponse = ke2MaskingNonce + Nn
	ke2ServerNonce    = ke2MaskedResponse + MaskedResponseSize
	ke2Keyshare       = ke2ServerNonce + Nn
	ke2ServerMAC      = ke2Keyshare + Npk
)

// KE2 is evaluated_message || masking_nonce || masked_response ||
// server_nonce || server_public_keyshare || server_mac (§6.1).
type KE2 struct {
	b                   []byte
	evaluated, keyshare *group.Point
}

// The masked server key inside KE2 is checked once unmasked and
// authenticated by the envelope.
func ParseKE2(b []byte) (*KE2, error) {
	c, p, err := parse("KE2", b, KE2Size, 0, ke2Keyshare)
	if err != nil {
		return nil, err
	}
	return &KE2{b: c, evaluated: p[0], keyshare: p[1]}, nil
}

// Bytes returns a copy of the wire encoding.
func (m *KE2) Bytes() []byte { return bytes.Clone(m.b) }

// KE3 is client_mac (§6.1).
type KE3 struct{ b []byte }

// ParseKE3 decodes a KE3.
func ParseKE3(b []byte) (*KE3, error) {
	c, _, err := parse("KE3", b, KE3Size)
	if err != nil {
		return nil, err
	}
	return &KE3{b: c}, nil
}

// Bytes returns a copy of the wire encoding.
func (m *KE3) Bytes() []byte { return bytes.Clone(m.b) }

// parse checks that b has exactly size bytes and decodes the group elements
// at the given offsets. It returns a copy of b and the points.
func parse(name string, b []byte, size int, elements ...int) ([]byte, []*group.Point, error) {
	if len(b) != size {
		return nil, nil, invalidMessage("%s of %d bytes, want %d", name, len(b), size)
	}
	points := make([]*group.Point, len(elements))
	for i, off := range elements {
		p, err := group.NewPoint().SetBytes(b[off : off+Noe])
		if err != nil {
			return nil, nil, invalidMessage("%s: element at byte %d: %v", name, off, err)
		}
		points[i] = p
	}
	return bytes.Clone(b), points, nil
}

// noMessage is the error for a nil message given to a protocol function.
func noMessage(name string) error { return invalidMessage("no %s (nil message)", name) }

// element returns a message's decoded point, or decodes enc for a message
// that was built locally rather than parsed.
func element(cached *group.Point, enc []byte) (*group.Point, error) {
	if cached != nil {
		return cached, nil
	}
	return oprf.DeserializeElement(enc)
}
