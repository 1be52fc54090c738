package ocake

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"
)

// Sizes of the building blocks.
const (
	publicKeySize    = mlkem512.PublicKeySize         // 800
	ciphertextSize   = mlkem512.CiphertextSize        // 768
	sharedKeySize    = mlkem512.SharedKeySize         // 32
	keySeedSize      = mlkem512.KeySeedSize           // 64: d ‖ z
	encapsSeedSize   = mlkem512.EncapsulationSeedSize // 32: m
	encKeySize       = 16                             // AES-128
	ivSize           = aes.BlockSize                  // 16
	paddedKeySize    = publicKeySize + aes.BlockSize  // 816: a whole padding block
	encryptedKeySize = paddedKeySize                  // CBC does not expand
	hashLabelPrefix  = "kexlab OCAKE ML-KEM-512 v1 "  // domain of transcriptHash
	lengthPrefixSize = 8                              // big-endian, before every input
)

// transcriptHash returns SHA-256(lp(prefix ‖ label) ‖ lp(x1) ‖ … ‖ lp(xn)),
// where lp(x) is x preceded by its length as 8 big-endian bytes: the
// random oracles H, H1, H2 of the paper, separated by label. The prefixes
// make the encoding injective.
func transcriptHash(label string, inputs ...[]byte) [sha256.Size]byte {
	h := sha256.New()
	var n [lengthPrefixSize]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(hashLabelPrefix)+len(label)))
	h.Write(n[:])
	h.Write([]byte(hashLabelPrefix))
	h.Write([]byte(label))
	for _, x := range inputs {
		binary.BigEndian.PutUint64(n[:], uint64(len(x)))
		h.Write(n[:])
		h.Write(x)
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// ML-KEM-512 through circl, without panics: circl panics on wrong lengths,
// so every length is checked here first.
//
// circl's amd64 assembly (the AVX2 NTT and the four-way Keccak) returns
// without VZEROUPPER, leaving the upper halves of the YMM registers dirty.
// Every later legacy-SSE instruction on that thread then pays a transition
// penalty until something executes VZEROUPPER, and Go's SHA-256 (SHA-NI)
// and AES (AES-NI) are legacy SSE. On the x86-64 development machine (a
// virtualised Sapphire Rapids) hashing 1.7 KB took 200 µs instead of
// 2.5 µs after an ML-KEM call, and a whole exchange (one PBKDF2 iteration)
// 1.2 ms instead of 0.1 ms. Each wrapper therefore ends with clearUpperYMM.

// ymmA and ymmB are distinct 64-byte buffers for clearUpperYMM.
var ymmA, ymmB [64]byte

// clearUpperYMM executes VZEROUPPER where the CPU has AVX2: bytes.Equal on
// two distinct buffers of 64 bytes or more runs the runtime's AVX2 loop,
// which ends with VZEROUPPER. Elsewhere it is a cheap comparison.
func clearUpperYMM() { bytes.Equal(ymmA[:], ymmB[:]) }

var errKEMInput = errors.New("ocake: ML-KEM-512 input of the wrong length")

// keyFromSeed is ML-KEM.KeyGen_internal(d, z) (FIPS 203, Algorithm 16) for
// seed = d ‖ z.
func keyFromSeed(seed []byte) (*mlkem512.PublicKey, *mlkem512.PrivateKey, error) {
	if len(seed) != keySeedSize {
		return nil, nil, errKEMInput
	}
	ek, dk := mlkem512.NewKeyFromSeed(seed)
	clearUpperYMM()
	return ek, dk, nil
}

// packEncapsulationKey returns the FIPS 203 encoding of ek.
func packEncapsulationKey(ek *mlkem512.PublicKey) []byte {
	b := make([]byte, publicKeySize)
	ek.Pack(b)
	clearUpperYMM()
	return b
}

// parseEncapsulationKey decodes ek and runs the encapsulation key checks of
// FIPS 203 §7.2 (length, and the modulus check).
func parseEncapsulationKey(b []byte) (*mlkem512.PublicKey, error) {
	if len(b) != publicKeySize {
		return nil, errKEMInput
	}
	var ek mlkem512.PublicKey
	err := ek.Unpack(b)
	clearUpperYMM()
	if err != nil {
		return nil, err
	}
	return &ek, nil
}

// encapsulate is ML-KEM.Encaps_internal(ek, m) (FIPS 203, Algorithm 17).
func encapsulate(ek *mlkem512.PublicKey, m []byte) (c, k []byte, err error) {
	if len(m) != encapsSeedSize {
		return nil, nil, errKEMInput
	}
	c = make([]byte, ciphertextSize)
	k = make([]byte, sharedKeySize)
	ek.EncapsulateTo(c, k, m)
	clearUpperYMM()
	return c, k, nil
}

// decapsulate is ML-KEM.Decaps (FIPS 203, Algorithm 21), with implicit
// rejection: a ciphertext of the right length always gives a key.
func decapsulate(dk *mlkem512.PrivateKey, c []byte) ([]byte, error) {
	if len(c) != ciphertextSize {
		return nil, errKEMInput
	}
	k := make([]byte, sharedKeySize)
	dk.DecapsulateTo(k, c)
	clearUpperYMM()
	return k, nil
}

// AES-CBC with PKCS#7 padding (NIST SP 800-38A §6.2; RFC 5652 §6.3).

// fullPadding is the PKCS#7 padding of a message whose length is a
// multiple of the block size, such as an ML-KEM-512 encapsulation key.
var fullPadding = [aes.BlockSize]byte{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16}

// cbcEncrypt returns AES-CBC(key, iv, pkcs7(msg)). key is 16, 24 or 32
// bytes and iv one block (callers guarantee both).
func cbcEncrypt(key, iv, msg []byte) []byte {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("ocake: " + err.Error()) // unreachable: fixed key sizes
	}
	n := aes.BlockSize - len(msg)%aes.BlockSize
	out := make([]byte, len(msg)+n)
	copy(out, msg)
	for i := len(msg); i < len(out); i++ {
		out[i] = byte(n)
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, out)
	return out
}

// cbcDecryptRaw returns the CBC decryption of ct without removing the
// padding, or false when ct is not a positive number of blocks.
func cbcDecryptRaw(key, iv, ct []byte) ([]byte, bool) {
	if len(ct) == 0 || len(ct)%aes.BlockSize != 0 || len(iv) != aes.BlockSize {
		return nil, false
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, false
	}
	out := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, ct)
	return out, true
}

// pkcs7Unpad removes PKCS#7 padding from a whole number of blocks. The
// padding is checked in constant time: the time taken depends on len(b)
// only, until the (necessarily revealed) verdict and message length.
func pkcs7Unpad(b []byte) ([]byte, bool) {
	if len(b) == 0 || len(b)%aes.BlockSize != 0 {
		return nil, false
	}
	last := b[len(b)-aes.BlockSize:]
	n := int(last[aes.BlockSize-1])
	good := subtle.ConstantTimeLessOrEq(1, n) & subtle.ConstantTimeLessOrEq(n, aes.BlockSize)
	for i := 1; i <= aes.BlockSize; i++ {
		inPad := subtle.ConstantTimeLessOrEq(i, n)
		eq := subtle.ConstantTimeByteEq(last[aes.BlockSize-i], byte(n))
		good &= eq | (inPad ^ 1)
	}
	if good != 1 {
		return nil, false
	}
	return b[:len(b)-n], true
}

// encryptPublicKey returns apk = iv ‖ AES-128-CBC(kEnc, iv, ek ‖ padding).
func encryptPublicKey(kEnc, iv, ek []byte) []byte {
	apk := make([]byte, 0, Message1Size)
	apk = append(apk, iv...)
	return append(apk, cbcEncrypt(kEnc, iv, ek)...)
}

// decryptPublicKey inverts encryptPublicKey and parses the key. The
// padding, whose length is known, is compared in constant time; a bad
// padding and an invalid key give the same (single) failure.
func decryptPublicKey(kEnc, apk []byte) (*mlkem512.PublicKey, bool) {
	if len(apk) != Message1Size {
		return nil, false
	}
	pt, ok := cbcDecryptRaw(kEnc, apk[:ivSize], apk[ivSize:])
	if !ok {
		return nil, false
	}
	padOK := subtle.ConstantTimeCompare(pt[publicKeySize:], fullPadding[:])
	ek, err := parseEncapsulationKey(pt[:publicKeySize])
	if padOK != 1 || err != nil {
		return nil, false
	}
	return ek, true
}
