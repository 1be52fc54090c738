package ace

import (
	"bytes"
	"encoding/hex"
	"errors"
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

type aeadKAT struct {
	count                  int
	key, nonce, pt, ad, ct []byte
}

func readAEADKATs(t testing.TB) []aeadKAT {
	t.Helper()
	recs, err := genkat.Parse(testvec.Read(t, "lwc/ACE.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []aeadKAT
	for _, r := range recs {
		v := aeadKAT{count: r.Count}
		for _, f := range []struct {
			name string
			dst  *[]byte
		}{{"Key", &v.key}, {"Nonce", &v.nonce}, {"PT", &v.pt}, {"AD", &v.ad}, {"CT", &v.ct}} {
			b, ok := r.Get(f.name)
			if !ok {
				t.Fatalf("record %d: no %s", r.Count, f.name)
			}
			*f.dst = b
		}
		out = append(out, v)
	}
	return out
}

// TestAEADKAT runs every record of the NIST LWC round-2 ACE-AE-128 KAT:
// Seal gives CT, Open gives PT back (also in place and after a prefix in
// dst), and flipping one bit of the tag, of the ciphertext or of the
// associated data makes Open fail with ErrOpen leaving no plaintext.
func TestAEADKAT(t *testing.T) {
	kats := readAEADKATs(t)
	if len(kats) != 1089 {
		t.Fatalf("read %d KAT records, want 1089", len(kats))
	}
	for _, v := range kats {
		a, err := New(v.key)
		if err != nil {
			t.Fatal(err)
		}
		prefix := []byte("prefix")
		ct := a.Seal(bytes.Clone(prefix), v.nonce, v.pt, v.ad)
		if !bytes.Equal(ct[:len(prefix)], prefix) || !bytes.Equal(ct[len(prefix):], v.ct) {
			t.Fatalf("record %d: Seal = %X, want %X", v.count, ct[len(prefix):], v.ct)
		}
		pt, err := a.Open(bytes.Clone(prefix), v.nonce, v.ct, v.ad)
		if err != nil || !bytes.Equal(pt[:len(prefix)], prefix) || !bytes.Equal(pt[len(prefix):], v.pt) {
			t.Fatalf("record %d: Open = %X, %v; want %X", v.count, pt, err, v.pt)
		}

		// In place, as cipher.AEAD documents: plaintext[:0] and ciphertext[:0].
		buf := make([]byte, len(v.ct))
		copy(buf, v.pt)
		if ct := a.Seal(buf[:0], v.nonce, buf[:len(v.pt)], v.ad); !bytes.Equal(ct, v.ct) {
			t.Fatalf("record %d: in-place Seal = %X, want %X", v.count, ct, v.ct)
		}
		if pt, err := a.Open(buf[:0], v.nonce, buf, v.ad); err != nil || !bytes.Equal(pt, v.pt) {
			t.Fatalf("record %d: in-place Open = %X, %v; want %X", v.count, pt, err, v.pt)
		}

		tamper := func(what string, ct, ad []byte) {
			t.Helper()
			dst := make([]byte, 0, len(ct))
			pt, err := a.Open(dst, v.nonce, ct, ad)
			if !errors.Is(err, ErrOpen) || pt != nil {
				t.Fatalf("record %d: Open with flipped %s = %X, %v; want ErrOpen", v.count, what, pt, err)
			}
			if !isZero(dst[:cap(dst)]) {
				t.Fatalf("record %d: Open with flipped %s left %X in dst", v.count, what, dst[:cap(dst)])
			}
		}
		bad := bytes.Clone(v.ct)
		bad[len(bad)-1] ^= 0x01
		tamper("tag", bad, v.ad)
		if len(v.pt) > 0 {
			bad := bytes.Clone(v.ct)
			bad[len(v.pt)-1] ^= 0x80
			tamper("ciphertext", bad, v.ad)
		}
		if len(v.ad) > 0 {
			bad := bytes.Clone(v.ad)
			bad[0] ^= 0x01
			tamper("associated data", v.ct, bad)
		}
	}
}

func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
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

func TestNewKeySize(t *testing.T) {
	for _, n := range []int{0, 15, 17, 32} {
		if a, err := New(make([]byte, n)); err == nil || a != nil {
			t.Errorf("New with a %d-byte key: %v, %v; want an error", n, a, err)
		}
	}
}

func TestShortCiphertext(t *testing.T) {
	a, _ := New(make([]byte, KeySize))
	nonce := make([]byte, NonceSize)
	for n := range TagSize {
		if pt, err := a.Open(nil, nonce, make([]byte, n), nil); !errors.Is(err, ErrOpen) || pt != nil {
			t.Errorf("Open of %d bytes: %X, %v; want ErrOpen", n, pt, err)
		}
	}
}

func TestWrongNoncePanics(t *testing.T) {
	a, _ := New(make([]byte, KeySize))
	for _, n := range []int{0, 12, 15, 17} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Seal with a %d-byte nonce did not panic", n)
				}
			}()
			a.Seal(nil, make([]byte, n), nil, nil)
		}()
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Open with a %d-byte nonce did not panic", n)
				}
			}()
			a.Open(nil, make([]byte, n), make([]byte, TagSize), nil)
		}()
	}
}
