package core

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math/big"
	mrand "math/rand/v2"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
)

// math/big is an independent oracle here, on public test values only.

var (
	bigP    = new(big.Int).SetBytes(pBytes)
	bigN, _ = new(big.Int).SetString("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", 16)
)

func b32(x *big.Int) []byte { return x.FillBytes(make([]byte, 32)) }

func TestConstants(t *testing.T) {
	p := bigP
	one := big.NewInt(1)
	check := func(name string, got []byte, want *big.Int) {
		t.Helper()
		if !bytes.Equal(got, b32(want)) {
			t.Errorf("%s = %x, want %x", name, got, b32(want))
		}
	}
	// p = 2^256 - 2^224 + 2^192 + 2^96 - 1.
	want := new(big.Int).Lsh(one, 256)
	want.Sub(want, new(big.Int).Lsh(one, 224)).Add(want, new(big.Int).Lsh(one, 192))
	want.Add(want, new(big.Int).Lsh(one, 96)).Sub(want, one)
	check("p", pBytes, want)
	pm1 := new(big.Int).Sub(p, one)
	check("p-1", pMinus1Bytes, pm1)
	check("n-1", nMinus1Bytes, new(big.Int).Sub(bigN, one))
}

func randBig(r *mrand.Rand, mod *big.Int) *big.Int {
	b := make([]byte, 40)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(b), mod)
}

func elem(t *testing.T, x *big.Int) *Element {
	t.Helper()
	e, err := new(Element).SetBytes(b32(x))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestFieldAgainstBig(t *testing.T) {
	r := mrand.New(mrand.NewPCG(7, 9))
	p := bigP
	vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), new(big.Int).Sub(p, big.NewInt(1))}
	for len(vals) < 60 {
		vals = append(vals, randBig(r, p))
	}
	for i, xb := range vals {
		yb := vals[(i*7+3)%len(vals)]
		x, y := elem(t, xb), elem(t, yb)
		for _, c := range []struct {
			name string
			got  *Element
			want *big.Int
		}{
			{"add", new(Element).Add(x, y), new(big.Int).Add(xb, yb)},
			{"sub", new(Element).Sub(x, y), new(big.Int).Sub(xb, yb)},
			{"mul", new(Element).Mul(x, y), new(big.Int).Mul(xb, yb)},
			{"neg", new(Element).Negate(x), new(big.Int).Neg(xb)},
			{"inv", new(Element).Invert(x), new(big.Int).ModInverse(xb, p)},
			{"rhs", new(Element).CurveRHS(x), new(big.Int).Add(new(big.Int).Sub(new(big.Int).Exp(xb, big.NewInt(3), nil), new(big.Int).Mul(big.NewInt(3), xb)), new(big.Int).SetBytes(bBytes))},
		} {
			w := c.want
			if w == nil { // inverse of 0
				w = new(big.Int)
			}
			w = new(big.Int).Mod(w, p)
			if !bytes.Equal(c.got.Bytes(), b32(w)) {
				t.Fatalf("%s(%x, %x) = %x, want %x", c.name, xb, yb, c.got.Bytes(), b32(w))
			}
		}
		wantSq := 0
		if big.Jacobi(xb, p) == 1 {
			wantSq = 1
			s := new(Element).Sqrt(x)
			if new(Element).Square(s).Equal(x) != 1 {
				t.Fatalf("Sqrt(%x)² != x", xb)
			}
		}
		if got := IsSquare(x); got != wantSq {
			t.Fatalf("IsSquare(%x) = %d, want %d", xb, got, wantSq)
		}
		if got, want := x.IsOdd(), int(xb.Bit(0)); got != want {
			t.Fatalf("IsOdd(%x) = %d", xb, got)
		}
		for _, cond := range []int{0, 1} {
			want := y
			if cond == 1 {
				want = x
			}
			if new(Element).Select(x, y, cond).Equal(want) != 1 {
				t.Fatalf("Select(cond=%d) wrong", cond)
			}
		}
	}
	if _, err := new(Element).SetBytes(pBytes); err == nil {
		t.Error("SetBytes accepted p")
	}
}

func TestReductions(t *testing.T) {
	r := mrand.New(mrand.NewPCG(1, 2))
	pm1 := new(big.Int).Sub(bigP, big.NewInt(1))
	nm1 := new(big.Int).Sub(bigN, big.NewInt(1))
	for i := 0; i < 50; i++ {
		for _, n := range []int{32, 40, 48} {
			b := make([]byte, n)
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			if i == 0 {
				for j := range b {
					b[j] = 0xff
				}
			}
			v := new(big.Int).SetBytes(b)
			if got, want := new(Element).SetWideBytes(b).Bytes(), b32(new(big.Int).Mod(v, bigP)); !bytes.Equal(got, want) {
				t.Fatalf("SetWideBytes(%x) = %x, want %x", b, got, want)
			}
			want := new(big.Int).Mod(v, pm1)
			want.Add(want, big.NewInt(1))
			if got := new(Element).SetMinus1Plus1(b).Bytes(); !bytes.Equal(got, b32(want)) {
				t.Fatalf("SetMinus1Plus1(%x) = %x, want %x", b, got, b32(want))
			}
			want = new(big.Int).Mod(v, nm1)
			want.Add(want, big.NewInt(1))
			if got := ScalarMinus1Plus1(b); !bytes.Equal(got, b32(want)) {
				t.Fatalf("ScalarMinus1Plus1(%x) = %x, want %x", b, got, b32(want))
			}
		}
	}
}

func TestLessThanP(t *testing.T) {
	pm1 := b32(new(big.Int).Sub(bigP, big.NewInt(1)))
	pp1 := b32(new(big.Int).Add(bigP, big.NewInt(1)))
	for _, c := range []struct {
		b    []byte
		want int
	}{
		{make([]byte, 32), 1}, {pm1, 1}, {pBytes, 0}, {pp1, 0},
		{bytes.Repeat([]byte{0xff}, 32), 0}, {make([]byte, 31), 0},
	} {
		if got := LessThanP(c.b); got != c.want {
			t.Errorf("LessThanP(%x) = %d, want %d", c.b, got, c.want)
		}
	}
}

// TestMapToCurveSSWU checks the map against the RFC 9380 vectors of
// P256_XMD:SHA-256_SSWU_NU_, whose single u maps to Q (cofactor 1).
func TestMapToCurveSSWU(t *testing.T) {
	var v struct {
		Vectors []struct {
			U []string `json:"u"`
			Q struct {
				X string `json:"x"`
				Y string `json:"y"`
			} `json:"Q"`
		} `json:"vectors"`
	}
	testvec.JSON(t, "hash-to-curve/P256_XMD-SHA-256_SSWU_NU_.json", &v)
	if len(v.Vectors) == 0 {
		t.Fatal("no vectors")
	}
	for _, vec := range v.Vectors {
		u, err := new(Element).SetBytes(hexT(t, vec.U[0]))
		if err != nil {
			t.Fatal(err)
		}
		q, err := MapToCurveSSWU(u)
		if err != nil {
			t.Fatal(err)
		}
		want := append(hexT(t, vec.Q.X), hexT(t, vec.Q.Y)...)
		if got := EncodeElement(q); !bytes.Equal(got, want) {
			t.Errorf("SSWU(%s) = %x, want %x", vec.U[0], got, want)
		}
	}
	// The exceptional case Z²u⁴ + Zu² = 0 (u = 0) maps to a valid point.
	if _, err := MapToCurveSSWU(new(Element)); err != nil {
		t.Errorf("SSWU(0): %v", err)
	}
}

func hexT(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKDFSHA256 checks KDF-SHA-256 with rounds 1 and 2 of IEEE 802.11-2020
// Annex J.10's hunting and pecking (pwd-seed → pwd-value; see
// ../../sae/testdata for the source).
func TestKDFSHA256(t *testing.T) {
	seed, _ := hex.DecodeString("a9025368ef78f7d65e8d4d556f0d1d0d758f2f7f1e116eb1d11307a7e8a9621a")
	want, _ := hex.DecodeString("b8e89a725c57f18e8f68a7f72613e15f1c904938c38800efa01f1306f5e454b5")
	if got := KDFSHA256(seed, "SAE Hunting and Pecking", pBytes, 256); !bytes.Equal(got, want) {
		t.Errorf("KDF = %x, want %x", got, want)
	}
	if got := KDFSHA256(seed, "x", nil, 512); len(got) != 64 {
		t.Errorf("512-bit KDF gave %d bytes", len(got))
	}
}

func TestCommitRoundTrip(t *testing.T) {
	pe, err := MapToCurveSSWU(new(Element).SetWideBytes([]byte("some field element")))
	if err != nil {
		t.Fatal(err)
	}
	_, c, err := GenerateCommit(rand.Reader, pe)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseCommit(c.ScalarBytes(), c.ElementBytes())
	if err != nil {
		t.Fatal(err)
	}
	if !c.Equal(d) || CheckReflection(c, d) != ErrReflection {
		t.Error("parsed commit differs or reflection not detected")
	}
	if _, _, err := GenerateCommit(bytes.NewReader(make([]byte, 60)), pe); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("short randomness: %v, want ErrRandom", err)
	}
}

// FuzzParseCommit checks that commit parsing never panics, returns typed
// errors, and accepts only canonical encodings.
func FuzzParseCommit(f *testing.F) {
	pe, _ := MapToCurveSSWU(new(Element).SetWideBytes([]byte("fuzz")))
	_, c, _ := GenerateCommit(rand.Reader, pe)
	f.Add(c.ScalarBytes(), c.ElementBytes())
	f.Add(make([]byte, 32), make([]byte, 64))
	f.Fuzz(func(t *testing.T, scalar, element []byte) {
		c, err := ParseCommit(scalar, element)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !bytes.Equal(c.ScalarBytes(), scalar) || !bytes.Equal(EncodeElement(c.Element), element) {
			t.Fatalf("non-canonical commit accepted: %x %x", scalar, element)
		}
	})
}
