// Package ake implements the 3DH authenticated key exchange of RFC 9807
// §6.4 for OPAQUE's P-256/SHA-256 configuration (§7): the P-256
// Diffie-Hellman functions (§6.4.1), the key schedule (Expand-Label,
// Preamble and DeriveKeys, §6.4.2) and the MACs of AuthServerRespond and
// AuthClientFinalize (§6.4.3, §6.4.4), with the HKDF-SHA-256 and
// HMAC-SHA-256 primitives they use.
//
// It holds no state and parses no messages: package opaque decodes the
// wire, orders the inputs and keeps each party's state.
package ake

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Nx is the output length of HKDF-Extract and of Expand-Label (§7).
const Nx = sha256.Size

// Extract is HKDF-Extract(salt = "", ikm) with SHA-256.
func Extract(ikm []byte) []byte {
	prk, err := hkdf.Extract(sha256.New, ikm, nil)
	if err != nil {
		panic("ake: unreachable: " + err.Error())
	}
	return prk
}

// Expand is HKDF-Expand(prk, info, n) with SHA-256. Callers pass a 32-byte
// prk and n of at most 255·32, so it cannot fail.
func Expand(prk, info []byte, n int) []byte {
	out, err := hkdf.Expand(sha256.New, prk, string(info), n)
	if err != nil {
		panic("ake: unreachable: " + err.Error())
	}
	return out
}

// ExpandLabel is Expand-Label(secret, label, context, Nx) (§6.4.2): Expand
// with the CustomLabel encoding of RFC 8446 §3.4 and the "OPAQUE-" prefix,
// I2OSP(Nx, 2) || I2OSP(len, 1) || "OPAQUE-" || label || I2OSP(len, 1) ||
// context. label and context are shorter than 249 and 256 bytes.
func ExpandLabel(secret []byte, label string, context []byte) []byte {
	info := binary.BigEndian.AppendUint16(nil, Nx)
	info = append(info, byte(len("OPAQUE-")+len(label)))
	info = append(append(info, "OPAQUE-"...), label...)
	info = append(append(info, byte(len(context))), context...)
	return Expand(secret, info, Nx)
}

// MAC is HMAC-SHA-256(key, msg).
func MAC(key, msg []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	return h.Sum(nil)
}

// AppendPrefixed appends I2OSP(len(b), 2) || b. Callers have checked that
// len(b) < 2^16.
func AppendPrefixed(dst, b []byte) []byte {
	return append(binary.BigEndian.AppendUint16(dst, uint16(len(b))), b...)
}

// infoDHKey is the info of DeriveDiffieHellmanKeyPair (§6.4.1).
var infoDHKey = []byte("OPAQUE-DeriveDiffieHellmanKeyPair")

// DeriveDiffieHellmanKeyPair is DeriveDiffieHellmanKeyPair(seed) of §6.4.1
// for P-256: the private key is the OPRF's DeriveKeyPair(seed,
// "OPAQUE-DeriveDiffieHellmanKeyPair") (RFC 9497 §3.2.1) and the public key
// SerializeElement(sk·G). The public key is computed only when withPublic
// is set, sparing a base-point multiplication where it is not needed.
func DeriveDiffieHellmanKeyPair(seed []byte, withPublic bool) (sk *group.Scalar, pk []byte, err error) {
	sk, err = oprf.DeriveKeyPair(seed, infoDHKey)
	if err != nil || !withPublic {
		return sk, nil, err
	}
	return sk, PublicKey(sk), nil
}

// ParsePrivateKey is DeserializeScalar (RFC 9497 §4.3) of a private key
// (§6.4.1): exactly 32 bytes, big-endian, in [1, n-1]. Anything else fails
// with ErrInvalidParameter.
func ParsePrivateKey(b []byte) (*group.Scalar, error) {
	sk, err := group.NewScalar().SetCanonicalBytes(b)
	if err != nil || sk.IsZero() == 1 {
		return nil, fmt.Errorf("%w: opaque: invalid private key (want %d bytes, big-endian, in [1, n-1])", pakeerr.ErrInvalidParameter, group.ScalarSize)
	}
	return sk, nil
}

// PublicKey returns SerializeElement(sk·G), the public key of sk: the
// compressed SEC 1 point (RFC 9497 §4.3).
func PublicKey(sk *group.Scalar) []byte { return group.NewPoint().ScalarBaseMult(sk).BytesCompressed() }

// DiffieHellman is DiffieHellman(k, B) (§6.4.1): SerializeElement(k·B). B
// is a valid point other than the identity and k is non-zero, so in a
// prime-order group the result is never the identity; the check guards the
// invariant (§10.7).
func DiffieHellman(k *group.Scalar, b *group.Point) ([]byte, error) {
	p := group.NewPoint().ScalarMult(k, b)
	if p.IsIdentity() == 1 {
		return nil, fmt.Errorf("%w: opaque: Diffie-Hellman result is the identity", pakeerr.ErrInvalidMessage)
	}
	return p.BytesCompressed(), nil
}

// TripleDH returns the 3DH input keying material dh1 || dh2 || dh3, where
// dhi = DiffieHellman(k[i], b[i]) (§6.4.3, §6.4.4). The client passes
// (client_secret, server_public_keyshare), (client_secret,
// server_public_key), (client_private_key, server_public_keyshare); the
// server (server_secret, client_public_keyshare), (server_private_key,
// client_public_keyshare), (server_secret, client_public_key).
func TripleDH(k [3]*group.Scalar, b [3]*group.Point) ([]byte, error) {
	ikm := make([]byte, 0, 3*group.CompressedPointSize)
	for i := range k {
		dh, err := DiffieHellman(k[i], b[i])
		if err != nil {
			return nil, err
		}
		ikm = append(ikm, dh...)
	}
	return ikm, nil
}

// KeySchedule implements Preamble and DeriveKeys (§6.4.2) and computes the
// two MACs of AuthServerRespond and AuthClientFinalize (§6.4.3, §6.4.4).
// The preamble is
//
//	"OPAQUEv1-" || I2OSP(len(context), 2) || context ||
//	I2OSP(len(client_identity), 2) || client_identity || ke1 ||
//	I2OSP(len(server_identity), 2) || server_identity ||
//	credential_response || server_nonce || server_public_keyshare
//
// where ke2NoMAC is credential_response || server_nonce ||
// server_public_keyshare, and ikm is TripleDH's output. With
// prk = Extract(ikm) and preamble_hash = SHA-256(preamble):
// handshake_secret = Expand-Label(prk, "HandshakeSecret", preamble_hash),
// session_key = Expand-Label(prk, "SessionKey", preamble_hash),
// server_mac = MAC(Expand-Label(handshake_secret, "ServerMAC", ""),
// preamble_hash) and client_mac = MAC(Expand-Label(handshake_secret,
// "ClientMAC", ""), SHA-256(preamble || server_mac)). Identities and
// context are shorter than 2^16 bytes.
func KeySchedule(context, clientIdentity, ke1, serverIdentity, ke2NoMAC, ikm []byte) (serverMAC, clientMAC, sessionKey []byte) {
	h := sha256.New()
	h.Write([]byte("OPAQUEv1-"))
	h.Write(AppendPrefixed(nil, context))
	h.Write(AppendPrefixed(nil, clientIdentity))
	h.Write(ke1)
	h.Write(AppendPrefixed(nil, serverIdentity))
	h.Write(ke2NoMAC)
	preambleHash := h.Sum(nil)

	prk := Extract(ikm)
	handshakeSecret := ExpandLabel(prk, "HandshakeSecret", preambleHash)
	sessionKey = ExpandLabel(prk, "SessionKey", preambleHash)
	km2 := ExpandLabel(handshakeSecret, "ServerMAC", nil)
	km3 := ExpandLabel(handshakeSecret, "ClientMAC", nil)

	serverMAC = MAC(km2, preambleHash)
	h.Write(serverMAC) // SHA-256(preamble || server_mac)
	clientMAC = MAC(km3, h.Sum(nil))
	return serverMAC, clientMAC, sessionKey
}
