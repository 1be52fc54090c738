package opaque

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"

	"filippo.io/bigmod"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// The OPRF of RFC 9497 with suite P256-SHA256 in modeOPRF (0x00), and the
// P-256 Diffie-Hellman functions of RFC 9807 §6.4.1 built on it.

// contextString is "OPRFV1-" || I2OSP(modeOPRF, 1) || "-" || "P256-SHA256"
// (RFC 9497 §3.1).
const contextString = "OPRFV1-\x00-P256-SHA256"

var (
	dstHashToGroup   = []byte("HashToGroup-" + contextString)
	dstDeriveKeyPair = []byte("DeriveKeyPair" + contextString)
)

// Info strings of RFC 9807 §5.2.2 and §6.4.1.
const (
	infoOPRFKey = "OPAQUE-DeriveKeyPair"
	infoDHKey   = "OPAQUE-DeriveDiffieHellmanKeyPair"
)

// deriveKeyPair is DeriveKeyPair(seed, info) of RFC 9497 §3.2.1, returning
// the private key only: HashToScalar(seed || I2OSP(len(info), 2) || info ||
// I2OSP(counter, 1)) with DST "DeriveKeyPair" || contextString, where
// HashToScalar is hash_to_field with expand_message_xmd(SHA-256) and
// L = 48 (RFC 9497 §4.3). The loop only repeats on a zero scalar
// (probability 2^-256).
func deriveKeyPair(seed []byte, info string) (*group.Scalar, error) {
	in := append([]byte(nil), seed...)
	in = binary.BigEndian.AppendUint16(in, uint16(len(info)))
	in = append(append(in, info...), 0)
	for counter := 0; counter < 256; counter++ {
		in[len(in)-1] = byte(counter)
		u, err := group.ExpandMessageXMD(in, dstDeriveKeyPair, 48)
		if err != nil {
			return nil, err
		}
		sk := group.NewScalar().SetReducedBytes(u)
		if sk.IsZero() == 0 {
			return sk, nil
		}
	}
	return nil, fmt.Errorf("%w: opaque: DeriveKeyPairError", pakeerr.ErrInvalidParameter)
}

// deriveDiffieHellmanKeyPair is DeriveDiffieHellmanKeyPair(seed) of RFC 9807
// §6.4.1 for P-256. It returns the public key only when withPublic is set,
// sparing a base-point multiplication where it is not needed.
func deriveDiffieHellmanKeyPair(seed []byte, withPublic bool) (sk *group.Scalar, pk []byte, err error) {
	sk, err = deriveKeyPair(seed, infoDHKey)
	if err != nil || !withPublic {
		return sk, nil, err
	}
	return sk, group.NewPoint().ScalarBaseMult(sk).BytesCompressed(), nil
}

// oprfKey derives the per-credential OPRF key (§5.2.2):
// DeriveKeyPair(Expand(oprf_seed, credential_identifier || "OprfKey", Nok),
// "OPAQUE-DeriveKeyPair").
func oprfKey(oprfSeed, credentialIdentifier []byte) (*group.Scalar, error) {
	info := append(append([]byte(nil), credentialIdentifier...), "OprfKey"...)
	return deriveKeyPair(expand(oprfSeed, info, nok), infoOPRFKey)
}

// deserializeElement is DeserializeElement (RFC 9497 §4.3): a compressed
// SEC 1 point, on the curve, not the identity.
func deserializeElement(b []byte) (*group.Point, error) {
	if len(b) != group.CompressedPointSize {
		return nil, invalidMessage("element of %d bytes", len(b))
	}
	p, err := group.NewPoint().SetBytes(b)
	if err != nil {
		return nil, invalidMessage("%v", err)
	}
	return p, nil
}

// diffieHellman is DiffieHellman(k, B) (§6.4.1): SerializeElement(k·B). B
// is a valid non-identity point and k is non-zero, so in a prime-order group
// the result is never the identity; the check guards the invariant (§10.7).
func diffieHellman(k *group.Scalar, b *group.Point) ([]byte, error) {
	p := group.NewPoint().ScalarMult(k, b)
	if p.IsIdentity() == 1 {
		return nil, invalidMessage("Diffie-Hellman result is the identity")
	}
	return p.BytesCompressed(), nil
}

// blind is Blind(input) (RFC 9497 §3.3.1): blind = RandomScalar(),
// blinded_element = blind·HashToGroup(input).
func blind(rand io.Reader, password []byte) (*group.Scalar, []byte, error) {
	if len(password) > maxLen {
		return nil, nil, fmt.Errorf("%w: opaque: password of %d bytes", pakeerr.ErrInvalidParameter, len(password))
	}
	p, err := group.HashToCurve(password, dstHashToGroup)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: opaque: HashToGroup: %v", pakeerr.ErrInvalidParameter, err)
	}
	if p.IsIdentity() == 1 {
		return nil, nil, fmt.Errorf("%w: opaque: InvalidInputError", pakeerr.ErrInvalidParameter)
	}
	r, err := group.RandomScalar(rand)
	if err != nil {
		return nil, nil, randomError(err)
	}
	return r, group.NewPoint().ScalarMult(r, p).BytesCompressed(), nil
}

// finalize is Finalize(input, blind, evaluated_element) (RFC 9497 §3.3.1):
// Hash(len || input || len || SerializeElement(blind^-1·Z) || "Finalize").
func finalize(password []byte, blind *group.Scalar, z *group.Point) []byte {
	n := group.NewPoint().ScalarMult(invert(blind), z).BytesCompressed()
	h := sha256.New()
	h.Write(appendPrefixed(nil, password))
	h.Write(appendPrefixed(nil, n))
	h.Write([]byte("Finalize"))
	return h.Sum(nil)
}

// The order n of P-256 and n - 2, for inversion by Fermat's little theorem.
var (
	orderN = func() *bigmod.Modulus {
		m, err := bigmod.NewModulus(orderBytes[:])
		if err != nil {
			panic(err)
		}
		return m
	}()
	orderBytes = [32]byte{
		0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
	}
	orderMinus2 = func() []byte {
		e := orderBytes
		e[31] -= 2 // the low byte is 0x51: no borrow
		return e[:]
	}()
)

// invert returns s^-1 mod n as s^(n-2), a constant-time exponentiation with
// a public exponent (internal/group has no inversion; bigmod has Exp).
func invert(s *group.Scalar) *group.Scalar {
	x, err := bigmod.NewNat().SetBytes(s.Bytes(), orderN)
	if err != nil {
		panic("opaque: unreachable: " + err.Error())
	}
	inv, err := group.NewScalar().SetCanonicalBytes(bigmod.NewNat().Exp(x, orderMinus2, orderN).Bytes(orderN))
	if err != nil {
		panic("opaque: unreachable: " + err.Error())
	}
	return inv
}
