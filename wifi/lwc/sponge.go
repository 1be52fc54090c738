package lwc

import (
	"bytes"
	"fmt"
)

// kdfLabel fills the last four octets of the KDF message.
var kdfLabel = [4]byte{'L', 'W', 'C', 0}

// KDFInput returns the key, nonce and 48-octet message of the KDF (see the
// package documentation) for pmk (32 octets), the authenticator and
// supplicant addresses, and the two 32-octet nonces.
func KDFInput(pmk []byte, aa, spa [6]byte, anonce, snonce []byte) (key, nonce, msg []byte, err error) {
	if len(pmk) != PMKSize || len(anonce) != 32 || len(snonce) != 32 {
		return nil, nil, nil, fmt.Errorf("%w: PMK %d octets, nonces %d and %d (want 32 each)", ErrInput, len(pmk), len(anonce), len(snonce))
	}
	a1, a2 := anonce, snonce
	if bytes.Compare(a1, a2) > 0 {
		a1, a2 = a2, a1
	}
	m1, m2 := aa[:], spa[:]
	if bytes.Compare(m1, m2) > 0 {
		m1, m2 = m2, m1
	}
	key = append([]byte(nil), pmk[:16]...)
	nonce = make([]byte, 0, NonceSize)
	nonce = append(append(nonce, a1[:8]...), a2[:8]...)
	msg = make([]byte, 0, PTKSize)
	msg = append(msg, pmk[16:32]...)
	msg = append(append(msg, m1...), m2...)
	msg = append(append(msg, a1[8:16]...), a2[8:16]...)
	msg = append(msg, kdfLabel[:]...)
	return key, nonce, msg, nil
}

// KDF derives KCK ‖ KEK ‖ TK (16 octets each) with c: the ciphertext of
// KDFInput's message, the tag dropped.
func (c Cipher) KDF(pmk []byte, aa, spa [6]byte, anonce, snonce []byte) ([]byte, error) {
	key, nonce, msg, err := KDFInput(pmk, aa, spa, anonce, snonce)
	if err != nil {
		return nil, err
	}
	aead, err := c.New(key)
	if err != nil {
		return nil, err
	}
	out := aead.Seal(msg[:0], nonce, msg, nil)
	clear(key)
	return out[:PTKSize:PTKSize], nil
}

// MIC returns the 16-octet tag that c computes over frame (the EAPOL frame
// with its MIC field zeroed) as associated data, under kck, a zero nonce
// and an empty message.
func (c Cipher) MIC(kck, frame []byte) ([]byte, error) {
	if len(kck) != KeySize {
		return nil, fmt.Errorf("%w: KCK of %d octets, want %d", ErrInput, len(kck), KeySize)
	}
	aead, err := c.New(kck)
	if err != nil {
		return nil, err
	}
	var nonce [NonceSize]byte
	return aead.Seal(make([]byte, 0, TagSize), nonce[:], nil, frame), nil
}
