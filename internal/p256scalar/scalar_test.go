package p256scalar

import (
	"bytes"
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/kexlab/kexlab/internal/cttest"
)

var (
	bigN = mustBig("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
	bigR = new(big.Int).Lsh(big.NewInt(1), 256)
)

func mustBig(h string) *big.Int {
	v, ok := new(big.Int).SetString(h, 16)
	if !ok {
		panic(h)
	}
	return v
}

func limbsToBig(l [4]uint64) *big.Int {
	v := new(big.Int)
	for i := 3; i >= 0; i-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(l[i]))
	}
	return v
}

func fill(v *big.Int) []byte { return v.FillBytes(make([]byte, Size)) }

func fromBig(t testing.TB, v *big.Int) *Scalar {
	t.Helper()
	s, err := new(Scalar).SetBytes(fill(v))
	if err != nil {
		t.Fatalf("SetBytes(%x): %v", v, err)
	}
	return s
}

func toBig(s *Scalar) *big.Int { return new(big.Int).SetBytes(s.Bytes()) }

// TestConstants recomputes the hard-coded constants with math/big.
func TestConstants(t *testing.T) {
	if got := limbsToBig([4]uint64{n0, n1, n2, n3}); got.Cmp(bigN) != 0 {
		t.Fatalf("n limbs = %x", got)
	}
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	wantK0 := new(big.Int).ModInverse(bigN, two64)
	wantK0.Neg(wantK0).Mod(wantK0, two64)
	if wantK0.Uint64() != k0 {
		t.Errorf("k0 = %#x, want %#x", uint64(k0), wantK0)
	}
	mod := func(e uint) *big.Int {
		return new(big.Int).Mod(new(big.Int).Lsh(big.NewInt(1), e), bigN)
	}
	if got := limbsToBig(rr); got.Cmp(mod(512)) != 0 {
		t.Errorf("rr = %x, want %x", got, mod(512))
	}
	if got := limbsToBig(rrr); got.Cmp(mod(768)) != 0 {
		t.Errorf("rrr = %x, want %x", got, mod(768))
	}
	var one Scalar
	one.One()
	if got := limbsToBig(one.l); got.Cmp(mod(256)) != 0 {
		t.Errorf("One = %x, want %x", got, mod(256))
	}
	if !bytes.Equal(one.Bytes(), fill(big.NewInt(1))) {
		t.Errorf("One encodes as %x", one.Bytes())
	}
	// signed62 form of n and n^-1 mod 2^62.
	v := new(big.Int)
	for i := 4; i >= 0; i-- {
		if nS62[i] < 0 || (i < 4 && nS62[i] > m62) {
			t.Fatalf("nS62[%d] = %#x out of range", i, nS62[i])
		}
		v.Lsh(v, 62).Add(v, big.NewInt(nS62[i]))
	}
	if v.Cmp(bigN) != 0 {
		t.Errorf("nS62 = %x, want n", v)
	}
	two62 := new(big.Int).Lsh(big.NewInt(1), 62)
	if want := new(big.Int).ModInverse(bigN, two62); want.Uint64() != nInv62 {
		t.Errorf("nInv62 = %#x, want %#x", uint64(nInv62), want)
	}
}

// specials are edge values mixed into the random tests.
func specials() []*big.Int {
	one := big.NewInt(1)
	nm1 := new(big.Int).Sub(bigN, one)
	return []*big.Int{
		big.NewInt(0), one, big.NewInt(2), nm1, new(big.Int).Sub(bigN, big.NewInt(2)),
		new(big.Int).Rsh(bigN, 1), new(big.Int).Add(new(big.Int).Rsh(bigN, 1), one),
		new(big.Int).Sub(bigR, bigN),                          // 2^256 mod n
		new(big.Int).Sub(new(big.Int).Lsh(one, 255), one),     // 2^255 - 1
		new(big.Int).Lsh(one, 255), new(big.Int).Lsh(one, 64), // limb edges
		new(big.Int).Sub(new(big.Int).Lsh(one, 192), one),           // low limbs all ones
		new(big.Int).Mod(new(big.Int).Lsh(one, 512), bigN),          // R^2
		new(big.Int).Mod(new(big.Int).Sub(bigR, one), bigN),         // 2^256 - 1 mod n
		new(big.Int).Mod(new(big.Int).ModInverse(bigR, bigN), bigN), // R^-1
	}
}

// randValues returns count values below n: the specials, then random ones,
// some of them with runs of all-zero or all-one limbs.
func randValues(r *rand.Rand, count int) []*big.Int {
	vals := specials()
	for len(vals) < count {
		b := make([]byte, Size)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		switch r.IntN(8) {
		case 0:
			for i := range b[r.IntN(Size):] {
				b[i] = 0xff
			}
		case 1:
			for i := range b[:r.IntN(Size)] {
				b[i] = 0
			}
		}
		vals = append(vals, new(big.Int).Mod(new(big.Int).SetBytes(b), bigN))
	}
	return vals
}

func TestArithmetic(t *testing.T) {
	count := 100_000
	if testing.Short() {
		count = 10_000
	}
	r := rand.New(rand.NewPCG(1, 2))
	vals := randValues(r, count)
	sp := len(specials())
	mod := func(v *big.Int) []byte { return fill(v.Mod(v, bigN)) }
	var got Scalar
	for i, xb := range vals {
		// Every special against every special, then random pairs.
		yb := vals[r.IntN(len(vals))]
		if i < sp*sp {
			xb, yb = vals[i/sp], vals[i%sp]
		}
		x, y := fromBig(t, xb), fromBig(t, yb)
		check := func(op string, want []byte) {
			if g := got.Bytes(); !bytes.Equal(g, want) {
				t.Fatalf("%s(%x, %x) = %x, want %x", op, xb, yb, g, want)
			}
		}
		got.Mul(x, y)
		check("Mul", mod(new(big.Int).Mul(xb, yb)))
		got.Square(x)
		check("Square", mod(new(big.Int).Mul(xb, xb)))
		got.Add(x, y)
		check("Add", mod(new(big.Int).Add(xb, yb)))
		got.Sub(x, y)
		check("Sub", mod(new(big.Int).Sub(xb, yb)))
		got.Negate(x)
		check("Negate", mod(new(big.Int).Neg(xb)))
		if g, want := x.Equal(y), xb.Cmp(yb) == 0; (g == 1) != want {
			t.Fatalf("Equal(%x, %x) = %d", xb, yb, g)
		}
		if g, want := x.IsZero(), xb.Sign() == 0; (g == 1) != want {
			t.Fatalf("IsZero(%x) = %d", xb, g)
		}
		if got.Select(x, y, 1).Equal(x) != 1 || got.Select(x, y, 0).Equal(y) != 1 {
			t.Fatalf("Select(%x, %x)", xb, yb)
		}
	}
	// Aliasing: results written over an operand.
	x, y := fromBig(t, vals[100]), fromBig(t, vals[101])
	want := new(Scalar).Mul(x, y)
	if x.Mul(x, y).Equal(want) != 1 {
		t.Error("Mul aliased to x")
	}
	x = fromBig(t, vals[100])
	if y.Mul(x, y).Equal(want) != 1 {
		t.Error("Mul aliased to y")
	}
	x = fromBig(t, vals[100])
	if want := new(Scalar).Square(x); x.Square(x).Equal(want) != 1 || x.Mul(x, x).Equal(new(Scalar).Square(want)) != 1 {
		t.Error("Square/Mul aliased")
	}
	x = fromBig(t, vals[100])
	if want := new(Scalar).Add(x, x); x.Add(x, x).Equal(want) != 1 {
		t.Error("Add aliased")
	}
	if x.Sub(x, x).IsZero() != 1 {
		t.Error("Sub aliased")
	}
}

// invertFermat sets z = x^(n-2) with the addition chain of 253 squarings
// and 42 multiplications from Brian Smith's "ECC inversion addition chains"
// (also used by Go's crypto/internal/fips140/nistec). It cross-checks Invert
// and is what the package documentation's Fermat timing measures.
func invertFermat(z, x *Scalar) *Scalar {
	sqr := func(e *Scalar, n int) {
		for range n {
			e.Square(e)
		}
	}
	var _1, _11, _101, _111, _1111, _10101, _101111, t, y Scalar
	_1.Set(x)
	y.Square(&_1)          // _10
	_11.Mul(&y, &_1)       // _11
	_101.Mul(&y, &_11)     // _101
	_111.Mul(&y, &_101)    // _111
	y.Square(&_101)        // _1010
	_1111.Mul(&_101, &y)   // _1111
	t.Square(&y)           // _10100
	_10101.Mul(&t, &_1)    // _10101
	y.Square(&_10101)      // _101010
	_101111.Mul(&_101, &y) // _101111
	y.Mul(&_10101, &y)     // _111111 = x6
	t.Square(&y)           //
	t.Square(&t)           // _11111100
	t.Mul(&t, &_11)        // x8
	y.Set(&t)              //
	sqr(&y, 8)             //
	y.Mul(&y, &t)          // x16
	t.Set(&y)              //
	sqr(&t, 16)            //
	t.Mul(&t, &y)          // x32
	y.Set(&t)              //
	sqr(&y, 64)            //
	y.Mul(&y, &t)          //
	sqr(&y, 32)            //
	y.Mul(&y, &t)          // 1{32} 0{32} 1{64}
	sqrs := []int{6, 5, 4, 5, 5, 4, 3, 3, 5, 9, 6, 2, 5, 6, 5, 4, 5, 5, 3, 10, 2, 5, 5, 3, 7, 6}
	muls := []*Scalar{&_101111, &_111, &_11, &_1111, &_10101, &_101, &_101, &_101, &_111, &_101111,
		&_1111, &_1, &_1, &_1111, &_111, &_111, &_111, &_101, &_11, &_101111,
		&_11, &_11, &_11, &_1, &_10101, &_1111}
	for i, s := range sqrs {
		sqr(&y, s)
		y.Mul(&y, muls[i])
	}
	return z.Set(&y)
}

func TestInvert(t *testing.T) {
	count := 10_000
	if testing.Short() {
		count = 1_000
	}
	r := rand.New(rand.NewPCG(3, 4))
	var got, fermat, prod, one Scalar
	one.One()
	for _, xb := range randValues(r, count) {
		x := fromBig(t, xb)
		want := make([]byte, Size) // inv0: the inverse of 0 is 0
		if xb.Sign() != 0 {
			want = fill(new(big.Int).ModInverse(xb, bigN))
		}
		if g := got.Invert(x).Bytes(); !bytes.Equal(g, want) {
			t.Fatalf("Invert(%x) = %x, want %x", xb, g, want)
		}
		if invertFermat(&fermat, x).Equal(&got) != 1 {
			t.Fatalf("Fermat inverse of %x = %x, safegcd %x", xb, fermat.Bytes(), got.Bytes())
		}
		if xb.Sign() != 0 && prod.Mul(x, &got).Equal(&one) != 1 {
			t.Fatalf("x·x^-1 = %x for x = %x", prod.Bytes(), xb)
		}
	}
	x := fromBig(t, big.NewInt(12345))
	want := new(Scalar).Invert(x)
	if x.Invert(x).Equal(want) != 1 {
		t.Error("Invert aliased")
	}
}

// TestInvertRaw checks the inverse on every input below 2^256 that its
// signed62 conversion might mishandle: values with each 62-bit limb
// boundary set or clear, not only values reduced modulo n in Montgomery
// form.
func TestInvertRaw(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		var a [4]uint64
		for i := range a {
			a[i] = r.Uint64()
			switch r.IntN(4) {
			case 0:
				a[i] = 0
			case 1:
				a[i] = ^uint64(0)
			}
		}
		ab := limbsToBig(a)
		if ab.Cmp(bigN) >= 0 {
			continue
		}
		var z [4]uint64
		inverse(&z, &a)
		want := new(big.Int)
		if ab.Sign() != 0 {
			want.ModInverse(ab, bigN)
		}
		if got := limbsToBig(z); got.Cmp(want) != 0 {
			t.Fatalf("inverse(%x) = %x, want %x", ab, got, want)
		}
	}
}

func TestSetBytes(t *testing.T) {
	one := big.NewInt(1)
	for _, v := range []*big.Int{
		bigN, new(big.Int).Add(bigN, one), new(big.Int).Add(bigN, new(big.Int).Lsh(one, 200)),
		new(big.Int).Sub(bigR, one), new(big.Int).Sub(bigR, new(big.Int).Lsh(one, 192)),
	} {
		s := new(Scalar).One()
		if _, err := s.SetBytes(fill(v)); !errors.Is(err, ErrNonCanonical) {
			t.Errorf("%x: err = %v, want ErrNonCanonical", v, err)
		}
		if s.Equal(new(Scalar).One()) != 1 {
			t.Errorf("%x: receiver changed on error", v)
		}
	}
	for _, n := range []int{0, 1, 31, 33, 64} {
		if _, err := new(Scalar).SetBytes(make([]byte, n)); !errors.Is(err, ErrLength) {
			t.Errorf("%d bytes: err = %v, want ErrLength", n, err)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, v := range randValues(r, 1000) {
		if got := fromBig(t, v).Bytes(); !bytes.Equal(got, fill(v)) {
			t.Fatalf("%x round-trips as %x", v, got)
		}
	}
}

func TestSetReducedBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := 0; n <= 100; n++ {
		for trial := range 20 {
			b := make([]byte, n)
			for i := range b {
				switch trial {
				case 0:
					b[i] = 0xff
				case 1:
					b[i] = 0
				default:
					b[i] = byte(r.Uint32())
				}
			}
			if trial == 2 && n >= Size {
				// A chunk equal to n, and the whole value a multiple of n.
				copy(b[n-Size:], fill(bigN))
			}
			got := new(Scalar).SetReducedBytes(b).Bytes()
			want := fill(new(big.Int).Mod(new(big.Int).SetBytes(b), bigN))
			if !bytes.Equal(got, want) {
				t.Fatalf("len %d: %x mod n = %x, want %x", n, b, got, want)
			}
		}
	}
}

func TestAllocs(t *testing.T) {
	x := new(Scalar).SetReducedBytes(bytes.Repeat([]byte{0xa5}, 48))
	y := new(Scalar).SetReducedBytes(bytes.Repeat([]byte{0x3c}, 48))
	var z Scalar
	wide := bytes.Repeat([]byte{0x5a}, 64)
	var out [Size]byte
	for name, f := range map[string]func(){
		"Mul":             func() { z.Mul(x, y) },
		"Square":          func() { z.Square(x) },
		"Add":             func() { z.Add(x, y) },
		"Sub":             func() { z.Sub(x, y) },
		"Invert":          func() { z.Invert(x) },
		"SetBytes":        func() { z.SetBytes(wide[:Size]) },
		"SetReducedBytes": func() { z.SetReducedBytes(wide) },
		"FillBytes":       func() { x.FillBytes(&out) },
	} {
		if got := testing.AllocsPerRun(100, f); got != 0 {
			t.Errorf("%s: %v allocations", name, got)
		}
	}
}

// TestInvertTiming is a dudect-style sanity check that Invert takes the same
// time for small inputs (1 to 16, whose inverses a variable-time algorithm
// finds quickly) and random ones, interleaved in random order: Welch's t
// must stay below 4.5 (in one of up to three runs: cttest.Repeated).
func TestInvertTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	// Both classes in one array of values, reached by the same code: only
	// the inputs differ between the classes, not where they lie or which
	// branch the harness takes.
	r := rand.New(rand.NewChaCha8([32]byte{'i', 'n', 'v'}))
	var in [2][64]Scalar
	for i := range in[0] {
		in[0][i] = *fromBig(t, big.NewInt(int64(i%16+1)))
	}
	for i, v := range randValues(r, len(specials())+len(in[1]))[len(specials()):] {
		in[1][i] = *fromBig(t, v)
	}
	var z Scalar
	var n [2]int
	worst := cttest.Repeated(t, 3, 10000, func(c int) {
		n[c]++
		z.Invert(&in[c][n[c]%64])
	})
	if worst >= cttest.Limit {
		t.Errorf("Welch |t| = %.2f >= 4.5: Invert's time may depend on its input", worst)
	}
}

func benchInputs() (x, y *Scalar) {
	x = new(Scalar).SetReducedBytes(bytes.Repeat([]byte{0xa5}, 48))
	y = new(Scalar).SetReducedBytes(bytes.Repeat([]byte{0x3c}, 48))
	return x, y
}

func BenchmarkMul(b *testing.B) {
	x, y := benchInputs()
	for b.Loop() {
		x.Mul(x, y)
	}
}

func BenchmarkSquare(b *testing.B) {
	x, _ := benchInputs()
	for b.Loop() {
		x.Square(x)
	}
}

func BenchmarkAdd(b *testing.B) {
	x, y := benchInputs()
	for b.Loop() {
		x.Add(x, y)
	}
}

func BenchmarkInvert(b *testing.B) {
	x, _ := benchInputs()
	for b.Loop() {
		x.Invert(x)
	}
}

func BenchmarkInvertFermat(b *testing.B) {
	x, _ := benchInputs()
	for b.Loop() {
		invertFermat(x, x)
	}
}

func BenchmarkSetReducedBytes48(b *testing.B) {
	in := bytes.Repeat([]byte{0xa5}, 48)
	var z Scalar
	for b.Loop() {
		z.SetReducedBytes(in)
	}
}

func BenchmarkBytes(b *testing.B) {
	x, _ := benchInputs()
	var out [Size]byte
	for b.Loop() {
		x.FillBytes(&out)
	}
}

// FuzzOps checks Mul, Add, Sub, Invert and SetReducedBytes against
// math/big on arbitrary inputs (two reduced halves of the input).
func FuzzOps(f *testing.F) {
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, 64))
	f.Add(append(fill(bigN), fill(new(big.Int).Sub(bigN, big.NewInt(1)))...))
	f.Fuzz(func(t *testing.T, b []byte) {
		h := len(b) / 2
		x, y := new(Scalar).SetReducedBytes(b[:h]), new(Scalar).SetReducedBytes(b[h:])
		xb := new(big.Int).Mod(new(big.Int).SetBytes(b[:h]), bigN)
		yb := new(big.Int).Mod(new(big.Int).SetBytes(b[h:]), bigN)
		if !bytes.Equal(x.Bytes(), fill(xb)) || !bytes.Equal(y.Bytes(), fill(yb)) {
			t.Fatalf("SetReducedBytes(%x) = %x, %x", b, x.Bytes(), y.Bytes())
		}
		mod := func(v *big.Int) []byte { return fill(v.Mod(v, bigN)) }
		var z Scalar
		if !bytes.Equal(z.Mul(x, y).Bytes(), mod(new(big.Int).Mul(xb, yb))) {
			t.Fatalf("Mul(%x, %x)", xb, yb)
		}
		if !bytes.Equal(z.Add(x, y).Bytes(), mod(new(big.Int).Add(xb, yb))) {
			t.Fatalf("Add(%x, %x)", xb, yb)
		}
		if !bytes.Equal(z.Sub(x, y).Bytes(), mod(new(big.Int).Sub(xb, yb))) {
			t.Fatalf("Sub(%x, %x)", xb, yb)
		}
		want := new(big.Int)
		if xb.Sign() != 0 {
			want.ModInverse(xb, bigN)
		}
		if !bytes.Equal(z.Invert(x).Bytes(), fill(want)) {
			t.Fatalf("Invert(%x)", xb)
		}
	})
}
