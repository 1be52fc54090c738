// Package envelope implements OPAQUE's credential storage for the
// P-256/SHA-256 configuration of RFC 9807 §7: the envelope (Store and
// Recover, §4.1.2 and §4.1.3, with CleartextCredentials of §4) and the
// masking of the credential response (§6.3.2.2, §6.3.2.3).
//
// The envelope is envelope_nonce || auth_tag. It stores nothing secret:
// the client's key pair is re-derived from randomized_password and the
// nonce, and auth_tag binds it to the server's public key and both
// identities. Package opaque handles randomness, messages and state.
package envelope

import (
	"crypto/hmac"
	"fmt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque/internal/ake"
)

// Sizes in bytes (RFC 9807 §2, §4.1, §7).
const (
	NonceSize = 32                        // Nn: envelope_nonce, masking_nonce
	seedSize  = 32                        // Nseed: the client's key pair seed
	keySize   = 32                        // Nh: masking_key, auth_key, export_key
	pkSize    = group.CompressedPointSize // Npk: a serialized public key
	Size      = NonceSize + keySize       // Nn + Nm: an envelope
	Masked    = pkSize + Size             // masked_response
)

// MaskingKey derives masking_key = Expand(randomized_password,
// "MaskingKey", Nh) (§5.2.3, §6.3.2.3).
func MaskingKey(rwd []byte) []byte { return ake.Expand(rwd, []byte("MaskingKey"), keySize) }

// Keys derives auth_key, export_key and the client's key pair seed from
// randomized_password and envelope_nonce: Expand(randomized_password,
// envelope_nonce || label, n) with the labels "AuthKey", "ExportKey" and
// "PrivateKey" (§4.1.2, §4.1.3).
func Keys(rwd, nonce []byte) (authKey, exportKey, seed []byte) {
	info := func(label string) []byte { return append(append([]byte(nil), nonce...), label...) }
	return ake.Expand(rwd, info("AuthKey"), keySize), ake.Expand(rwd, info("ExportKey"), keySize), ake.Expand(rwd, info("PrivateKey"), seedSize)
}

// CleartextCredentials serializes CleartextCredentials (§4):
// server_public_key || I2OSP(len, 2) || server_identity || I2OSP(len, 2)
// || client_identity, with each identity defaulted already.
func CleartextCredentials(serverPublicKey, serverIdentity, clientIdentity []byte) []byte {
	b := append([]byte(nil), serverPublicKey...)
	b = ake.AppendPrefixed(b, serverIdentity)
	return ake.AppendPrefixed(b, clientIdentity)
}

// DefaultIdentity returns id, or publicKey when id is empty (§4: an
// identity that is not specified is the party's public key).
func DefaultIdentity(id, publicKey []byte) []byte {
	if len(id) == 0 {
		return publicKey
	}
	return id
}

// Store is Store (§4.1.2) with a given envelope_nonce: it derives the
// client's key pair and returns envelope = envelope_nonce || auth_tag,
// where auth_tag = MAC(auth_key, envelope_nonce || CleartextCredentials),
// with client_public_key and export_key. Identities are shorter than 2^16
// bytes; empty ones default to the public keys.
func Store(rwd, nonce, serverPublicKey, serverIdentity, clientIdentity []byte) (envelope, clientPublicKey, exportKey []byte, err error) {
	authKey, exportKey, seed := Keys(rwd, nonce)
	_, clientPublicKey, err = ake.DeriveDiffieHellmanKeyPair(seed, true)
	if err != nil {
		return nil, nil, nil, err
	}
	creds := CleartextCredentials(serverPublicKey, DefaultIdentity(serverIdentity, serverPublicKey), DefaultIdentity(clientIdentity, clientPublicKey))
	authTag := ake.MAC(authKey, append(append([]byte(nil), nonce...), creds...))
	return append(append([]byte(nil), nonce...), authTag...), clientPublicKey, exportKey, nil
}

// Recovered is what Recover returns: the client's private key, export_key
// and the identities as bound into the envelope (defaulted to the public
// keys where empty), which the key schedule needs.
type Recovered struct {
	ServerPublicKey  *group.Point // set by RecoverCredentials only
	ClientPrivateKey *group.Scalar
	ExportKey        []byte
	ClientIdentity   []byte
	ServerIdentity   []byte
}

// Recover is Recover (§4.1.3): it re-derives the client's key pair from
// randomized_password and the envelope's nonce and checks auth_tag against
// the given server public key and identities in constant time. A wrong
// password or a tampered envelope fails with ErrAuthFailed. The client's
// public key is derived only if clientIdentity is empty, as it is needed
// only as the default identity.
func Recover(rwd, serverPublicKey, envelope, serverIdentity, clientIdentity []byte) (*Recovered, error) {
	if len(envelope) != Size {
		return nil, fmt.Errorf("%w: opaque: envelope of %d bytes", pakeerr.ErrInvalidMessage, len(envelope))
	}
	nonce, authTag := envelope[:NonceSize], envelope[NonceSize:]
	authKey, exportKey, seed := Keys(rwd, nonce)
	sk, pk, err := ake.DeriveDiffieHellmanKeyPair(seed, len(clientIdentity) == 0)
	if err != nil {
		return nil, err
	}
	r := &Recovered{ClientPrivateKey: sk, ExportKey: exportKey,
		ClientIdentity: DefaultIdentity(clientIdentity, pk), ServerIdentity: DefaultIdentity(serverIdentity, serverPublicKey)}
	creds := CleartextCredentials(serverPublicKey, r.ServerIdentity, r.ClientIdentity)
	if !hmac.Equal(authTag, ake.MAC(authKey, append(append([]byte(nil), nonce...), creds...))) {
		return nil, fmt.Errorf("%w: opaque: envelope recovery failed", pakeerr.ErrAuthFailed)
	}
	return r, nil
}

// Mask returns in XOR Expand(masking_key, masking_nonce ||
// "CredentialResponsePad", len(in)): the server masks server_public_key ||
// envelope with it (§6.3.2.2) and the client unmasks masked_response
// (§6.3.2.3). in is Masked bytes.
func Mask(maskingKey, maskingNonce, in []byte) []byte {
	info := append(append([]byte(nil), maskingNonce...), "CredentialResponsePad"...)
	out := ake.Expand(maskingKey, info, len(in))
	for i := range out {
		out[i] ^= in[i]
	}
	return out
}

// RecoverCredentials is the unmasking and recovery of RecoverCredentials
// (§6.3.2.3): it unmasks server_public_key || envelope from masked_response
// (Mask), runs Recover and decodes the authenticated server_public_key.
func RecoverCredentials(rwd, maskingNonce, maskedResponse, serverIdentity, clientIdentity []byte) (*Recovered, error) {
	unmasked := Mask(MaskingKey(rwd), maskingNonce, maskedResponse)
	r, err := Recover(rwd, unmasked[:pkSize], unmasked[pkSize:], serverIdentity, clientIdentity)
	if err != nil {
		return nil, err
	}
	if r.ServerPublicKey, err = oprf.DeserializeElement(unmasked[:pkSize]); err != nil {
		return nil, err
	}
	return r, nil
}
