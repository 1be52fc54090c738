package ascon

import (
	"bytes"
	"testing"
)

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
