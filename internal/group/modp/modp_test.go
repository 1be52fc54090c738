package modp

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
)

// srpVector is one entry of shared/vectors/srp/{rfc5054,srptools}.json:
// hexadecimal with optional spaces, leading zeros sometimes dropped. Keys
// that differ only in case ("k" and "K") are all tagged, since encoding/json
// matches keys case-insensitively.
type srpVector struct {
	H       string `json:"H"`
	Size    int    `json:"size"`
	N       string `json:"N"`
	G       string `json:"g"`
	K       string `json:"k"`
	X       string `json:"x"`
	V       string `json:"v"`
	PrivA   string `json:"a"`
	PrivB   string `json:"b"`
	A       string `json:"A"`
	B       string `json:"B"`
	U       string `json:"u"`
	S       string `json:"S"`
	Salt    string `json:"s"`
	Session string `json:"K"`
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.Join(strings.Fields(s), "")
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toInt(b []byte) *big.Int { return new(big.Int).SetBytes(b) }

// TestModPSRPVectors checks every N and g of the shared SRP vectors against
// the groups, and the SRP group arithmetic on the vectors' fixed values (no
// hashing: k, x and u are taken from the vector): v = g^x, A = g^a,
// B = k*v + g^b, and S computed by both sides, (B - k*g^x)^(a + u*x) and
// (A * v^u)^b (RFC 5054 §2.5.3, §2.5.4, §2.6).
func TestModPSRPVectors(t *testing.T) {
	for _, file := range []string{"srp/rfc5054.json", "srp/srptools.json"} {
		var doc struct{ TestVectors []srpVector }
		testvec.JSON(t, file, &doc)
		if len(doc.TestVectors) == 0 {
			t.Fatalf("%s: no vectors", file)
		}
		for i, v := range doc.TestVectors {
			t.Run(fmt.Sprintf("%s/%d-%d-%s", file, i, v.Size, v.H), func(t *testing.T) {
				g, err := RFC5054Group(v.Size)
				if err != nil {
					t.Fatal(err)
				}
				if toInt(unhex(t, v.N)).Cmp(toInt(g.P())) != 0 || toInt(unhex(t, v.G)).Cmp(toInt(g.G())) != 0 {
					t.Fatal("N or g differs from the RFC 5054 group")
				}
				x, a, b, u := unhex(t, v.X), unhex(t, v.PrivA), unhex(t, v.PrivB), unhex(t, v.U)
				k := g.Reduce(unhex(t, v.K))
				check := func(name string, got *Element, want string) {
					t.Helper()
					if toInt(got.Bytes()).Cmp(toInt(unhex(t, want))) != 0 {
						t.Errorf("%s = %x, want %s", name, got.Bytes(), want)
					}
				}
				vv := g.ExpBase(x)
				check("v = g^x", vv, v.V)
				check("v = Exp(g, x)", g.Exp(g.Generator(), x), v.V)
				A := g.ExpBase(a)
				check("A = g^a", A, v.A)
				B := g.Add(g.Mul(k, vv), g.ExpBase(b))
				check("B = k*v + g^b", B, v.B)
				client := g.Exp(g.Sub(B, g.Mul(k, g.ExpBase(x))), ExponentMulAdd(u, x, a))
				check("client S", client, v.S)
				server := g.Exp(g.Mul(A, g.Exp(vv, u)), b)
				check("server S", server, v.S)
				// The wire values decode and re-encode as PAD().
				for _, w := range []string{v.A, v.B} {
					pad := toInt(unhex(t, w)).FillBytes(make([]byte, g.Size()))
					e, err := g.ParseElement(pad)
					if err != nil || !bytes.Equal(e.Bytes(), pad) || e.CheckNonTrivial() != nil {
						t.Errorf("ParseElement(PAD(%s...)): %v", w[:8], err)
					}
				}
			})
		}
	}
}

func randInt(r *rand.Rand, max *big.Int) *big.Int {
	b := make([]byte, len(max.Bytes())+8)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(b), max)
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestModPOracle compares every operation with math/big on random public
// values, for every group.
func TestModPOracle(t *testing.T) {
	for i, g := range allModP(t) {
		t.Run(g.Name(), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewChaCha8([32]byte{'m', 'o', 'd', 'p', byte(i)}))
			p := toInt(g.P())
			elem := func(x *big.Int) *Element {
				e, err := g.ParseElement(x.FillBytes(make([]byte, g.Size())))
				if err != nil {
					t.Fatal(err)
				}
				return e
			}
			eq := func(op string, got *Element, want *big.Int) {
				t.Helper()
				if toInt(got.Bytes()).Cmp(want) != 0 || len(got.Bytes()) != g.Size() {
					t.Errorf("%s: got %x, want %x", op, got.Bytes(), want)
				}
			}
			gen := toInt(g.G())
			lens := []int{0, 1, 20, 32, 63, 64, 65, g.Size()}
			if testing.Short() && g.BitLen() > 3072 {
				lens = lens[:7]
			}
			for _, n := range lens {
				xb := new(big.Int).Add(randInt(r, new(big.Int).Sub(p, big.NewInt(1))), big.NewInt(1))
				e := randBytes(r, n)
				ei := toInt(e)
				eq(fmt.Sprintf("Exp/%d", n), g.Exp(elem(xb), e), new(big.Int).Exp(xb, ei, p))
				eq(fmt.Sprintf("ExpBase/%d", n), g.ExpBase(e), new(big.Int).Exp(gen, ei, p))
			}
			// Exponents with extreme digits: all 0x00 but one, all 0xff.
			for _, e := range [][]byte{bytes.Repeat([]byte{0xff}, 64), append(make([]byte, 31), 1), {0x80, 0}} {
				eq("ExpBase/edge", g.ExpBase(e), new(big.Int).Exp(gen, toInt(e), p))
			}
			for i := 0; i < 8; i++ {
				x, y := randInt(r, p), randInt(r, p)
				if i == 0 {
					x, y = new(big.Int).Sub(p, big.NewInt(1)), new(big.Int).Sub(p, big.NewInt(1))
				}
				xe, ye := g.Reduce(x.Bytes()), g.Reduce(y.Bytes())
				eq("Mul", g.Mul(xe, ye), new(big.Int).Mod(new(big.Int).Mul(x, y), p))
				eq("Add", g.Add(xe, ye), new(big.Int).Mod(new(big.Int).Add(x, y), p))
				eq("Sub", g.Sub(xe, ye), new(big.Int).Mod(new(big.Int).Sub(x, y), p))
				eq("Sub self", g.Sub(xe, xe), new(big.Int))
				if xe.Equal(ye) != boolInt(x.Cmp(y) == 0) || xe.Equal(g.Reduce(x.Bytes())) != 1 {
					t.Error("Equal")
				}
			}
			for _, n := range []int{0, 1, g.Size() - 1, g.Size(), g.Size() + 1, 3*g.Size() + 5} {
				b := randBytes(r, n)
				eq(fmt.Sprintf("Reduce/%d", n), g.Reduce(b), new(big.Int).Mod(toInt(b), p))
				ff := bytes.Repeat([]byte{0xff}, n)
				eq(fmt.Sprintf("Reduce/ff%d", n), g.Reduce(ff), new(big.Int).Mod(toInt(ff), p))
			}
			eq("Reduce(p)", g.Reduce(g.P()), new(big.Int))
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestModPElementChecks(t *testing.T) {
	g, _ := RFC5054Group(1024)
	p := toInt(g.P())
	pad := func(x *big.Int) []byte { return x.FillBytes(make([]byte, g.Size())) }
	one, two := big.NewInt(1), big.NewInt(2)
	pm1 := new(big.Int).Sub(p, one)
	good := []struct {
		x                   *big.Int
		zero, isOne, minus1 int
		trivial             bool
	}{
		{one, 0, 1, 0, true},
		{pm1, 0, 0, 1, true},
		{two, 0, 0, 0, false},
		{new(big.Int).Sub(p, two), 0, 0, 0, false},
	}
	for _, c := range good {
		e, err := g.ParseElement(pad(c.x))
		if err != nil {
			t.Fatalf("ParseElement(%x): %v", c.x, err)
		}
		if !bytes.Equal(e.Bytes(), pad(c.x)) || e.IsZero() != c.zero || e.IsOne() != c.isOne || e.IsMinusOne() != c.minus1 {
			t.Errorf("%x: Bytes/IsZero/IsOne/IsMinusOne wrong", c.x)
		}
		err = e.CheckNonTrivial()
		if (err != nil) != c.trivial || (err != nil && !errors.Is(err, ErrInvalidElement)) {
			t.Errorf("CheckNonTrivial(%x) = %v", c.x, err)
		}
	}
	if z := g.Sub(g.Generator(), g.Generator()); z.IsZero() != 1 || z.CheckNonTrivial() == nil {
		t.Error("zero element not flagged")
	}
	bad := map[string][]byte{
		"empty":   nil,
		"short":   pad(two)[1:],
		"long":    append([]byte{0}, pad(two)...),
		"zero":    make([]byte, g.Size()),
		"p":       pad(p),
		"p+1":     pad(new(big.Int).Add(p, one)),
		"all-ff":  bytes.Repeat([]byte{0xff}, g.Size()),
		"p-1 w/0": append([]byte{0}, pad(pm1)...),
	}
	for name, b := range bad {
		e, err := g.ParseElement(b)
		if e != nil || !errors.Is(err, ErrInvalidElement) || !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("%s: ParseElement = %v, %v", name, e, err)
		}
	}
}

func TestModPMixedGroupsPanic(t *testing.T) {
	g1, _ := RFC5054Group(3072)
	g2 := RFC3526Group15()
	defer func() {
		if recover() == nil {
			t.Error("mixing groups did not panic")
		}
	}()
	g1.Mul(g1.Generator(), g2.Generator())
}

func TestModPExponentMulAdd(t *testing.T) {
	r := rand.New(rand.NewChaCha8([32]byte{'e', 'x', 'p'}))
	sizes := []int{0, 1, 7, 8, 9, 20, 32, 64, 100}
	for _, lu := range sizes {
		for _, lx := range sizes {
			for _, la := range []int{0, 1, 32, 200} {
				u, x, a := randBytes(r, lu), randBytes(r, lx), randBytes(r, la)
				if lu == 20 { // all-ones inputs give the largest results
					u, x, a = bytes.Repeat([]byte{0xff}, lu), bytes.Repeat([]byte{0xff}, lx), bytes.Repeat([]byte{0xff}, la)
				}
				got := ExponentMulAdd(u, x, a)
				want := new(big.Int).Mul(toInt(u), toInt(x))
				want.Add(want, toInt(a))
				if len(got) != max(la, lu+lx)+1 || toInt(got).Cmp(want) != 0 {
					t.Fatalf("ExponentMulAdd(%d,%d,%d bytes) = %x, want %x", lu, lx, la, got, want)
				}
			}
		}
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestModPRandomExponent(t *testing.T) {
	want := bytes.Repeat([]byte{0xa5}, ExponentSize)
	// A zero draw is skipped; the next draw is returned as is.
	src := append(make([]byte, ExponentSize), want...)
	e, err := RandomExponent(bytes.NewReader(src), ExponentSize)
	if err != nil || !bytes.Equal(e, want) {
		t.Fatalf("RandomExponent = %x, %v", e, err)
	}
	if _, err := RandomExponent(errReader{}, 32); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("failing reader: %v", err)
	}
	if _, err := RandomExponent(bytes.NewReader(want[:10]), 32); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("short reader: %v", err)
	}
	if _, err := RandomExponent(bytes.NewReader(want), 0); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("size 0: %v", err)
	}
}

// FuzzModPElement decodes arbitrary bytes as an element of the 1024-bit
// group and reduces them mod p, checking both against math/big.
func FuzzModPElement(f *testing.F) {
	g, _ := RFC5054Group(1024)
	p := toInt(g.P())
	f.Add(g.P())
	f.Add(make([]byte, g.Size()))
	f.Add(new(big.Int).Sub(p, big.NewInt(1)).FillBytes(make([]byte, g.Size())))
	f.Add(big.NewInt(1).FillBytes(make([]byte, g.Size())))
	f.Add([]byte{2})
	f.Fuzz(func(t *testing.T, b []byte) {
		x := toInt(b)
		e, err := g.ParseElement(b)
		valid := len(b) == g.Size() && x.Sign() > 0 && x.Cmp(p) < 0
		if valid != (err == nil) {
			t.Fatalf("ParseElement(%x): err %v, valid %v", b, err, valid)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidElement) || !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Fatalf("error %v does not wrap the sentinels", err)
			}
		} else {
			if !bytes.Equal(e.Bytes(), b) {
				t.Fatal("round trip")
			}
			trivial := x.Cmp(big.NewInt(1)) == 0 || new(big.Int).Add(x, big.NewInt(1)).Cmp(p) == 0
			if (e.CheckNonTrivial() != nil) != trivial {
				t.Fatal("CheckNonTrivial")
			}
		}
		if toInt(g.Reduce(b).Bytes()).Cmp(new(big.Int).Mod(x, p)) != 0 {
			t.Fatal("Reduce")
		}
	})
}

func benchGroups(b *testing.B, f func(b *testing.B, g *Group)) {
	for _, bits := range rfc5054Sizes {
		g, err := RFC5054Group(bits)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint(bits), func(b *testing.B) { f(b, g) })
	}
}

func benchExponents(b *testing.B, g *Group, f func(b *testing.B, e []byte)) {
	r := rand.New(rand.NewChaCha8([32]byte{}))
	for _, c := range []struct {
		name string
		n    int
	}{{"exp=256", 32}, {"exp=full", g.Size()}} {
		e := randBytes(r, c.n)
		b.Run(c.name, func(b *testing.B) { f(b, e) })
	}
}

func BenchmarkModPExp(b *testing.B) {
	benchGroups(b, func(b *testing.B, g *Group) {
		x := g.Reduce(randBytes(rand.New(rand.NewChaCha8([32]byte{1})), g.Size()))
		benchExponents(b, g, func(b *testing.B, e []byte) {
			for b.Loop() {
				g.Exp(x, e)
			}
		})
	})
}

func BenchmarkModPExpBase(b *testing.B) {
	benchGroups(b, func(b *testing.B, g *Group) {
		g.ExpBase([]byte{1}) // build the table outside the timing
		benchExponents(b, g, func(b *testing.B, e []byte) {
			for b.Loop() {
				g.ExpBase(e)
			}
		})
	})
}

func BenchmarkModPMul(b *testing.B) {
	benchGroups(b, func(b *testing.B, g *Group) {
		x := g.Reduce(randBytes(rand.New(rand.NewChaCha8([32]byte{2})), g.Size()))
		for b.Loop() {
			g.Mul(x, x)
		}
	})
}

func BenchmarkModPExponentMulAdd(b *testing.B) {
	u, x, a := make([]byte, 32), make([]byte, 32), make([]byte, 32)
	for b.Loop() {
		ExponentMulAdd(u, x, a)
	}
}
