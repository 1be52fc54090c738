package ocake

import (
	"fmt"
	"github.com/kexlab/kexlab/internal/floor"
	"io"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Unavoidable returns the primitive limit of one exchange whose parties
// derive the password key with the given PBKDF2 iteration count (zero:
// DefaultIterations), with seeds, IV and key drawn from rand off the clock.
// As in the paper's Figure 3: Alice runs KeyGen and encrypts ek under the
// password (apk = E_pw(ek), the ideal cipher, here AES-128-CBC); Bob
// decrypts it, checks ek (FIPS 203 §7.2) and encapsulates to it; Alice
// decapsulates.
func Unavoidable(rand io.Reader, iterations int) (*floor.Floor, error) {
	if iterations == 0 {
		iterations = DefaultIterations
	}
	buf := make([]byte, keySeedSize+encapsSeedSize+ivSize+encKeySize)
	if _, err := io.ReadFull(rand, buf); err != nil {
		return nil, fmt.Errorf("%w: ocake: floor inputs", pakeerr.ErrRandom)
	}
	seed, buf := buf[:keySeedSize], buf[keySeedSize:]
	m, buf := buf[:encapsSeedSize], buf[encapsSeedSize:]
	iv, key := buf[:ivSize], buf[ivSize:]
	clientID, serverID := []byte("alice"), []byte("bob")
	return &floor.Floor{
		Ops: []string{
			"1 × ML-KEM-512 KeyGen",
			"1 × AES-128-CBC encryption of ek (E_pw)",
			"1 × AES-128-CBC decryption of ek (D_pw)",
			"1 × ML-KEM-512 Encaps (with the ek check)",
			"1 × ML-KEM-512 Decaps",
			fmt.Sprintf("2 × PBKDF2-HMAC-SHA256 (%d iterations)", iterations),
		},
		Online: func() error {
			ek, dk, err := keyFromSeed(seed)
			if err != nil {
				return err
			}
			apk := encryptPublicKey(key, iv, packEncapsulationKey(ek))
			ek2, ok := decryptPublicKey(key, apk)
			if !ok {
				return fmt.Errorf("%w: ocake: floor: ek did not decrypt", pakeerr.ErrInvalidMessage)
			}
			c, _, err := encapsulate(ek2, m)
			if err != nil {
				return err
			}
			_, err = decapsulate(dk, c)
			return err
		},
		Password: func() error {
			for range 2 {
				if _, err := DeriveKey([]byte("password"), clientID, serverID, iterations); err != nil {
					return err
				}
			}
			return nil
		},
	}, nil
}
