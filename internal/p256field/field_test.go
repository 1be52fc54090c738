package p256field

import (
	"bytes"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The tests use math/big as an independent oracle on public random values.

var bigP, _ = new(big.Int).SetString("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", 16)

func bigBytes(x *big.Int) []byte { return x.FillBytes(make([]byte, 32)) }

// testValues returns edge cases and random values below p.
func testValues(r *rand.Rand, n int) []*big.Int {
	pm1 := new(big.Int).Sub(bigP, big.NewInt(1))
	vals := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(10),
		pm1, new(big.Int).Sub(bigP, big.NewInt(2)),
		new(big.Int).Lsh(big.NewInt(1), 255),
		new(big.Int).Lsh(big.NewInt(1), 224),
		new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 192), big.NewInt(1)),
		new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 96), big.NewInt(1)),
	}
	for len(vals) < n {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		// Bias some values toward long runs of 0xff and 0x00 limbs.
		if r.IntN(4) == 0 {
			for i := range 4 {
				switch r.IntN(3) {
				case 0:
					copy(b[8*i:], bytes.Repeat([]byte{0xff}, 8))
				case 1:
					copy(b[8*i:], make([]byte, 8))
				}
			}
		}
		v := new(big.Int).SetBytes(b)
		vals = append(vals, v.Mod(v, bigP))
	}
	return vals
}

func toElement(t *testing.T, x *big.Int) *Element {
	t.Helper()
	e, err := new(Element).SetBytes(bigBytes(x))
	if err != nil {
		t.Fatalf("SetBytes(%x): %v", x, err)
	}
	return e
}

func checkEqual(t *testing.T, op string, got *Element, want *big.Int) {
	t.Helper()
	if g := got.Bytes(); !bytes.Equal(g, bigBytes(want)) {
		t.Fatalf("%s: got %x, want %x", op, g, bigBytes(want))
	}
}

func TestArithmeticAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := testValues(r, 200)
	for i, xb := range vals {
		yb := vals[(i*7+3)%len(vals)]
		x, y := toElement(t, xb), toElement(t, yb)
		mod := func(v *big.Int) *big.Int { return v.Mod(v, bigP) }

		checkEqual(t, "Bytes", x, xb)
		checkEqual(t, "Add", new(Element).Add(x, y), mod(new(big.Int).Add(xb, yb)))
		checkEqual(t, "Sub", new(Element).Sub(x, y), mod(new(big.Int).Sub(xb, yb)))
		checkEqual(t, "Negate", new(Element).Negate(x), mod(new(big.Int).Neg(xb)))
		checkEqual(t, "Mul", new(Element).Mul(x, y), mod(new(big.Int).Mul(xb, yb)))
		checkEqual(t, "Square", new(Element).Square(x), mod(new(big.Int).Mul(xb, xb)))

		c1 := new(big.Int).Rsh(new(big.Int).Sub(bigP, big.NewInt(3)), 2)
		checkEqual(t, "PowC1", new(Element).PowC1(x), new(big.Int).Exp(xb, c1, bigP))
		inv := new(big.Int).ModInverse(xb, bigP)
		if inv == nil {
			inv = new(big.Int) // inv0(0) = 0
		}
		checkEqual(t, "Invert", new(Element).Invert(x), inv)

		// Aliasing: the receiver may be an operand.
		z := new(Element).Set(x)
		z.Mul(z, z)
		checkEqual(t, "Mul aliased", z, mod(new(big.Int).Mul(xb, xb)))

		if got, want := x.IsOdd(), int(xb.Bit(0)); got != want {
			t.Fatalf("IsOdd(%x) = %d, want %d", xb, got, want)
		}
		if got, want := x.IsZero(), b2i(xb.Sign() == 0); got != want {
			t.Fatalf("IsZero(%x) = %d", xb, got)
		}
		if got, want := x.Equal(y), b2i(xb.Cmp(yb) == 0); got != want {
			t.Fatalf("Equal(%x, %x) = %d", xb, yb, got)
		}
		checkEqual(t, "Select 1", new(Element).Select(x, y, 1), xb)
		checkEqual(t, "Select 0", new(Element).Select(x, y, 0), yb)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestOne(t *testing.T) {
	checkEqual(t, "One", new(Element).One(), big.NewInt(1))
	var zero Element
	checkEqual(t, "zero value", &zero, big.NewInt(0))
}

func TestConstants(t *testing.T) {
	r := new(big.Int).Lsh(big.NewInt(1), 256)
	for _, c := range []struct {
		name string
		got  [4]uint64
		exp  int64
	}{{"rr", rr.l, 2}, {"rrr", rrr.l, 3}} {
		want := new(big.Int).Exp(r, big.NewInt(c.exp), bigP)
		var got big.Int
		for i := 3; i >= 0; i-- {
			got.Lsh(&got, 64).Or(&got, new(big.Int).SetUint64(c.got[i]))
		}
		if got.Cmp(want) != 0 {
			t.Errorf("%s = %x, want %x", c.name, &got, want)
		}
	}
}

func TestSetBytesRejects(t *testing.T) {
	for _, v := range []*big.Int{
		bigP,
		new(big.Int).Add(bigP, big.NewInt(1)),
		new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)),
	} {
		if _, err := new(Element).SetBytes(bigBytes(v)); err == nil {
			t.Errorf("SetBytes(%x) accepted a value >= p", v)
		}
	}
	for _, n := range []int{0, 31, 33, 64} {
		if _, err := new(Element).SetBytes(make([]byte, n)); err == nil {
			t.Errorf("SetBytes accepted %d bytes", n)
		}
	}
}

func TestSetWideBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 64; n++ {
		for trial := 0; trial < 20; trial++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			if trial == 0 {
				for i := range b {
					b[i] = 0xff
				}
			}
			e, err := new(Element).SetWideBytes(b)
			if err != nil {
				t.Fatal(err)
			}
			want := new(big.Int).SetBytes(b)
			checkEqual(t, "SetWideBytes", e, want.Mod(want, bigP))
		}
	}
	if _, err := new(Element).SetWideBytes(make([]byte, 65)); err == nil {
		t.Error("SetWideBytes accepted 65 bytes")
	}
}

func BenchmarkMul(b *testing.B) {
	x, _ := new(Element).SetBytes(bytes.Repeat([]byte{0x5a}, 32))
	for b.Loop() {
		x.Mul(x, x)
	}
}

func BenchmarkSquare(b *testing.B) {
	x, _ := new(Element).SetBytes(bytes.Repeat([]byte{0x5a}, 32))
	for b.Loop() {
		x.Square(x)
	}
}

func BenchmarkInvert(b *testing.B) {
	x, _ := new(Element).SetBytes(bytes.Repeat([]byte{0x5a}, 32))
	for b.Loop() {
		x.Invert(x)
	}
}

// FuzzArithmetic checks the field operations against math/big on arbitrary
// inputs, and that SetBytes accepts exactly the canonical encodings.
func FuzzArithmetic(f *testing.F) {
	f.Add([]byte{1}, []byte{2})
	f.Add(bytes.Repeat([]byte{0xff}, 64), bytes.Repeat([]byte{0xff}, 32))
	f.Add(bigBytes(bigP), bigBytes(new(big.Int).Sub(bigP, big.NewInt(1))))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		_, errA := new(Element).SetBytes(a)
		if canonical := len(a) == 32 && new(big.Int).SetBytes(a).Cmp(bigP) < 0; canonical != (errA == nil) {
			t.Fatalf("SetBytes(%x): err = %v", a, errA)
		}
		x, err := new(Element).SetWideBytes(a)
		if (err == nil) != (len(a) <= 64) {
			t.Fatalf("SetWideBytes(%d bytes): err = %v", len(a), err)
		}
		y, err := new(Element).SetWideBytes(b)
		if err != nil {
			return
		}
		if x == nil {
			return
		}
		xb := new(big.Int).Mod(new(big.Int).SetBytes(a), bigP)
		yb := new(big.Int).Mod(new(big.Int).SetBytes(b), bigP)
		mod := func(v *big.Int) *big.Int { return v.Mod(v, bigP) }
		checkEqual(t, "SetWideBytes", x, xb)
		checkEqual(t, "Add", new(Element).Add(x, y), mod(new(big.Int).Add(xb, yb)))
		checkEqual(t, "Sub", new(Element).Sub(x, y), mod(new(big.Int).Sub(xb, yb)))
		checkEqual(t, "Mul", new(Element).Mul(x, y), mod(new(big.Int).Mul(xb, yb)))
		checkEqual(t, "Square", new(Element).Square(x), mod(new(big.Int).Mul(xb, xb)))
	})
}
