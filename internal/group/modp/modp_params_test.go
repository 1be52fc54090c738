package modp

import (
	"bytes"
	"errors"
	"math/big"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// allModP returns every group this package defines.
func allModP(t testing.TB) []*Group {
	t.Helper()
	gs := []*Group{RFC3526Group15()}
	for _, bits := range rfc5054Sizes {
		g, err := RFC5054Group(bits)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	return gs
}

// The generators printed in RFC 3526 §4 and RFC 5054 Appendix A.
var wantGenerator = map[string]int64{
	"RFC3526-MODP-3072": 2,
	"RFC5054-1024":      2, "RFC5054-1536": 2, "RFC5054-2048": 2,
	"RFC5054-3072": 5, "RFC5054-4096": 5, "RFC5054-6144": 5,
	"RFC5054-8192": 19,
}

func TestModPParameters(t *testing.T) {
	for _, g := range allModP(t) {
		t.Run(g.Name(), func(t *testing.T) {
			t.Parallel()
			p := new(big.Int).SetBytes(g.P())
			bits := p.BitLen()
			if bits != g.BitLen() || bits%8 != 0 || g.Size() != bits/8 || len(g.P()) != g.Size() {
				t.Fatalf("BitLen %d, Size %d, p has %d bits", g.BitLen(), g.Size(), bits)
			}
			if g.Name() != "RFC3526-MODP-3072" && g.Name() != "RFC5054-"+big.NewInt(int64(bits)).String() {
				t.Errorf("name %q for a %d-bit prime", g.Name(), bits)
			}
			if want := wantGenerator[g.Name()]; new(big.Int).SetBytes(g.G()).Int64() != want ||
				new(big.Int).SetBytes(g.Generator().Bytes()).Int64() != want || len(g.G()) != 1 {
				t.Errorf("generator %x, want %d", g.G(), want)
			}
			q := new(big.Int).Rsh(p, 1)
			if !bytes.Equal(q.FillBytes(make([]byte, g.Size())), g.Q()) {
				t.Error("Q() != (p-1)/2")
			}
			// Safe prime: p and q = (p-1)/2 both pass Baillie-PSW (no
			// composite is known to pass it); these are public constants.
			if testing.Short() && bits > 3072 {
				t.Skip("primality of large primes skipped in -short")
			}
			if !p.ProbablyPrime(0) || !q.ProbablyPrime(0) {
				t.Fatal("p is not a safe prime")
			}
			// With p safe, g^q = p-1 means g has order 2q (a primitive root,
			// as RFC 5054 Appendix A says of its generators); g^q = 1 means
			// order q (RFC 3526's g = 2: 2 is a square as p = 7 mod 8).
			gq := new(big.Int).Exp(new(big.Int).SetBytes(g.G()), q, p)
			pm1 := new(big.Int).Sub(p, big.NewInt(1))
			if g.Name() == "RFC3526-MODP-3072" {
				if gq.Cmp(big.NewInt(1)) != 0 {
					t.Error("g^q != 1")
				}
			} else if gq.Cmp(pm1) != 0 {
				t.Error("g is not a primitive root")
			}
		})
	}
}

// TestModPRFC3526Formula recomputes the primes taken from RFC 3526 (§4-§7,
// reused by RFC 5054 Appendix A for 3072 bits and up) from the formula the
// RFC prints, p = 2^n - 2^(n-64) - 1 + 2^64 * { [2^(n-130) pi] + c }, with pi
// computed here by Machin's formula: an independent check of the hex
// transcription.
func TestModPRFC3526Formula(t *testing.T) {
	cases := []struct {
		name string
		n    uint
		c    int64
	}{
		{"RFC3526-MODP-3072", 3072, 1690314}, // RFC 3526 §4
		{"RFC5054-3072", 3072, 1690314},      // §4
		{"RFC5054-4096", 4096, 240904},       // §5
		{"RFC5054-6144", 6144, 929484},       // §6
		{"RFC5054-8192", 8192, 4743158},      // §7
	}
	pi := piTimes2k(8062)
	byName := map[string]*Group{}
	for _, g := range allModP(t) {
		byName[g.Name()] = g
	}
	for _, tc := range cases {
		one := big.NewInt(1)
		p := new(big.Int).Lsh(one, tc.n)
		p.Sub(p, new(big.Int).Lsh(one, tc.n-64))
		p.Sub(p, one)
		f := new(big.Int).Rsh(pi, 8062-(tc.n-130)) // [2^(n-130) pi]
		f.Add(f, big.NewInt(tc.c))
		p.Add(p, f.Lsh(f, 64))
		if got := new(big.Int).SetBytes(byName[tc.name].P()); got.Cmp(p) != 0 {
			t.Errorf("%s: prime differs from the RFC 3526 formula", tc.name)
		}
	}
	if !bytes.Equal(RFC3526Group15().P(), byName["RFC5054-3072"].P()) {
		t.Error("RFC 3526 and RFC 5054 3072-bit primes differ")
	}
}

// piTimes2k returns [2^k pi], computed as 16 atan(1/5) - 4 atan(1/239) with
// 64 guard bits.
func piTimes2k(k uint) *big.Int {
	prec := k + 64
	atanInv := func(x int64) *big.Int {
		// atan(1/x) = sum (-1)^i / ((2i+1) x^(2i+1)), in fixed point.
		sum := new(big.Int)
		pow := new(big.Int).Lsh(big.NewInt(1), prec)
		pow.Quo(pow, big.NewInt(x)) // 2^prec / x^(2i+1)
		x2 := big.NewInt(x * x)
		for i := int64(0); pow.Sign() != 0; i++ {
			term := new(big.Int).Quo(pow, big.NewInt(2*i+1))
			if i%2 == 0 {
				sum.Add(sum, term)
			} else {
				sum.Sub(sum, term)
			}
			pow.Quo(pow, x2)
		}
		return sum
	}
	pi := new(big.Int).Mul(big.NewInt(16), atanInv(5))
	pi.Sub(pi, new(big.Int).Mul(big.NewInt(4), atanInv(239)))
	return pi.Rsh(pi, 64)
}

func TestModPUnknownSize(t *testing.T) {
	for _, bits := range []int{0, 768, 1023, 2047, 3071, 16384} {
		if g, err := RFC5054Group(bits); g != nil || !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("RFC5054Group(%d) = %v, %v", bits, g, err)
		}
	}
}
