package core

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// KDFSHA256 is KDF-Hash-Length of IEEE 802.11-2020 §12.7.1.7.2 with
// SHA-256 (KDF-SHA-256): the concatenation of
// HMAC-SHA-256(key, i || label || context || Length) for i = 1, 2, ...,
// truncated to Length bits, with i and Length as 16-bit little-endian
// integers. bits must be a multiple of 8.
func KDFSHA256(key []byte, label string, context []byte, bits int) []byte {
	out := make([]byte, 0, bits/8+sha256.Size)
	var i, length [2]byte
	binary.LittleEndian.PutUint16(length[:], uint16(bits))
	for n := uint16(1); len(out) < bits/8; n++ {
		binary.LittleEndian.PutUint16(i[:], n)
		m := hmac.New(sha256.New, key)
		m.Write(i[:])
		m.Write([]byte(label))
		m.Write(context)
		m.Write(length[:])
		out = m.Sum(out)
	}
	return out[:bits/8]
}
