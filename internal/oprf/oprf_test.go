package oprf

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// a31 is testdata/rfc9497_a31_p256_sha256_oprf.json: RFC 9497 Appendix
// A.3.1, P256-SHA256 in OPRF mode.
type a31 struct {
	Seed, KeyInfo, SkSm string
	Vectors             []struct {
		Name                                                    string
		Input, Blind, BlindedElement, EvaluationElement, Output string
	}
}

func readA31(t *testing.T) *a31 {
	t.Helper()
	b, err := os.ReadFile("testdata/rfc9497_a31_p256_sha256_oprf.json")
	if err != nil {
		t.Fatal(err)
	}
	var v a31
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Vectors) != 2 {
		t.Fatalf("%d vectors, want the 2 of A.3.1", len(v.Vectors))
	}
	return &v
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVectors runs RFC 9497 Appendix A.3.1: skSm from Seed and KeyInfo,
// then for each vector BlindedElement, EvaluationElement and Output.
func TestVectors(t *testing.T) {
	v := readA31(t)
	sk, err := DeriveKeyPair(unhex(t, v.Seed), unhex(t, v.KeyInfo))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sk.Bytes(), unhex(t, v.SkSm); !bytes.Equal(got, want) {
		t.Fatalf("skSm = %x, want %x", got, want)
	}
	for _, tv := range v.Vectors {
		input := unhex(t, tv.Input)
		blind, err := group.NewScalar().SetCanonicalBytes(unhex(t, tv.Blind))
		if err != nil {
			t.Fatal(err)
		}
		blinded, err := BlindWith(blind, input)
		if err != nil {
			t.Fatal(err)
		}
		if want := unhex(t, tv.BlindedElement); !bytes.Equal(blinded, want) {
			t.Errorf("%s: BlindedElement = %x, want %x", tv.Name, blinded, want)
		}
		// Blind with the blind replayed from a reader gives the same.
		r, blinded2, err := Blind(bytes.NewReader(append(make([]byte, 16), unhex(t, tv.Blind)...)), input)
		if err != nil {
			t.Fatal(err)
		}
		if r.Equal(blind) != 1 || !bytes.Equal(blinded2, blinded) {
			t.Errorf("%s: Blind(rand) differs from BlindWith", tv.Name)
		}
		b, err := DeserializeElement(unhex(t, tv.BlindedElement))
		if err != nil {
			t.Fatal(err)
		}
		evaluated := BlindEvaluate(sk, b)
		if want := unhex(t, tv.EvaluationElement); !bytes.Equal(evaluated, want) {
			t.Errorf("%s: EvaluationElement = %x, want %x", tv.Name, evaluated, want)
		}
		z, err := DeserializeElement(unhex(t, tv.EvaluationElement))
		if err != nil {
			t.Fatal(err)
		}
		out, err := Finalize(input, blind, z)
		if err != nil {
			t.Fatal(err)
		}
		if want := unhex(t, tv.Output); !bytes.Equal(out, want) {
			t.Errorf("%s: Output = %x, want %x", tv.Name, out, want)
		}
	}
}

// TestRoundTrip checks that the output does not depend on the blind and
// that a different key gives a different output.
func TestRoundTrip(t *testing.T) {
	sk, err := DeriveKeyPair([]byte("seed"), []byte("info"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := DeriveKeyPair([]byte("seed"), []byte("other"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(k *group.Scalar) []byte {
		blind, blinded, err := Blind(rand.Reader, []byte("input"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := DeserializeElement(blinded)
		if err != nil {
			t.Fatal(err)
		}
		z, err := DeserializeElement(BlindEvaluate(k, b))
		if err != nil {
			t.Fatal(err)
		}
		out, err := Finalize([]byte("input"), blind, z)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if a, b := run(sk), run(sk); !bytes.Equal(a, b) {
		t.Error("two blinds gave two outputs")
	}
	if bytes.Equal(run(sk), run(other)) {
		t.Error("two keys gave the same output")
	}
}

func TestErrors(t *testing.T) {
	long := make([]byte, MaxInputSize+1)
	one := group.NewScalar().SetReducedBytes([]byte{1})
	zero := group.NewScalar()
	if _, _, err := Blind(rand.Reader, long); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("Blind(long input) = %v", err)
	}
	if _, _, err := Blind(bytes.NewReader(nil), []byte("x")); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("Blind(empty reader) = %v", err)
	}
	if _, err := BlindWith(zero, []byte("x")); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("BlindWith(0) = %v", err)
	}
	if _, err := DeriveKeyPair(nil, long); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("DeriveKeyPair(long info) = %v", err)
	}
	g := group.NewGenerator()
	if _, err := Finalize(long, one, g); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("Finalize(long input) = %v", err)
	}
	if _, err := Finalize(nil, zero, g); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("Finalize(zero blind) = %v", err)
	}
	for _, b := range [][]byte{nil, make([]byte, ElementSize), g.Bytes(), append([]byte{2}, bytes.Repeat([]byte{0xff}, 32)...)} {
		if _, err := DeserializeElement(b); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("DeserializeElement(%x) = %v", b, err)
		}
	}
}

// FuzzDeserializeElement checks that DeserializeElement never panics,
// returns typed errors, and that what it accepts serializes back to the
// same bytes.
func FuzzDeserializeElement(f *testing.F) {
	f.Add(group.NewGenerator().BytesCompressed())
	f.Add([]byte("\x03\x72\x3a\x1e\x5c\x09\xb8\xb9\xc1\x8d\x1d\xcb\xca\x29\xe8\x00\x7e\x95\xf1\x4f\x47\x32\xd9\x34\x6d\x49\x0f\xfc\x19\x51\x10\x36\x8d"))
	f.Add([]byte{})
	f.Add(make([]byte, ElementSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DeserializeElement(b)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if p.IsIdentity() == 1 {
			t.Fatal("accepted the identity")
		}
		if !bytes.Equal(p.BytesCompressed(), b) {
			t.Fatalf("round trip: %x became %x", b, p.BytesCompressed())
		}
	})
}

func BenchmarkBlind(b *testing.B) {
	for b.Loop() {
		if _, _, err := Blind(rand.Reader, []byte("password")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFinalize(b *testing.B) {
	blind, _ := group.RandomScalar(rand.Reader)
	z := group.NewGenerator()
	for b.Loop() {
		if _, err := Finalize([]byte("password"), blind, z); err != nil {
			b.Fatal(err)
		}
	}
}
