package group

import (
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"testing"
)

// p256TestScalars returns edge-case scalars for the Booth recoding (0, 1,
// n-1, runs of digits ±2^(w-1), alternating bits) and random ones.
func p256TestScalars(t testing.TB, r *rand.Rand, random int) []*Scalar {
	t.Helper()
	n := new(big.Int).SetBytes(p256Order)
	vals := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(31), big.NewInt(32), big.NewInt(33),
		big.NewInt(63), big.NewInt(64),
		new(big.Int).Sub(n, big.NewInt(1)), new(big.Int).Sub(n, big.NewInt(2)),
		new(big.Int).Rsh(n, 1), new(big.Int).Lsh(big.NewInt(1), 255),
		new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(1)),
	}
	// Every window's top bit set (digits near -2^(w-1) with carries), and
	// patterns 100000 / 011111 repeated.
	for _, pat := range []uint{0x20, 0x1f, 0x3f, 0x15, 0x2a} {
		v := new(big.Int)
		for i := 0; i < 256; i += tableW {
			v.Or(v, new(big.Int).Lsh(big.NewInt(int64(pat)), uint(i)))
		}
		vals = append(vals, v.Mod(v, n))
	}
	for i := 0; i < random; i++ {
		b := make([]byte, 32)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		v := new(big.Int).SetBytes(b)
		vals = append(vals, v.Mod(v, n))
	}
	out := make([]*Scalar, len(vals))
	for i, v := range vals {
		s, err := NewScalar().SetCanonicalBytes(v.FillBytes(make([]byte, 32)))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = s
	}
	return out
}

func TestTableMult(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	g := NewGenerator()
	q := NewPoint().ScalarMult(p256TestScalars(t, r, 1)[13], g) // an arbitrary point
	for _, base := range []*Point{g, q, NewPoint().Negate(q)} {
		tab := NewTable(base)
		for _, s := range p256TestScalars(t, r, 40) {
			got := NewPoint().TableMult(s, tab)
			want := NewPoint().ScalarMult(s, base)
			if got.Equal(want) != 1 {
				t.Fatalf("TableMult(%x) != ScalarMult", s.Bytes())
			}
		}
	}
	// The identity as a base gives the identity.
	tab := NewTable(NewPoint())
	s := p256TestScalars(t, r, 1)[18]
	if NewPoint().TableMult(s, tab).IsIdentity() != 1 {
		t.Error("s·O != O")
	}
}

// TestBoothDigits checks that the signed digits reconstruct the scalar and
// stay within [-2^(w-1), 2^(w-1)].
func TestBoothDigits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, s := range p256TestScalars(t, r, 200) {
		var k [5]uint64
		b := s.Bytes()
		for i := range 4 {
			k[i] = binary.BigEndian.Uint64(b[24-8*i:])
		}
		sum := new(big.Int)
		for j := tableWindows - 1; j >= 0; j-- {
			mag, neg := boothDigit(&k, j)
			if mag < 0 || mag > tableEntries || neg < 0 || neg > 1 {
				t.Fatalf("digit %d out of range: %d, %d", j, mag, neg)
			}
			d := big.NewInt(int64(mag))
			if neg == 1 {
				d.Neg(d)
			}
			sum.Lsh(sum, tableW).Add(sum, d)
		}
		if want := new(big.Int).SetBytes(b); sum.Cmp(want) != 0 {
			t.Fatalf("digits of %x sum to %x", want, sum)
		}
	}
}

func BenchmarkNewTable(b *testing.B) {
	q := NewGenerator()
	for b.Loop() {
		NewTable(q)
	}
}

func BenchmarkTableMult(b *testing.B) {
	tab := NewTable(NewPoint().Add(NewGenerator(), NewGenerator()))
	s := p256TestScalars(b, rand.New(rand.NewPCG(1, 1)), 1)[18]
	p := NewPoint()
	for b.Loop() {
		p.TableMult(s, tab)
	}
}
