package oeke

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// IVSize is the length of the CBC initialization vector that starts
// message 2.
const IVSize = aes.BlockSize

// padded reports whether the suite pads its element encoding (PKCS#7) to
// whole AES blocks: only when its length is not already a multiple of 16.
// A fixed-length plaintext needs no padding to be decrypted; a full block
// of PKCS#7 padding would be 128 bits of known plaintext for an
// eavesdropper to test password guesses against.
func padded(elementSize int) bool { return elementSize%aes.BlockSize != 0 }

// ciphertextSize is the length of E_pw(Y) for an element size, IV excluded.
func ciphertextSize(elementSize int) int {
	if padded(elementSize) {
		return (elementSize/aes.BlockSize + 1) * aes.BlockSize
	}
	return elementSize
}

// cbcEncrypt returns AES-CBC(key, iv, msg || PKCS#7 padding) (RFC 5652
// §6.3: 1 to 16 bytes, each holding the padding length).
func cbcEncrypt(key, iv, msg []byte) ([]byte, error) {
	n := aes.BlockSize - len(msg)%aes.BlockSize
	buf := make([]byte, len(msg)+n)
	copy(buf, msg)
	for i := len(msg); i < len(buf); i++ {
		buf[i] = byte(n)
	}
	return cbcRaw(key, iv, buf, true)
}

// cbcDecrypt decrypts AES-CBC and removes PKCS#7 padding in constant time:
// the time depends only on len(ct), and a bad padding is reported only
// once the whole ciphertext has been processed.
func cbcDecrypt(key, iv, ct []byte) ([]byte, error) {
	if len(ct) == 0 {
		return nil, fmt.Errorf("%w: oeke: empty ciphertext", pakeerr.ErrInvalidMessage)
	}
	buf, err := cbcRaw(key, iv, ct, false)
	if err != nil {
		return nil, err
	}
	n, ok := unpad(buf)
	if ok != 1 {
		return nil, fmt.Errorf("%w: oeke: bad padding", pakeerr.ErrAuthFailed)
	}
	return buf[:len(buf)-n], nil
}

// unpad returns the PKCS#7 padding length of buf (whose length is a
// non-zero multiple of 16) and 1 if the padding is valid, 0 otherwise. It
// reads the last 16 bytes whatever the padding length.
func unpad(buf []byte) (n, ok int) {
	last := buf[len(buf)-aes.BlockSize:]
	n = int(last[aes.BlockSize-1])
	ok = subtle.ConstantTimeLessOrEq(1, n) & subtle.ConstantTimeLessOrEq(n, aes.BlockSize)
	for i := 1; i <= aes.BlockSize; i++ {
		inPad := subtle.ConstantTimeLessOrEq(i, n)
		eq := subtle.ConstantTimeByteEq(last[aes.BlockSize-i], byte(n))
		ok &= eq | (inPad ^ 1)
	}
	// Keep the returned length in range whatever the padding byte.
	n = subtle.ConstantTimeSelect(ok, n, 0)
	return n, ok
}

// cbcRaw runs AES-CBC over whole blocks, without padding.
func cbcRaw(key, iv, in []byte, encrypt bool) ([]byte, error) {
	if len(iv) != IVSize || len(in)%aes.BlockSize != 0 {
		return nil, fmt.Errorf("%w: oeke: CBC input of %d bytes, IV of %d", pakeerr.ErrInvalidMessage, len(in), len(iv))
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("%w: oeke: %v", pakeerr.ErrInvalidParameter, err)
	}
	out := make([]byte, len(in))
	if encrypt {
		cipher.NewCBCEncrypter(b, iv).CryptBlocks(out, in)
	} else {
		cipher.NewCBCDecrypter(b, iv).CryptBlocks(out, in)
	}
	return out, nil
}

// seal returns E_pw(Y): AES-CBC under key with iv, over the encoding of Y,
// padded only where padded says so.
func seal(key, iv, y []byte) ([]byte, error) {
	if padded(len(y)) {
		return cbcEncrypt(key, iv, y)
	}
	return cbcRaw(key, iv, y, true)
}

// open inverts seal for an element of elementSize bytes. A ciphertext of
// the wrong length fails with ErrInvalidMessage; a bad padding, the
// symptom of a wrong password, with ErrAuthFailed.
func open(key, iv, ct []byte, elementSize int) ([]byte, error) {
	if len(ct) != ciphertextSize(elementSize) {
		return nil, fmt.Errorf("%w: oeke: ciphertext of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(ct), ciphertextSize(elementSize))
	}
	if !padded(elementSize) {
		return cbcRaw(key, iv, ct, false)
	}
	y, err := cbcDecrypt(key, iv, ct)
	if err != nil {
		return nil, err
	}
	if len(y) != elementSize {
		return nil, fmt.Errorf("%w: oeke: bad padding", pakeerr.ErrAuthFailed)
	}
	return y, nil
}
