// Package wg holds the pre-shared-key schedules of the WireGuard PSK
// rotator (issue 7), a Linux rebuild of the design of the thesis
// "WireGuardKeyStore vs. WireGuardHSM" (Bochum 2022): WireGuard's optional
// 32-byte pre-shared key (the Q mixed into the Noise IKpsk2 handshake,
// WireGuard paper §5.4.3) is derived from a key that never leaves hardware
// and rotated.
//
// Every PSK is the output of the hardware operation of package
// wg/keysource, Derive(input) = HMAC-SHA256(K, input), on an input that is
// a binary, domain-separated encoding (never a formatted string):
//
//	timestamp (v1)          "kexlab-wg v1 timestamp"   || pair || u64(hour)
//	hash ratchet (v2.1)     PSK_0 = Derive("kexlab-wg v1 hash ratchet seed" || pair || u64(epoch))
//	                        PSK_i = HMAC-SHA256(PSK_{i-1}, "kexlab-wg v1 hash ratchet" || u64(epoch) || u64(i))
//	hardware ratchet (v2.2) PSK_i = Derive("kexlab-wg v1 hardware ratchet" || pair || u64(epoch) || u64(i) || H_{i-1})
//	fresh (v3)              PSK_i = Derive("kexlab-wg v1 fresh" || pair || u64(epoch) || u64(i) || H_{i-1} || fresh_i)
//
// where u64 is 8 bytes big-endian, pair is PairID of the two peers' public
// keys, hour is floor(Unix time / 3600) (UTC by construction), H_i =
// Hash(PSK_i) (H_0 of an unstarted chain is 32 zero bytes) and fresh_i is
// the 32-byte ML-KEM-768 shared secret the two rotators agree on through
// the tunnel after handshake i (fresh.go). Labels are fixed-length ASCII
// prefixes; every other field has a fixed length, so the encodings are
// injective within a mode and distinct across modes.
//
// A chain is numbered by an epoch, chosen by the daemon when it (re)starts
// a chain, e.g. after a fallback; within an epoch the index counts
// successful handshakes. After MaxFailures failed handshakes both sides
// fall back to the timestamp PSK (see State.Failed).
//
// What the modes protect: the timestamp PSK is only as secret as K and
// changes each hour; the ratchets change the PSK after every handshake,
// and the hardware ratchet and fresh mode make every PSK depend on K, so a
// stolen PSK does not give the next one without the hardware. Fresh mode
// adds material an attacker who records the tunnel cannot compute even
// with K and a quantum computer (ML-KEM-768 is post-quantum; WireGuard's
// X25519 is not): an attacker must have had K and broken the earlier
// tunnel traffic in real time. The hash ratchet's PSKs are a function of
// PSK_0 alone: State never holds a PSK, so a restart recomputes the chain
// from the hardware (ResumeHashRatchet), and anyone holding K can too.
//
// Zeroing: PSK.Zero and the helpers here clear the buffers they own.
// Go cannot guarantee erasure: the garbage collector and stack growth may
// leave copies, crypto/hmac and crypto/mlkem keep internal copies of keys
// that cannot be cleared from outside, strings (PKCS#11 PINs) are
// immutable, and the kernel, wgctrl and tokens hold their own copies.
package wg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
)

// PSK is a WireGuard pre-shared key.
type PSK [32]byte

// Zero overwrites the key.
func (p *PSK) Zero() { clear(p[:]) }

// Hash returns SHA-256("kexlab-wg v1 psk hash" || PSK): the commitment to
// a PSK that State stores and that peers may compare to resynchronise.
// It reveals nothing about the PSK beyond equality.
//
// The label and the PSK are hashed from one stack buffer that is cleared
// afterwards: a sha256.New digest lives on the heap and keeps its last
// partial block (here the PSK) after use, which left a copy of the PSK in
// the heap at every poll of the daemon.
func (p *PSK) Hash() [32]byte {
	var buf [len(labelPSKHash) + 32]byte
	copy(buf[:], labelPSKHash)
	copy(buf[len(labelPSKHash):], p[:])
	out := sha256.Sum256(buf[:])
	clear(buf[:])
	return out
}

// Domain-separation labels.
const (
	labelPair       = "kexlab-wg v1 pair"
	labelPSKHash    = "kexlab-wg v1 psk hash"
	labelTimestamp  = "kexlab-wg v1 timestamp"
	labelHashSeed   = "kexlab-wg v1 hash ratchet seed"
	labelHashStep   = "kexlab-wg v1 hash ratchet"
	labelHWRatchet  = "kexlab-wg v1 hardware ratchet"
	labelFresh      = "kexlab-wg v1 fresh"
	freshSecretSize = 32
)

// ErrDesync: a peer's or a stored ratchet position does not match.
var ErrDesync = errors.New("wg: ratchet out of sync")

// ErrInvalidState: a state file or a state transition is invalid.
var ErrInvalidState = errors.New("wg: invalid state")

// PairID identifies the tunnel between the peers with WireGuard public keys
// a and b, the same on both sides:
//
//	SHA-256("kexlab-wg v1 pair" || min(a, b) || max(a, b))
//
// with min and max in bytewise order. It keeps the PSKs of different
// tunnels sharing one hardware key apart.
func PairID(a, b [32]byte) [32]byte {
	if bytes.Compare(a[:], b[:]) > 0 {
		a, b = b, a
	}
	h := sha256.New()
	h.Write([]byte(labelPair))
	h.Write(a[:])
	h.Write(b[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func appendU64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }
