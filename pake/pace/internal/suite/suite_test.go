package suite

import (
	"bytes"
	"crypto/rand"
	"errors"
	"math/big"
	"testing"

	"github.com/kexlab/kexlab/internal/group/brainpool"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// The suite's values are checked against ICAO's worked examples by package
// pace (KnownAnswerTests); these tests cover what the examples do not.

var curves = map[string]*Curve{"P-256": P256, "brainpoolP256r1": BrainpoolP256r1}

func pBytes(c *Curve) []byte {
	if c == P256 {
		return mustHex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
	}
	return brainpool.Params().P
}

// oracleEncode is Appendix B's f_G (B.2) on math/big, an independent
// reference for public test inputs. square reports which branch it took.
func oracleEncode(p, a, b, t *big.Int) (x, y *big.Int, square bool) {
	mod := func(v *big.Int) *big.Int { return v.Mod(v, p) }
	alpha := mod(new(big.Int).Neg(new(big.Int).Mul(t, t)))
	aa := mod(new(big.Int).Add(alpha, new(big.Int).Mul(alpha, alpha)))
	inv := new(big.Int).Exp(mod(new(big.Int).Mul(a, aa)), new(big.Int).Sub(p, big.NewInt(2)), p)
	x2 := mod(new(big.Int).Mul(mod(new(big.Int).Neg(new(big.Int).Mul(b, new(big.Int).Add(big.NewInt(1), aa)))), inv))
	x3 := mod(new(big.Int).Mul(alpha, x2))
	h2 := mod(new(big.Int).Add(new(big.Int).Add(new(big.Int).Exp(x2, big.NewInt(3), p), new(big.Int).Mul(a, x2)), b))
	u := mod(new(big.Int).Mul(new(big.Int).Exp(t, big.NewInt(3), p), h2))
	q := new(big.Int).Rsh(new(big.Int).Add(p, big.NewInt(1)), 2)
	A := new(big.Int).Exp(h2, new(big.Int).Sub(new(big.Int).Sub(p, big.NewInt(1)), q), p)
	if mod(new(big.Int).Mul(new(big.Int).Mul(A, A), h2)).Cmp(big.NewInt(1)) == 0 {
		return x2, mod(new(big.Int).Mul(A, h2)), true
	}
	return x3, mod(new(big.Int).Mul(A, u)), false
}

// TestPointEncoding compares Reduce and f_G with math/big on both curves
// for random inputs, checks that both branches of f_G are taken and that
// every output lies on the curve (Decode accepts it). Appendix H.1 covers
// brainpoolP256r1 with a fixed value; nothing covers P-256 but this.
func TestPointEncoding(t *testing.T) {
	for name, c := range curves {
		f := c.field
		p := new(big.Int).SetBytes(pBytes(c))
		a := new(big.Int).SetBytes(f.a.Bytes(f.p))
		b := new(big.Int).SetBytes(f.b.Bytes(f.p))
		squares, nonSquares := 0, 0
		for range 40 {
			r := make([]byte, 48)
			rand.Read(r)
			tt := new(big.Int).Mod(new(big.Int).SetBytes(r), p)
			rp := c.Reduce(r)
			if !bytes.Equal(rp, tt.FillBytes(make([]byte, 32))) {
				t.Fatalf("%s: Reduce(%x) = %x, want %x", name, r, rp, tt)
			}
			x, y, square := oracleEncode(p, a, b, tt)
			want := append([]byte{4}, append(x.FillBytes(make([]byte, 32)), y.FillBytes(make([]byte, 32))...)...)
			got, err := c.Encode(rp)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: f_G(%x) = %x, %v; want %x", name, tt, got, err, want)
			}
			if _, err := c.Decode(got); err != nil {
				t.Fatalf("%s: f_G output off the curve: %v", name, err)
			}
			if square {
				squares++
			} else {
				nonSquares++
			}
		}
		// Each branch has probability about 1/2.
		if squares == 0 || nonSquares == 0 {
			t.Errorf("%s: branches taken %d and %d times", name, squares, nonSquares)
		}
		if _, err := c.Encode(pBytes(c)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("%s: Encode(p) = %v", name, err)
		}
		if _, err := c.Encode(make([]byte, 31)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("%s: Encode of 31 bytes = %v", name, err)
		}
	}
}

// TestPseudoRandom: R gives three AES blocks for 256-bit primes
// (n = ⌈(256 + 64)/128⌉) and takes only 16-byte nonces.
func TestPseudoRandom(t *testing.T) {
	x, err := PseudoRandom(make([]byte, 16), make([]byte, 16))
	if err != nil || len(x) != 48 {
		t.Fatalf("%d bytes, %v", len(x), err)
	}
	for _, c := range [][2]int{{15, 16}, {16, 15}, {16, 24}, {32, 16}, {16, 32}} {
		if _, err := PseudoRandom(make([]byte, c[0]), make([]byte, c[1])); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("nonces of %d and %d bytes: %v", c[0], c[1], err)
		}
	}
}

// TestPublicKeyDO checks the data object's DER lengths, short and long.
func TestPublicKeyDO(t *testing.T) {
	oid := []byte{0x04, 0x00, 0x7f, 0x00, 0x07, 0x02, 0x02, 0x04, 0x02, 0x02}
	for _, c := range []struct {
		n          int
		head, body []byte
	}{
		{65, []byte{0x86, 0x41}, []byte{0x7f, 0x49, 0x4f}},
		{127, []byte{0x86, 0x7f}, []byte{0x7f, 0x49, 0x81, 0x8d}},
		{128, []byte{0x86, 0x81, 0x80}, []byte{0x7f, 0x49, 0x81, 0x8f}},
		{256, []byte{0x86, 0x82, 0x01, 0x00}, []byte{0x7f, 0x49, 0x82, 0x01, 0x10}},
	} {
		want := append(append(append(bytes.Clone(c.body), 0x06, 0x0a), oid...), c.head...)
		want = append(want, make([]byte, c.n)...)
		if got := PublicKeyDO(oid, make([]byte, c.n)); !bytes.Equal(got, want) {
			t.Errorf("%d-byte key: %x, want %x", c.n, got, want)
		}
	}
}

func TestNonceAndKeyErrors(t *testing.T) {
	if _, err := EncryptNonce(make([]byte, 16), make([]byte, 15)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("15-byte s: %v", err)
	}
	if _, err := EncryptNonce(make([]byte, 15), make([]byte, 16)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("15-byte K_pi: %v", err)
	}
	for _, n := range []int{0, 15, 17, 32} {
		if _, err := DecryptNonce(make([]byte, 16), make([]byte, n)); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("%d-byte z: %v", n, err)
		}
	}
	if _, err := Token(make([]byte, 15), nil, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("15-byte K_mac: %v", err)
	}
}

// FuzzIntegratedMapping: for any nonces s and t, the mapping never panics
// and, for 16-byte nonces, gives a point on either curve.
func FuzzIntegratedMapping(f *testing.F) {
	f.Add(make([]byte, 16), make([]byte, 16), false)
	f.Add(mustHex("2923BE84E16CD6AE529049F1F1BBE9EB"), mustHex("5DD4CBFC96F5453B130D890A1CDBAE32"), true)
	f.Fuzz(func(t *testing.T, s, tt []byte, bp bool) {
		c := P256
		if bp {
			c = BrainpoolP256r1
		}
		g, err := c.IntegratedMapping(s, tt)
		if len(s) == NonceSize && len(tt) == NonceSize {
			if err != nil || g.IsIdentity() {
				t.Fatalf("s=%x t=%x: %v", s, tt, err)
			}
			return
		}
		if !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Fatalf("nonces of %d and %d bytes: %v", len(s), len(tt), err)
		}
	})
}

// FuzzDecode: Decode never panics, and accepts only 65-byte uncompressed
// encodings that re-encode to themselves.
func FuzzDecode(f *testing.F) {
	f.Add(P256.BaseMul([]byte{1}).Bytes(), false)
	f.Add(BrainpoolP256r1.BaseMul([]byte{1}).Bytes(), true)
	f.Fuzz(func(t *testing.T, b []byte, bp bool) {
		c := P256
		if bp {
			c = BrainpoolP256r1
		}
		p, err := c.Decode(b)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !bytes.Equal(p.Bytes(), b) {
			t.Fatalf("Decode(%x) re-encodes as %x", b, p.Bytes())
		}
	})
}
