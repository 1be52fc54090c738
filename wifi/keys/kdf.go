package keys

import (
	"bytes"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// PMKSize is the length of a PSK-derived PMK, 256 bits.
const PMKSize = 32

// PMKFromPassphrase maps an ASCII passphrase of 8 to 63 printable
// characters and an SSID of 1 to 32 octets to the 256-bit PSK (used as
// the PMK): PBKDF2-HMAC-SHA-1(passphrase, SSID, 4096, 256) (§J.4.1).
func PMKFromPassphrase(passphrase string, ssid []byte) ([]byte, error) {
	if len(passphrase) < 8 || len(passphrase) > 63 {
		return nil, fmt.Errorf("%w: passphrase of %d characters, want 8..63", pakeerr.ErrInvalidParameter, len(passphrase))
	}
	for _, c := range []byte(passphrase) {
		if c < 32 || c > 126 {
			return nil, fmt.Errorf("%w: passphrase character %#x is not printable ASCII", pakeerr.ErrInvalidParameter, c)
		}
	}
	if len(ssid) < 1 || len(ssid) > 32 {
		return nil, fmt.Errorf("%w: SSID of %d octets, want 1..32", pakeerr.ErrInvalidParameter, len(ssid))
	}
	return pbkdf2.Key(sha1.New, passphrase, ssid, 4096, PMKSize)
}

// PRF returns PRF-bits(key, label, data) of §12.7.1.2: the concatenation of
// HMAC-SHA-1(key, label || 0 || data || i) for i = 0, 1, ..., truncated to
// bits, a positive multiple of 8 (PRF-128 ... PRF-512 and beyond).
func PRF(key []byte, label string, data []byte, bits int) ([]byte, error) {
	if bits <= 0 || bits%8 != 0 || bits > 255*sha1.Size*8 {
		return nil, fmt.Errorf("%w: PRF output of %d bits", pakeerr.ErrInvalidParameter, bits)
	}
	out := make([]byte, 0, (bits/8+sha1.Size-1)/sha1.Size*sha1.Size)
	m := hmac.New(sha1.New, key)
	for i := 0; len(out) < bits/8; i++ {
		m.Reset()
		m.Write([]byte(label))
		m.Write([]byte{0})
		m.Write(data)
		m.Write([]byte{byte(i)})
		out = m.Sum(out)
	}
	return out[:bits/8], nil
}

// KDF returns KDF-Hash-bits(key, label, context) of §12.7.1.7.2: the
// concatenation of HMAC-Hash(key, i || label || context || bits) for
// i = 1, 2, ..., with i and bits as 16-bit little-endian integers and the
// label without a terminating zero, truncated to bits (a positive multiple
// of 8 below 2^16).
func KDF(h func() hash.Hash, key []byte, label string, context []byte, bits int) ([]byte, error) {
	if bits <= 0 || bits%8 != 0 || bits > 0xffff {
		return nil, fmt.Errorf("%w: KDF output of %d bits", pakeerr.ErrInvalidParameter, bits)
	}
	m := hmac.New(h, key)
	out := make([]byte, 0, bits/8+m.Size())
	var le [2]byte
	for i := 1; len(out) < bits/8; i++ {
		m.Reset()
		m.Write(binary.LittleEndian.AppendUint16(le[:0], uint16(i)))
		m.Write([]byte(label))
		m.Write(context)
		m.Write(binary.LittleEndian.AppendUint16(le[:0], uint16(bits)))
		out = m.Sum(out)
	}
	return out[:bits/8], nil
}

// ptkLabel is the PTK derivation label (§12.7.1.3).
const ptkLabel = "Pairwise key expansion"

// PTKContext returns Min(AA, SPA) || Max(AA, SPA) || Min(ANonce, SNonce) ||
// Max(ANonce, SNonce) (§12.7.1.3), comparing as unsigned big-endian
// integers; the nonces must be 32 octets.
func PTKContext(aa, spa [6]byte, anonce, snonce []byte) ([]byte, error) {
	if len(anonce) != 32 || len(snonce) != 32 {
		return nil, fmt.Errorf("%w: nonces of %d and %d octets", pakeerr.ErrInvalidParameter, len(anonce), len(snonce))
	}
	b := make([]byte, 0, 76)
	if bytes.Compare(aa[:], spa[:]) < 0 {
		b = append(append(b, aa[:]...), spa[:]...)
	} else {
		b = append(append(b, spa[:]...), aa[:]...)
	}
	if bytes.Compare(anonce, snonce) < 0 {
		b = append(append(b, anonce...), snonce...)
	} else {
		b = append(append(b, snonce...), anonce...)
	}
	return b, nil
}
