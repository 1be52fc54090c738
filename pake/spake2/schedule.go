package spake2

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// appendLengthPrefixed appends each field to dst, preceded by its length as
// an 8-byte little-endian integer: RFC 9382's len(S) || S (Section 3.1).
func appendLengthPrefixed(dst []byte, fields ...[]byte) []byte {
	for _, f := range fields {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// transcript returns TT (RFC 9382, Section 3.3):
//
//	len(A) || A || len(B) || B || len(pA) || pA || len(pB) || pB
//	|| len(K) || K || len(w) || w
func transcript(idA, idB, pA, pB, k, w []byte) []byte {
	n := 6*8 + len(idA) + len(idB) + len(pA) + len(pB) + len(k) + len(w)
	return appendLengthPrefixed(make([]byte, 0, n), idA, idB, pA, pB, k, w)
}

// keySchedule is everything RFC 9382, Section 4 derives from TT.
type keySchedule struct {
	tt       []byte
	ke, ka   []byte // Ke || Ka = Hash(TT)
	kcA, kcB []byte // KcA || KcB = KDF(nil, Ka, "ConfirmationKeys" || AAD)
	cA, cB   []byte // MAC(KcA, TT), MAC(KcB, TT)
}

// deriveKeys runs the key schedule of RFC 9382, Section 4 on TT:
//
//	Ke || Ka   = SHA-256(TT)
//	KcA || KcB = HKDF-SHA256(salt = nil, IKM = Ka, info = "ConfirmationKeys" || AAD, L = 32)
//	cA = HMAC-SHA256(KcA, TT),  cB = HMAC-SHA256(KcB, TT)
func deriveKeys(tt, aad []byte) (*keySchedule, error) {
	h := sha256.Sum256(tt)
	ks := &keySchedule{tt: tt, ke: h[:KeySize:KeySize], ka: h[KeySize:]}
	kc, err := hkdf.Key(sha256.New, ks.ka, nil, "ConfirmationKeys"+string(aad), sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("%w: HKDF: %v", pakeerr.ErrInvalidParameter, err)
	}
	ks.kcA, ks.kcB = kc[:sha256.Size/2:sha256.Size/2], kc[sha256.Size/2:]
	ks.cA, ks.cB = mac(ks.kcA, tt), mac(ks.kcB, tt)
	return ks, nil
}

// mac returns HMAC-SHA256(key, msg).
func mac(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}
