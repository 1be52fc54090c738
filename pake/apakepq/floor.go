package apakepq

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"github.com/kexlab/kexlab/internal/floor"
	"io"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Unavoidable returns the primitive limit of one login whose client
// derives its secrets with the given PBKDF2 iteration count (zero:
// DefaultIterations), with seeds, IV, nonce and keys drawn from rand off
// the clock. The OCAKE layer: the client's ephemeral KeyGen and AES-128-CBC
// encryption of ek_e, the server's decryption, ek check and Encaps to it,
// the client's Decaps. The compiler: the server's Encaps to the record key
// ek and AES-256-GCM seal of that ciphertext (psi), the client's open and
// Decaps with the record key pair.
func Unavoidable(rand io.Reader, iterations int) (*floor.Floor, error) {
	rand = sysrand.Or(rand)
	if iterations == 0 {
		iterations = DefaultIterations
	}
	buf := make([]byte, 64+2*32+16+nonceSize+32)
	if _, err := io.ReadFull(rand, buf); err != nil {
		return nil, fmt.Errorf("%w: apakepq: floor inputs", pakeerr.ErrRandom)
	}
	seed, m1, m2 := buf[:64], buf[64:96], buf[96:128]
	iv, nonce, key := buf[128:144], buf[144:144+nonceSize], buf[144+nonceSize:]
	password, clientID, serverID := []byte("password"), []byte("client"), []byte("server")
	sec, err := deriveSecrets(password, clientID, serverID, iterations)
	if err != nil {
		return nil, err
	}
	// server is the server's share on the client's message 1 (apk): D_pw
	// and the ek check, Encaps to ek_e and to the record's ek, the seal of
	// psi; it returns what the client's second half needs.
	server := func(apk []byte) (cE, psi []byte, err error) {
		ekE, err := cbcDecryptParse(key[:16], iv, apk)
		if err != nil {
			return nil, nil, err
		}
		cE, k := make([]byte, mlkem512.CiphertextSize), make([]byte, mlkem512.SharedKeySize)
		ekE.EncapsulateTo(cE, k, m1)
		c1 := make([]byte, mlkem512.CiphertextSize)
		sec.ek.EncapsulateTo(c1, k, m2)
		clearUpperYMM()
		return cE, newGCM(key).Seal(nil, nonce, c1, nil), nil
	}
	keyGen := func() (*mlkem512.PrivateKey, []byte) {
		ekE, dkE := mlkem512.NewKeyFromSeed(seed)
		ekBytes := make([]byte, mlkem512.PublicKeySize)
		ekE.Pack(ekBytes)
		clearUpperYMM()
		return dkE, cbcEncrypt(key[:16], iv, ekBytes)
	}
	_, apk := keyGen() // the server's input, made once off the clock
	return &floor.Floor{
		Ops: []string{
			"2 × ML-KEM-512 KeyGen (ephemeral; record pair from the password hash)",
			"1 × AES-128-CBC encryption of ek_e (E_pw)",
			"1 × AES-128-CBC decryption of ek_e (D_pw)",
			"2 × ML-KEM-512 Encaps (to ek_e with the ek check; to the record's ek)",
			"2 × ML-KEM-512 Decaps",
			"1 × AES-256-GCM seal and 1 × open (psi)",
			fmt.Sprintf("1 × PBKDF2-HMAC-SHA256 (%d iterations)", iterations),
		},
		Online: func() error {
			dkE, apk := keyGen()
			cE, psi, err := server(apk)
			if err != nil {
				return err
			}
			k := make([]byte, mlkem512.SharedKeySize)
			dkE.DecapsulateTo(k, cE)
			c1, err := newGCM(key).Open(nil, nonce, psi, nil)
			if err != nil {
				return err
			}
			sec.dk.DecapsulateTo(k, c1)
			clearUpperYMM()
			return nil
		},
		Password: func() error {
			_, err := deriveSecrets(password, clientID, serverID, iterations)
			return err
		},
		Server: func() error {
			_, _, err := server(apk)
			return err
		},
	}, nil
}

// cbcEncrypt returns AES-CBC(key, iv, ek || one block of PKCS#7 padding),
// the OCAKE layer's E_pw (package ocake keeps its own unexported).
func cbcEncrypt(key, iv, ek []byte) []byte {
	block, _ := aes.NewCipher(key)
	out := make([]byte, len(ek)+aes.BlockSize)
	copy(out, ek)
	for i := len(ek); i < len(out); i++ {
		out[i] = aes.BlockSize
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, out)
	return out
}

// cbcDecryptParse inverts cbcEncrypt and parses (checks) the key.
func cbcDecryptParse(key, iv, ct []byte) (*mlkem512.PublicKey, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(pt, ct)
	var ek mlkem512.PublicKey
	err = ek.Unpack(pt[:mlkem512.PublicKeySize])
	clearUpperYMM()
	if err != nil {
		return nil, fmt.Errorf("%w: apakepq: floor: %v", pakeerr.ErrInvalidMessage, err)
	}
	return &ek, nil
}
