package ace

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzOpen feeds arbitrary keys, nonces, ciphertexts and associated data
// to New and Open: they never panic, and Open either fails with ErrOpen or
// returns a plaintext that Seal maps back to the same ciphertext.
func FuzzOpen(f *testing.F) {
	f.Add(make([]byte, KeySize), make([]byte, NonceSize), make([]byte, TagSize+5), []byte("ad"))
	f.Add([]byte("short"), []byte("n"), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, key, nonce, ct, ad []byte) {
		ct, ad = capLen(ct), capLen(ad)
		a, err := New(key)
		if err != nil {
			if len(key) == KeySize {
				t.Fatalf("New rejected a %d-byte key: %v", len(key), err)
			}
			return
		}
		// A wrong nonce length panics by the cipher.AEAD contract; fit it.
		nonce = append(bytes.Clone(nonce), make([]byte, NonceSize)...)[:NonceSize]
		pt, err := a.Open(nil, nonce, ct, ad)
		if err != nil {
			if !errors.Is(err, ErrOpen) || pt != nil {
				t.Fatalf("Open = %x, %v", pt, err)
			}
			return
		}
		if got := a.Seal(nil, nonce, pt, ad); !bytes.Equal(got, ct) {
			t.Fatalf("Seal(Open(ct)) = %x, want %x", got, ct)
		}
	})
}

// FuzzSealOpen checks that Open inverts Seal for arbitrary inputs, also in
// place, and that a ciphertext with any one bit flipped is rejected.
func FuzzSealOpen(f *testing.F) {
	f.Add(make([]byte, KeySize), make([]byte, NonceSize), []byte("hello, ACE"), []byte("ad"), uint16(3))
	f.Fuzz(func(t *testing.T, key, nonce, pt, ad []byte, flip uint16) {
		pt, ad = capLen(pt), capLen(ad)
		key = append(bytes.Clone(key), make([]byte, KeySize)...)[:KeySize]
		nonce = append(bytes.Clone(nonce), make([]byte, NonceSize)...)[:NonceSize]
		a, err := New(key)
		if err != nil {
			t.Fatal(err)
		}
		ct := a.Seal(nil, nonce, pt, ad)
		if len(ct) != len(pt)+TagSize {
			t.Fatalf("len(Seal) = %d, want %d", len(ct), len(pt)+TagSize)
		}
		got, err := a.Open(nil, nonce, ct, ad)
		if err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("Open(Seal(pt)) = %x, %v; want %x", got, err, pt)
		}
		buf := append(bytes.Clone(pt), make([]byte, TagSize)...)
		if in := a.Seal(buf[:0], nonce, buf[:len(pt)], ad); !bytes.Equal(in, ct) {
			t.Fatalf("in-place Seal = %x, want %x", in, ct)
		}
		if in, err := a.Open(buf[:0], nonce, buf, ad); err != nil || !bytes.Equal(in, pt) {
			t.Fatalf("in-place Open = %x, %v; want %x", in, err, pt)
		}
		bit := int(flip) % (8 * len(ct))
		ct[bit/8] ^= 1 << (bit % 8)
		if got, err := a.Open(nil, nonce, ct, ad); !errors.Is(err, ErrOpen) || got != nil {
			t.Fatalf("Open with bit %d flipped = %x, %v; want ErrOpen", bit, got, err)
		}
	})
}

// capLen truncates fuzz inputs to 1 KiB so each iteration stays within
// microseconds; longer inputs exercise no further code paths.
func capLen(b []byte) []byte {
	return b[:min(len(b), 1024)]
}
