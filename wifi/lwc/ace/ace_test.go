package ace

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/kexlab/kexlab/internal/genkat"
	"github.com/kexlab/kexlab/internal/testvec"
)

// TestSizes checks the constants against §2.2 (recommended parameter set)
// and §2.4.1 of the submission: 320-bit state, 64-bit rate, 128-bit key,
// nonce and tag, 256-bit hash output.
func TestSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, bits int
	}{
		{"StateSize", StateSize, 320},
		{"Rate", Rate, 64},
		{"KeySize", KeySize, 128},
		{"NonceSize", NonceSize, 128},
		{"TagSize", TagSize, 128},
		{"Size", Size, 256},
		{"BlockSize", BlockSize, 64},
	} {
		if c.got*8 != c.bits {
			t.Errorf("%s = %d bytes, want %d bits", c.name, c.got, c.bits)
		}
	}
	a, err := New(make([]byte, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	if a.NonceSize() != NonceSize || a.Overhead() != TagSize {
		t.Errorf("NonceSize() = %d, Overhead() = %d", a.NonceSize(), a.Overhead())
	}
	h := New256()
	if h.Size() != Size || h.BlockSize() != BlockSize {
		t.Errorf("Size() = %d, BlockSize() = %d", h.Size(), h.BlockSize())
	}
}

// TestPermuteHashIV checks Permute on the ACE-H-256 initial state (bytes
// 8, 9, 10 = 0x80, 0x40, 0x40, §2.5.2) against the pre-computed IV in
// rweather/lightweight-crypto src/combined/ace.c (commit 4f4209ed,
// ace_hash_iv), which is stored in the specification's byte order.
func TestPermuteHashIV(t *testing.T) {
	want, _ := hex.DecodeString("b97dda3f0c5f0eca65d180d649dca18c662cd1a670375875" +
		"297db0b07273cea89971de8a9a657224")
	var s [StateSize]byte
	s[8], s[9], s[10] = 0x80, 0x40, 0x40
	Permute(&s)
	if !bytes.Equal(s[:], want) {
		t.Errorf("Permute(IV) = %x, want %x", s, want)
	}
}

// TestHashKAT runs every record of the NIST LWC round-2 ACE-H-256 KAT
// through Sum256 and through New256 with the message written in pieces.
func TestHashKAT(t *testing.T) {
	recs, err := genkat.Parse(testvec.Read(t, "lwc/ACE-HASH.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1025 {
		t.Fatalf("read %d KAT records, want 1025", len(recs))
	}
	h := New256()
	for _, r := range recs {
		msg, ok1 := r.Get("Msg")
		md, ok2 := r.Get("MD")
		if !ok1 || !ok2 {
			t.Fatalf("record %d: missing Msg or MD", r.Count)
		}
		if got := Sum256(msg); !bytes.Equal(got[:], md) {
			t.Fatalf("record %d: Sum256 = %X, want %X", r.Count, got, md)
		}
		h.Reset()
		step := 1 + r.Count%11
		for m := msg; len(m) > 0; {
			n := min(step, len(m))
			h.Write(m[:n])
			m = m[n:]
			if r.Count%3 == 0 {
				h.Sum(nil) // Sum must not disturb the running hash.
			}
		}
		if got := h.Sum([]byte{0xee}); got[0] != 0xee || !bytes.Equal(got[1:], md) {
			t.Fatalf("record %d: New256 = %X, want %X", r.Count, got, md)
		}
	}
}
