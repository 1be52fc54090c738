package modp

import (
	"bytes"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/kexlab/kexlab/internal/cttest"
)

type montPath struct {
	name string
	m    *monty
}

// montPaths returns the group's Montgomery arithmetic, and a copy of it on
// the portable code if the group's uses the assembly, so that the portable
// code runs on amd64 too.
func montPaths(g *Group) []montPath {
	generic := newMonty(g.pb)
	generic.adx = false
	paths := []montPath{{"generic", generic}}
	if g.mont.adx {
		paths = append(paths, montPath{"adx", g.mont})
	}
	return paths
}

type groupPath struct {
	name string
	g    *Group
}

// groupPaths returns g, and a copy of it on the portable code if g uses the
// assembly.
func groupPaths(g *Group) []groupPath {
	generic := newModP(g.name, g.pb, uint(g.gb[0]))
	generic.mont.adx = false
	paths := []groupPath{{"generic", generic}}
	if g.mont.adx {
		paths = append(paths, groupPath{"adx", g})
	}
	return paths
}

func TestMontPathsPresent(t *testing.T) {
	for _, g := range allModP(t) {
		if g.mont.adx != useADX {
			t.Errorf("%s: adx = %v, useADX = %v", g.Name(), g.mont.adx, useADX)
		}
	}
	t.Logf("MULX/ADCX/ADOX assembly: %v", useADX)
}

func limbsToInt(x []uint) *big.Int {
	w := make([]big.Word, len(x))
	for i, v := range x {
		w[i] = big.Word(v)
	}
	return new(big.Int).SetBits(w)
}

func intToLimbs(x *big.Int, n int) []uint {
	z := make([]uint, n)
	for i, w := range x.Bits() {
		z[i] = uint(w)
	}
	return z
}

// montEdge returns values below p that stress carries: 0, 1, 2, p-1, p-2,
// R mod p, and values with all-ones and all-zeros limbs.
func montEdge(m *monty) []*big.Int {
	p := limbsToInt(m.p)
	one := big.NewInt(1)
	r := new(big.Int).Lsh(one, uint(m.n*bits.UintSize))
	vals := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2),
		new(big.Int).Sub(p, one), new(big.Int).Sub(p, big.NewInt(2)),
		new(big.Int).Mod(r, p), new(big.Int).Rsh(p, 1),
		new(big.Int).Sub(new(big.Int).Rsh(r, bits.UintSize), one), // all limbs but the top all ones
		new(big.Int).Sub(new(big.Int).Rsh(r, 1), one),
	}
	alt := make([]uint, m.n) // alternate all-ones and zero limbs
	for i := range alt {
		if i%2 == 0 {
			alt[i] = ^uint(0)
		}
	}
	vals = append(vals, limbsToInt(alt))
	for i := range alt {
		alt[i] = ^alt[i]
	}
	vals = append(vals, limbsToInt(alt))
	for i, v := range vals {
		vals[i] = v.Mod(v, p)
	}
	return vals
}

// montRand returns a value below p: uniform, or with limbs drawn from
// {0, all ones, random}, or within 2^64 of p.
func montRand(r *rand.Rand, m *monty, p *big.Int) *big.Int {
	x := make([]uint, m.n)
	switch r.IntN(4) {
	case 0:
		for i := range x {
			switch r.IntN(3) {
			case 0:
			case 1:
				x[i] = ^uint(0)
			default:
				x[i] = uint(r.Uint64())
			}
		}
	case 1:
		d := new(big.Int).SetUint64(r.Uint64())
		d.Mod(d, p)
		return d.Sub(p, d).Sub(d, big.NewInt(1)) // p-1-d
	default:
		for i := range x {
			x[i] = uint(r.Uint64())
		}
	}
	v := limbsToInt(x)
	return v.Mod(v, p)
}

// checkMont reports whether z = x*y/R mod p: z < p and z*R = x*y mod p.
func checkMont(m *monty, p, x, y *big.Int, z []uint) bool {
	zi := limbsToInt(z)
	if zi.Cmp(p) >= 0 {
		return false
	}
	d := zi.Lsh(zi, uint(m.n*bits.UintSize))
	d.Sub(d, new(big.Int).Mul(x, y))
	return d.Mod(d, p).Sign() == 0
}

// TestMontMulOracle checks mul and sqr on every path against math/big: all
// pairs of edge values, then 100,000 random inputs per size for 2048, 3072
// and 4096 bits (10,000 with -short), half of them squares, and 2,000 for
// the other sizes.
func TestMontMulOracle(t *testing.T) {
	for i, g := range allModP(t) {
		t.Run(g.Name(), func(t *testing.T) {
			t.Parallel()
			runs := 2000
			switch g.BitLen() {
			case 2048, 3072, 4096:
				runs = 100000
				if testing.Short() {
					runs = 10000
				}
			}
			if i == 0 { // RFC3526-MODP-3072 shares its prime with RFC5054-3072
				runs = 2000
			}
			paths := montPaths(g)
			m := paths[0].m
			n := m.n
			p := limbsToInt(m.p)
			r := rand.New(rand.NewChaCha8([32]byte{'m', 'o', 'n', 't', byte(i)}))
			z, z2 := make([]uint, n), make([]uint, n)
			tmp := make([]uint, 2*n+2)
			// check tests x*y (a square if x == y) on every path: the
			// first against math/big, the others and the in-place and
			// squaring variants against it.
			check := func(x, y *big.Int, inPlace bool) {
				xl, yl := intToLimbs(x, n), intToLimbs(y, n)
				for k, path := range paths {
					path.m.mul(z2, xl, yl, tmp)
					if k == 0 {
						copy(z, z2)
						if !checkMont(m, p, x, y, z) {
							t.Fatalf("%s: mul(%x, %x) = %x", path.name, x, y, limbsToInt(z))
						}
					} else if !slices.Equal(z, z2) {
						t.Fatalf("%s: mul(%x, %x) = %x, want %x", path.name, x, y, limbsToInt(z2), limbsToInt(z))
					}
					if x.Cmp(y) == 0 && path.m.adx {
						path.m.sqr(z2, xl, tmp)
						if !slices.Equal(z, z2) {
							t.Fatalf("%s: sqr(%x) = %x, want %x", path.name, x, limbsToInt(z2), limbsToInt(z))
						}
					}
					if inPlace {
						copy(z2, xl)
						path.m.mul(z2, z2, yl, tmp)
						if !slices.Equal(z, z2) {
							t.Fatalf("%s: mul in place(%x, %x) = %x, want %x", path.name, x, y, limbsToInt(z2), limbsToInt(z))
						}
						if x.Cmp(y) == 0 {
							copy(z2, xl)
							path.m.sqr(z2, z2, tmp)
							if !slices.Equal(z, z2) {
								t.Fatalf("%s: sqr in place(%x) = %x, want %x", path.name, x, limbsToInt(z2), limbsToInt(z))
							}
						}
					}
				}
			}
			edge := montEdge(m)
			for _, x := range edge {
				for _, y := range edge {
					check(x, y, true)
				}
			}
			for k := 0; k < runs; k++ {
				x := montRand(r, m, p)
				if k%2 == 0 {
					check(x, montRand(r, m, p), k%32 == 0)
				} else {
					check(x, x, k%32 == 1)
				}
			}
		})
	}
}

// TestMontGenericModuli runs the portable code on odd moduli of every limb
// count from 1 to 20 and of random shape (top bits clear, low limb 1), which
// the groups' primes do not cover.
func TestMontGenericModuli(t *testing.T) {
	r := rand.New(rand.NewChaCha8([32]byte{'o', 'd', 'd'}))
	for n := 1; n <= 20; n++ {
		for k := 0; k < 5; k++ {
			pb := randBytes(r, n*bits.UintSize/8-r.IntN(bits.UintSize/8))
			pb[0] |= 1
			pb[len(pb)-1] |= 1
			if k == 0 {
				clear(pb[1:])
				pb[len(pb)-1] = 1
			}
			m := newMonty(pb)
			m.adx = false
			p := limbsToInt(m.p)
			z, tmp := make([]uint, m.n), make([]uint, 2*m.n+2)
			for j := 0; j < 200; j++ {
				x, y := montRand(r, m, p), montRand(r, m, p)
				m.mul(z, intToLimbs(x, m.n), intToLimbs(y, m.n), tmp)
				if !checkMont(m, p, x, y, z) {
					t.Fatalf("p = %x: mul(%x, %x) = %x", p, x, y, limbsToInt(z))
				}
			}
		}
	}
}

// TestMontPathsAgree compares the assembly with the portable code directly
// on random inputs for every group, and on the constant-time table lookup.
func TestMontPathsAgree(t *testing.T) {
	for i, g := range allModP(t) {
		paths := montPaths(g)
		if len(paths) < 2 {
			t.Skip("no assembly on this machine")
		}
		r := rand.New(rand.NewChaCha8([32]byte{'a', 'g', 'r', byte(i)}))
		m := paths[0].m
		p := limbsToInt(m.p)
		z1, z2, tmp := make([]uint, m.n), make([]uint, m.n), make([]uint, 2*m.n+2)
		for k := 0; k < 2000; k++ {
			x, y := intToLimbs(montRand(r, m, p), m.n), intToLimbs(montRand(r, m, p), m.n)
			paths[0].m.mul(z1, x, y, tmp)
			paths[1].m.mul(z2, x, y, tmp)
			if !slices.Equal(z1, z2) {
				t.Fatalf("%s: mul(%x, %x): generic %x, adx %x", g.Name(), x, y, z1, z2)
			}
			paths[1].m.sqr(z2, x, tmp)
			paths[0].m.mul(z1, x, x, tmp)
			if !slices.Equal(z1, z2) {
				t.Fatalf("%s: sqr(%x): generic %x, adx %x", g.Name(), x, z1, z2)
			}
		}
	}
}

// TestCtSelect checks the table lookup, assembly and portable, for limb
// counts with and without a multiple of 8 and every entry count used.
func TestCtSelect(t *testing.T) {
	for _, n := range []int{1, 5, 8, 16, 48} {
		for _, entries := range []int{1, 2, 16, 32, 64} {
			tab := make([]uint, n*entries)
			for i := range tab {
				tab[i] = uint(i)*0x9e3779b9 + 1
			}
			dst := make([]uint, n)
			for idx := uint(0); idx <= uint(entries); idx++ {
				want := make([]uint, n) // out of range: zero
				if idx < uint(entries) {
					want = tab[idx*uint(n) : (idx+1)*uint(n)]
				}
				ctSelect(dst, tab, idx)
				if !slices.Equal(dst, want) {
					t.Fatalf("n=%d entries=%d: ctSelect(%d) = %x", n, entries, idx, dst)
				}
				masks := make([]uint, 2*entries)
				for k := range entries {
					if uint(k) == idx {
						masks[2*k], masks[2*k+1] = ^uint(0), ^uint(0)
					}
				}
				clear(dst)
				ctSelectGeneric(dst, tab, masks)
				if !slices.Equal(dst, want) {
					t.Fatalf("n=%d entries=%d: ctSelectGeneric(%d) = %x", n, entries, idx, dst)
				}
			}
		}
	}
}

func TestExpWindowBits(t *testing.T) {
	e := []byte{0xb5, 0x3c, 0x01}
	v := toInt(e)
	for w := uint(1); w <= expWindowMax; w++ {
		for pos := uint(0); pos < uint(8*len(e)); pos++ {
			want := new(big.Int).Rsh(v, pos)
			want.And(want, big.NewInt(1<<w-1))
			if got := window(e, pos, w); uint64(got) != want.Uint64() {
				t.Fatalf("window(%x, %d, %d) = %x, want %x", e, pos, w, got, want)
			}
		}
	}
}

func TestExpWindowChoice(t *testing.T) {
	for _, c := range []struct {
		bytes int
		w     uint
	}{{0, 4}, {32, 4}, {48, 4}, {49, 5}, {65, 5}, {192, 5}, {193, 6}, {384, 6}, {1024, 6}} {
		if w := expWindow(8 * c.bytes); w != c.w || w > expWindowMax {
			t.Errorf("expWindow(%d bytes) = %d, want %d", c.bytes, w, c.w)
		}
	}
}

// FuzzMontMul compares mul and sqr on every path with math/big for inputs
// reduced mod the 2048-bit prime.
func FuzzMontMul(f *testing.F) {
	g, _ := RFC5054Group(2048)
	paths := montPaths(g)
	m := paths[0].m
	p := limbsToInt(m.p)
	f.Add([]byte{1}, []byte{2})
	f.Add(g.P(), bytes.Repeat([]byte{0xff}, g.Size()))
	f.Fuzz(func(t *testing.T, xb, yb []byte) {
		x, y := new(big.Int).SetBytes(xb), new(big.Int).SetBytes(yb)
		x.Mod(x, p)
		y.Mod(y, p)
		xl, yl := intToLimbs(x, m.n), intToLimbs(y, m.n)
		z, tmp := make([]uint, m.n), make([]uint, 2*m.n)
		for _, path := range paths {
			path.m.mul(z, xl, yl, tmp)
			if !checkMont(m, p, x, y, z) {
				t.Fatalf("%s: mul(%x, %x) = %x", path.name, x, y, limbsToInt(z))
			}
			path.m.sqr(z, xl, tmp)
			if !checkMont(m, p, x, x, z) {
				t.Fatalf("%s: sqr(%x) = %x", path.name, x, limbsToInt(z))
			}
		}
	})
}

// expLens are the exponent lengths, in bytes, that the Exp tests draw:
// every window size (4 up to 48 bytes, 5 up to 192, 6 beyond) and both
// sides of each bound, lengths that are not multiples of any window, and
// exponents longer than p.
func expLens(r *rand.Rand, g *Group, count int) []int {
	lens := []int{0, 1, 2, 3, 7, 32, 33, 48, 49, 65, 100, 191, 192, 193, 250, g.Size(), g.Size() + 9}
	for len(lens) < count {
		lens = append(lens, r.IntN(80))
	}
	return lens
}

// TestModPExpPaths compares Exp and ExpBase on both paths with math/big for
// random bases and exponents, edge bases and edge exponents.
func TestModPExpPaths(t *testing.T) {
	for i, bitLen := range []int{2048, 3072, 4096} {
		g, _ := RFC5054Group(bitLen)
		for _, path := range groupPaths(g) {
			t.Run(fmt.Sprintf("%d/%s", bitLen, path.name), func(t *testing.T) {
				t.Parallel()
				g := path.g
				count := 200
				if testing.Short() {
					count = 40
				}
				r := rand.New(rand.NewChaCha8([32]byte{'e', 'x', 'p', byte(i)}))
				p := toInt(g.P())
				gen := toInt(g.G())
				pm1 := new(big.Int).Sub(p, big.NewInt(1))
				elem := func(x *big.Int) *Element {
					e := g.newElement()
					copy(e.n.Bits(), intToLimbs(x, g.mont.n))
					return e
				}
				eq := func(op string, got *Element, want *big.Int) {
					t.Helper()
					if toInt(got.Bytes()).Cmp(want) != 0 {
						t.Fatalf("%s: got %x, want %x", op, got.Bytes(), want)
					}
				}
				bases := []*big.Int{big.NewInt(0), big.NewInt(1), pm1, big.NewInt(2)}
				for k, n := range expLens(r, g, count) {
					var x *big.Int
					if k < len(bases) {
						x = bases[k]
					} else {
						x = randInt(r, p)
					}
					e := randBytes(r, n)
					if k%7 == 3 { // all-zero and all-ones exponents
						clear(e)
					} else if k%7 == 5 {
						for j := range e {
							e[j] = 0xff
						}
					}
					want := new(big.Int).Exp(x, toInt(e), p)
					eq(fmt.Sprintf("Exp(%x, %d bytes %x)", x, n, e), g.Exp(elem(x), e), want)
					if n <= 2*modpBaseBytes {
						eq(fmt.Sprintf("ExpBase(%d bytes %x)", n, e), g.ExpBase(e), new(big.Int).Exp(gen, toInt(e), p))
					}
				}
				for _, x := range bases {
					for _, e := range [][]byte{nil, {0}, {1}, {2}, make([]byte, 40)} {
						eq(fmt.Sprintf("Exp(%x, %x)", x, e), g.Exp(elem(x), e), new(big.Int).Exp(x, toInt(e), p))
					}
				}
				// Mul against math/big, as it now runs on the same code.
				for k := 0; k < 50; k++ {
					x, y := randInt(r, p), randInt(r, p)
					if k == 0 {
						x, y = pm1, pm1
					}
					eq("Mul", g.Mul(elem(x), elem(y)), new(big.Int).Mod(new(big.Int).Mul(x, y), p))
				}
			})
		}
	}
}

// TestModPAllocs checks that exponentiation does not allocate in the steady
// state, at 3072 bits on both paths: the Montgomery exponentiation, the
// fixed-base table and Mul's Montgomery product allocate nothing, and Exp,
// ExpBase and Mul allocate only the returned Element (2 allocations: the
// Element with its bigmod.Nat, and the limbs).
func TestModPAllocs(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts differ under coverage or the race detector")
	}
	g3072, _ := RFC5054Group(3072)
	for _, path := range groupPaths(g3072) {
		g := path.g
		e := bytes.Repeat([]byte{0xa5}, ExponentSize)
		long := bytes.Repeat([]byte{0x5a}, 2*modpBaseBytes)
		x := g.Reduce(randBytes(rand.New(rand.NewChaCha8([32]byte{})), g.Size()))
		z := make([]uint, g.mont.n)
		tab := g.baseTable()
		for _, c := range []struct {
			name string
			f    func()
			max  float64
		}{
			{"monty.exp", func() { g.mont.exp(z, x.n.Bits(), e) }, 0},
			{"monty.exp/long", func() { g.mont.exp(z, x.n.Bits(), long) }, 0},
			{"monty.modMul", func() { g.mont.modMul(z, x.n.Bits(), x.n.Bits()) }, 0},
			{"baseTable.exp", func() { tab.exp(g, z, e) }, 0},
			{"Exp", func() { g.Exp(x, e) }, 2},
			{"ExpBase", func() { g.ExpBase(e) }, 2},
			{"ExpBase/long", func() { g.ExpBase(long) }, 2},
			{"Mul", func() { g.Mul(x, x) }, 2},
		} {
			if got := testing.AllocsPerRun(10, c.f); got > c.max {
				t.Errorf("%s: %s: %v allocations, want at most %v", path.name, c.name, got, c.max)
			}
		}
	}
}

// TestModPExpTiming is a dudect-style check that Exp and ExpBase take the
// same time for an all-zero exponent and random exponents of the same
// length, and for base 1 and a random base, at 3072 bits (and on the
// portable code at 2048 bits): Welch's t must stay below 4.5. Samples of
// the two classes are interleaved in random order, so load from other
// processes falls on both alike, and the slow tail it adds is cropped.
// The short version takes about a second; MODP_TIMING=long runs ten times
// as many samples.
func TestModPExpTiming(t *testing.T) {
	if testing.Short() { // as p256scalar's: -short runs (arm64 under qemu) skip timing
		t.Skip("timing test")
	}
	samples := 200
	if os.Getenv("MODP_TIMING") == "long" {
		samples = 2000
	}
	g, _ := RFC5054Group(3072)
	g2048, _ := RFC5054Group(2048)
	generic := groupPaths(g2048)[0].g
	r := rand.New(rand.NewChaCha8([32]byte{'c', 't'}))
	x := g.Reduce(randBytes(r, g.Size()))
	xg := generic.Reduce(randBytes(r, generic.Size()))
	one := g.Reduce([]byte{1})
	zero := make([]byte, ExponentSize)
	exps := make([][]byte, 64)
	for i := range exps {
		exps[i] = randBytes(r, ExponentSize)
	}
	var k int
	next := func() []byte { k++; return exps[k%len(exps)] }
	for _, c := range []struct {
		name    string
		samples int
		f       func(class int)
	}{
		{"Exp/exponent", samples, func(c int) {
			if c == 0 {
				g.Exp(x, zero)
			} else {
				g.Exp(x, next())
			}
		}},
		{"Exp/base", samples, func(c int) {
			if c == 0 {
				g.Exp(one, next())
			} else {
				g.Exp(x, next())
			}
		}},
		{"Exp/exponent/generic-2048", samples / 2, func(c int) {
			if c == 0 {
				generic.Exp(xg, zero)
			} else {
				generic.Exp(xg, next())
			}
		}},
		{"ExpBase", 4 * samples, func(c int) {
			if c == 0 {
				g.ExpBase(zero)
			} else {
				g.ExpBase(next())
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if tv := cttest.Repeated(t, 3, c.samples, c.f); tv > cttest.Limit {
				t.Errorf("|t| = %.2f > 4.5: timing depends on the secret class", tv)
			}
		})
	}
}
