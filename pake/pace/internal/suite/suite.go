// Package suite holds the building blocks of PACE (ICAO Doc 9303-11 §4.4)
// for the cipher suite AES-CBC-CMAC-128 on the 256-bit curves P-256 and
// brainpoolP256r1: the key derivation function, the nonce encryption, the
// authentication tokens, the Integrated Mapping's pseudo-random function
// and point encoding, and the curve operations. Package pace runs the
// protocol on them; section numbers are those of Part 11.
package suite

import (
	"crypto/aes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/kexlab/kexlab/internal/cmac"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Sizes of the suite's keys, nonces, points and tokens.
const (
	// KeySize is the length of K_π, K_enc and K_mac (AES-128).
	KeySize = 16
	// NonceSize is the length of s, z and t: one AES block.
	NonceSize = aes.BlockSize
	// PointSize is the length of an uncompressed point.
	PointSize = 1 + 2*fieldSize
	// TokenSize is the length of an authentication token: AES-CMAC
	// truncated to 8 bytes.
	TokenSize = 8
)

// Counters of the key derivation function (§9.7.1).
const (
	CounterEnc = 1
	CounterMAC = 2
	CounterPi  = 3
)

// KDF returns KDF(K, c) = SHA-1(K ‖ c)[:16], c a 32-bit big-endian
// counter: ICAO's key derivation function (§9.7.1) for AES-128, for which
// the hash is SHA-1 (SHA-256 is specified for AES-192 and AES-256 only).
func KDF(k []byte, c uint32) []byte {
	h := sha1.New()
	h.Write(k)
	h.Write(binary.BigEndian.AppendUint32(nil, c))
	return h.Sum(nil)[:KeySize]
}

// EncryptNonce returns z = E(K_π, s), the chip's first step of §4.4: E is
// AES-128 in CBC mode with a zero IV, which for a single block is
// AES(K_π, s XOR 0) = AES(K_π, s).
func EncryptNonce(kpi, s []byte) ([]byte, error) {
	if len(s) != NonceSize {
		return nil, fmt.Errorf("%w: pace: nonce of %d bytes", pakeerr.ErrInvalidParameter, len(s))
	}
	b, err := aes.NewCipher(kpi)
	if err != nil {
		return nil, fmt.Errorf("%w: pace: K_pi: %v", pakeerr.ErrInvalidParameter, err)
	}
	z := make([]byte, NonceSize)
	b.Encrypt(z, s)
	return z, nil
}

// DecryptNonce returns s = D(K_π, z), the inverse of EncryptNonce.
func DecryptNonce(kpi, z []byte) ([]byte, error) {
	if len(z) != NonceSize {
		return nil, fmt.Errorf("%w: pace: encrypted nonce of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(z), NonceSize)
	}
	b, err := aes.NewCipher(kpi)
	if err != nil {
		return nil, fmt.Errorf("%w: pace: K_pi: %v", pakeerr.ErrInvalidParameter, err)
	}
	s := make([]byte, NonceSize)
	b.Decrypt(s, z)
	return s, nil
}

// PublicKeyDO returns the public key data object over which a token is
// computed (§9.4): tag 7F49 with the protocol OID (tag 06, oid being the
// OID's DER content) and the uncompressed public point (tag 86), with DER
// lengths:
//
//	7F49 L { 06 0A <OID> 86 41 04 ‖ x ‖ y }
func PublicKeyDO(oid, pk []byte) []byte {
	inner := make([]byte, 0, 4+len(oid)+len(pk))
	inner = appendTLV(inner, []byte{0x06}, oid)
	inner = appendTLV(inner, []byte{0x86}, pk)
	return appendTLV(make([]byte, 0, 4+len(inner)), []byte{0x7f, 0x49}, inner)
}

// appendTLV appends tag, the DER length of v (short or long form, up to
// 65535) and v.
func appendTLV(b, tag, v []byte) []byte {
	b = append(b, tag...)
	switch n := len(v); {
	case n < 0x80:
		b = append(b, byte(n))
	case n <= 0xff:
		b = append(b, 0x81, byte(n))
	default:
		b = append(b, 0x82, byte(n>>8), byte(n))
	}
	return append(b, v...)
}

// Token returns T = MAC(K_mac, PK) for a public key PK: AES-CMAC over
// PublicKeyDO(oid, PK), truncated to TokenSize bytes (§4.4.3.4).
func Token(kmac, oid, pk []byte) ([]byte, error) {
	t, err := cmac.Sum(kmac, PublicKeyDO(oid, pk))
	if err != nil {
		return nil, fmt.Errorf("%w: pace: K_mac: %v", pakeerr.ErrInvalidParameter, err)
	}
	return t[:TokenSize], nil
}

// The constants c0 and c1 of R for a 128-bit block cipher (§4.4.3.3.2).
var (
	imC0 = mustHex("a668892a7c41e3ca739f40b057d85904")
	imC1 = mustHex("a4e136ac725f738b01c1f60217c188ad")
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// PseudoRandom returns x = R(s, t) of §4.4.3.3.2 with AES-128 as the block
// cipher E(key, block), for 16-byte nonces s and t:
//
//	n = ⌈(⌈log2 p⌉ + 64) / 128⌉ (3 blocks for a 256-bit p)
//	k_0 = E(t, s)
//	for i = 0 … n-1: x_i = E(k_i, c_1), k_{i+1} = E(k_i, c_0)
//	x = x_0 ‖ … ‖ x_{n-1}
//
// R_p(s, t) is x mod p (Curve.Reduce).
func PseudoRandom(s, t []byte) ([]byte, error) {
	const n = (8*fieldSize + 64 + 127) / 128
	if len(s) != NonceSize || len(t) != NonceSize {
		return nil, fmt.Errorf("%w: pace: nonces of %d and %d bytes, want %d", pakeerr.ErrInvalidMessage, len(s), len(t), NonceSize)
	}
	k := make([]byte, aes.BlockSize)
	encryptBlock(k, t, s)
	x := make([]byte, n*aes.BlockSize)
	next := make([]byte, aes.BlockSize)
	for i := range n {
		encryptBlock(x[i*aes.BlockSize:(i+1)*aes.BlockSize], k, imC1)
		encryptBlock(next, k, imC0)
		copy(k, next)
	}
	clear(k)
	clear(next)
	return x, nil
}

// encryptBlock sets dst = AES-128(key, src) for one block; key and src
// have 16 bytes.
func encryptBlock(dst, key, src []byte) {
	b, err := aes.NewCipher(key)
	if err != nil {
		panic("pace: unreachable: 16-byte AES key rejected")
	}
	b.Encrypt(dst, src)
}
