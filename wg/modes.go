package wg

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/kexlab/kexlab/wg/keysource"
)

// Hour returns the timestamp mode's hour number of t, floor(Unix time /
// 3600): independent of time zones and of t's location. Times before 1970
// are an error.
func Hour(t time.Time) (uint64, error) {
	u := t.Unix()
	if u < 0 {
		return 0, fmt.Errorf("%w: time %v before 1970", ErrInvalidState, t)
	}
	return uint64(u) / 3600, nil
}

// TimestampInput returns "kexlab-wg v1 timestamp" || pair || u64(hour).
func TimestampInput(pair [32]byte, hour uint64) []byte {
	b := make([]byte, 0, len(labelTimestamp)+32+8)
	b = append(b, labelTimestamp...)
	b = append(b, pair[:]...)
	return appendU64(b, hour)
}

// TimestampPSK is the v1 PSK of the hour containing t: Derive of
// TimestampInput. It is also the fallback PSK.
func TimestampPSK(src keysource.Source, pair [32]byte, t time.Time) (PSK, error) {
	h, err := Hour(t)
	if err != nil {
		return PSK{}, err
	}
	return derive(src, TimestampInput(pair, h))
}

func derive(src keysource.Source, input []byte) (PSK, error) {
	out, err := src.Derive(input)
	if err != nil {
		return PSK{}, fmt.Errorf("wg: %s: %w", src.Name(), err)
	}
	return PSK(out), nil
}

// HashRatchetSeedInput returns "kexlab-wg v1 hash ratchet seed" || pair ||
// u64(epoch), whose Derive is PSK_0 of the hash ratchet.
func HashRatchetSeedInput(pair [32]byte, epoch uint64) []byte {
	b := make([]byte, 0, len(labelHashSeed)+40)
	b = append(b, labelHashSeed...)
	b = append(b, pair[:]...)
	return appendU64(b, epoch)
}

// HashRatchetNext returns PSK_i = HMAC-SHA256(PSK_{i-1}, "kexlab-wg v1
// hash ratchet" || u64(epoch) || u64(i)) (HMAC as the PRF of HKDF-Expand,
// RFC 5869 §2.3, with one output block). Only software is involved: the
// hardware contributes PSK_0.
func HashRatchetNext(prev *PSK, epoch, i uint64) PSK {
	var info [len(labelHashStep) + 16]byte
	b := append(info[:0], labelHashStep...)
	b = appendU64(b, epoch)
	b = appendU64(b, i)
	m := hmac.New(sha256.New, prev[:])
	m.Write(b)
	var out PSK
	m.Sum(out[:0])
	return out
}

// MaxHashRatchetIndex bounds how far ResumeHashRatchet recomputes a chain
// (about 1 s of HMACs); a daemon restarts the chain (a new epoch) before.
const MaxHashRatchetIndex = 1 << 20

// ResumeHashRatchet recomputes the hash ratchet's PSK at st's position
// (PSK_0 from the hardware, then st.Index steps) and checks it against
// st.LastHash, returning ErrDesync if it differs (another key, another
// pair, or a corrupted state).
func ResumeHashRatchet(src keysource.Source, pair [32]byte, st *State) (PSK, error) {
	if st.Mode != HashRatchet {
		return PSK{}, fmt.Errorf("%w: state is in mode %v", ErrInvalidState, st.Mode)
	}
	if st.Index > MaxHashRatchetIndex {
		return PSK{}, fmt.Errorf("%w: index %d beyond MaxHashRatchetIndex", ErrInvalidState, st.Index)
	}
	psk, err := derive(src, HashRatchetSeedInput(pair, st.Epoch))
	if err != nil {
		return PSK{}, err
	}
	for i := uint64(1); i <= st.Index; i++ {
		next := HashRatchetNext(&psk, st.Epoch, i)
		psk.Zero()
		psk = next
	}
	if psk.Hash() != st.LastHash {
		psk.Zero()
		return PSK{}, fmt.Errorf("%w: hash ratchet at epoch %d index %d", ErrDesync, st.Epoch, st.Index)
	}
	return psk, nil
}

// HardwareRatchetInput returns "kexlab-wg v1 hardware ratchet" || pair ||
// u64(epoch) || u64(i) || H_{i-1}.
func HardwareRatchetInput(pair [32]byte, epoch, i uint64, prevHash [32]byte) []byte {
	b := make([]byte, 0, len(labelHWRatchet)+32+16+32)
	b = append(b, labelHWRatchet...)
	b = append(b, pair[:]...)
	b = appendU64(b, epoch)
	b = appendU64(b, i)
	return append(b, prevHash[:]...)
}

// FreshInput returns "kexlab-wg v1 fresh" || pair || u64(epoch) || u64(i)
// || H_{i-1} || fresh, with fresh the 32-byte secret of the exchange of
// fresh.go. The caller should clear the result after use.
func FreshInput(pair [32]byte, epoch, i uint64, prevHash [32]byte, fresh *[32]byte) []byte {
	b := make([]byte, 0, len(labelFresh)+32+16+32+freshSecretSize)
	b = append(b, labelFresh...)
	b = append(b, pair[:]...)
	b = appendU64(b, epoch)
	b = appendU64(b, i)
	b = append(b, prevHash[:]...)
	return append(b, fresh[:]...)
}

// Step computes the next PSK of st's ratchet and advances st (Index+1,
// LastHash, Failures reset). It covers the modes whose step needs only the
// state: the hardware ratchet, and, with fresh set, fresh mode; the hash
// ratchet needs the previous PSK (HashStep), and the timestamp mode has
// no chain. st is unchanged on error.
func Step(src keysource.Source, pair [32]byte, st *State, fresh *[32]byte) (PSK, error) {
	if err := st.check(); err != nil {
		return PSK{}, err
	}
	if st.Index == ^uint64(0) {
		return PSK{}, fmt.Errorf("%w: index exhausted", ErrInvalidState)
	}
	i := st.Index + 1
	var input []byte
	switch {
	case st.Mode == HardwareRatchet && fresh == nil:
		input = HardwareRatchetInput(pair, st.Epoch, i, st.LastHash)
	case st.Mode == Fresh && fresh != nil:
		input = FreshInput(pair, st.Epoch, i, st.LastHash, fresh)
	default:
		return PSK{}, fmt.Errorf("%w: Step in mode %v (fresh material given: %v)", ErrInvalidState, st.Mode, fresh != nil)
	}
	psk, err := derive(src, input)
	clear(input)
	if err != nil {
		return PSK{}, err
	}
	st.advance(&psk)
	return psk, nil
}

// HashStep advances a hash-ratchet state from its current PSK prev (the
// one at st's position; checked against st.LastHash) and returns the next.
// The caller zeroes prev when it no longer needs it.
func HashStep(prev *PSK, st *State) (PSK, error) {
	if err := st.check(); err != nil {
		return PSK{}, err
	}
	if st.Mode != HashRatchet {
		return PSK{}, fmt.Errorf("%w: HashStep in mode %v", ErrInvalidState, st.Mode)
	}
	if prev.Hash() != st.LastHash {
		return PSK{}, fmt.Errorf("%w: PSK does not match the state", ErrDesync)
	}
	if st.Index >= MaxHashRatchetIndex {
		return PSK{}, fmt.Errorf("%w: hash ratchet needs a new epoch", ErrInvalidState)
	}
	psk := HashRatchetNext(prev, st.Epoch, st.Index+1)
	st.advance(&psk)
	return psk, nil
}

// StartChain starts (or restarts, after a fallback) a chain at epoch in
// st's mode and returns its first PSK: PSK_0 for the hash ratchet, or the
// step to index 1 from H_0 = 0 for the hardware ratchet; fresh mode starts
// like the hardware ratchet, without fresh material, since none has been
// exchanged before the first handshake. Both peers must choose the same
// epoch (e.g. the hour of the timestamp PSK of the fallback handshake).
func StartChain(src keysource.Source, pair [32]byte, st *State, epoch uint64) (PSK, error) {
	next := State{Version: StateVersion, Mode: st.Mode, Epoch: epoch, MaxFailures: st.MaxFailures}
	if err := next.check(); err != nil {
		return PSK{}, err
	}
	var psk PSK
	var err error
	switch st.Mode {
	case HashRatchet:
		psk, err = derive(src, HashRatchetSeedInput(pair, epoch))
		if err == nil {
			next.LastHash = psk.Hash()
		}
	case HardwareRatchet, Fresh:
		psk, err = derive(src, HardwareRatchetInput(pair, epoch, 1, [32]byte{}))
		if err == nil {
			next.advance(&psk)
		}
	default:
		err = fmt.Errorf("%w: no chain in mode %v", ErrInvalidState, st.Mode)
	}
	if err != nil {
		return PSK{}, err
	}
	*st = next
	return psk, nil
}
