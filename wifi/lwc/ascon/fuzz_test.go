package ascon

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzOpen feeds arbitrary keys, nonces, ciphertexts and associated data to
// Open. It must never panic for a correct-length nonce; each input either
// fails with ErrOpen (leaving dst's spare capacity zeroed) or opens to a
// plaintext that seals back to the same ciphertext.
func FuzzOpen(f *testing.F) {
	f.Add(make([]byte, KeySize), make([]byte, NonceSize), make([]byte, TagSize), []byte{})
	f.Add(bytes.Repeat([]byte{1}, KeySize), make([]byte, NonceSize), make([]byte, 40), []byte("ad"))
	f.Add([]byte("short key"), make([]byte, 3), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, key, nonce, ct, ad []byte) {
		a, err := New(key)
		if len(key) != KeySize {
			if err == nil {
				t.Fatalf("New accepted a %d-byte key", len(key))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(nonce) != NonceSize {
			return // cipher.AEAD panics on a wrong nonce length by contract.
		}
		dst := make([]byte, 0, len(ct))
		pt, err := a.Open(dst, nonce, ct, ad)
		if err != nil {
			if !errors.Is(err, ErrOpen) || pt != nil {
				t.Fatalf("Open = %x, %v", pt, err)
			}
			for _, b := range dst[:cap(dst)] {
				if b != 0 {
					t.Fatal("plaintext left in dst after a failed Open")
				}
			}
			return
		}
		if got := a.Seal(nil, nonce, pt, ad); !bytes.Equal(got, ct) {
			t.Fatalf("Open accepted %x, but Seal gives %x", ct, got)
		}
	})
}

// FuzzSealOpen seals arbitrary plaintexts and checks that they open again,
// in place and not, and that a changed byte makes Open fail.
func FuzzSealOpen(f *testing.F) {
	f.Add(make([]byte, KeySize), make([]byte, NonceSize), []byte("plaintext"), []byte("ad"), uint16(0))
	f.Add(make([]byte, KeySize), make([]byte, NonceSize), make([]byte, 33), []byte{}, uint16(7))
	f.Fuzz(func(t *testing.T, key, nonce, pt, ad []byte, flip uint16) {
		if len(key) != KeySize || len(nonce) != NonceSize {
			return
		}
		a, err := New(key)
		if err != nil {
			t.Fatal(err)
		}
		ct := a.Seal(nil, nonce, pt, ad)
		if len(ct) != len(pt)+TagSize {
			t.Fatalf("ciphertext is %d bytes for %d of plaintext", len(ct), len(pt))
		}
		buf := bytes.Clone(pt)
		if got := a.Seal(buf[:0], nonce, buf, ad); !bytes.Equal(got, ct) {
			t.Fatal("in-place Seal differs")
		}
		got, err := a.Open(nil, nonce, ct, ad)
		if err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("Open = %x, %v; want %x", got, err, pt)
		}
		bad := bytes.Clone(ct)
		bad[int(flip)%len(bad)] ^= 1 << (flip % 8)
		if _, err := a.Open(bad[:0], nonce, bad, ad); !errors.Is(err, ErrOpen) {
			t.Fatalf("Open of a modified ciphertext: %v", err)
		}
	})
}

// FuzzXOF checks that XOF output does not depend on how input and output
// are split, and that Sum256 agrees with the streaming hash.
func FuzzXOF(f *testing.F) {
	f.Add([]byte("message"), []byte("Z"), uint8(3), uint8(5))
	f.Fuzz(func(t *testing.T, msg, z []byte, wsplit, rsplit uint8) {
		x, err := NewCXOF128(z)
		if len(z) > MaxCustomizationSize {
			if err == nil {
				t.Fatal("NewCXOF128 accepted a long Z")
			}
			x = NewXOF128()
		} else if err != nil {
			t.Fatal(err)
		}
		y := *x
		x.Write(msg)
		want := make([]byte, 50)
		x.Read(want)
		w := int(wsplit) % (len(msg) + 1)
		y.Write(msg[:w])
		y.Write(msg[w:])
		r := int(rsplit) % 51
		got := make([]byte, 50)
		y.Read(got[:r])
		y.Read(got[r:])
		if !bytes.Equal(got, want) {
			t.Fatalf("split at %d/%d: %x, want %x", w, r, got, want)
		}
		h := NewHash256()
		h.Write(msg[:w])
		h.Write(msg[w:])
		if s := Sum256(msg); !bytes.Equal(h.Sum(nil), s[:]) {
			t.Fatal("Sum256 differs from the streaming hash")
		}
	})
}
