package modp

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMontMul times one Montgomery multiplication per path and size.
func BenchmarkMontMul(b *testing.B) {
	for _, bits := range []int{2048, 3072, 4096} {
		g, _ := RFC5054Group(bits)
		for _, path := range montPaths(g) {
			m := path.m
			r := rand.New(rand.NewChaCha8([32]byte{3}))
			p := limbsToInt(m.p)
			x, y := intToLimbs(montRand(r, m, p), m.n), intToLimbs(montRand(r, m, p), m.n)
			t := make([]uint, 2*m.n)
			b.Run(fmt.Sprintf("%d/%s", bits, path.name), func(b *testing.B) {
				for b.Loop() {
					m.mul(x, x, y, t)
				}
			})
		}
	}
}

// BenchmarkMontSqr times one Montgomery squaring per path and size.
func BenchmarkMontSqr(b *testing.B) {
	for _, bits := range []int{2048, 3072, 4096} {
		g, _ := RFC5054Group(bits)
		for _, path := range montPaths(g) {
			m := path.m
			r := rand.New(rand.NewChaCha8([32]byte{3}))
			x := intToLimbs(montRand(r, m, limbsToInt(m.p)), m.n)
			t := make([]uint, 2*m.n)
			b.Run(fmt.Sprintf("%d/%s", bits, path.name), func(b *testing.B) {
				for b.Loop() {
					m.sqr(x, x, t)
				}
			})
		}
	}
}

// BenchmarkModPExpWindow times Exp's exponentiation with each window size,
// for choosing expWindow.
func BenchmarkModPExpWindow(b *testing.B) {
	benchGroups(b, func(b *testing.B, g *Group) {
		if g.BitLen() < 2048 || g.BitLen() > 4096 {
			b.Skip()
		}
		r := rand.New(rand.NewChaCha8([32]byte{1}))
		x := g.Reduce(randBytes(r, g.Size()))
		z := make([]uint, g.mont.n)
		for _, n := range []int{32, 48, 65, 96, 128, 192, g.Size()} {
			e := randBytes(r, n)
			for w := uint(3); w <= expWindowMax; w++ {
				b.Run(fmt.Sprintf("exp=%d/w=%d", 8*n, w), func(b *testing.B) {
					for b.Loop() {
						g.mont.expWindow(z, x.n.Bits(), e, w)
					}
				})
			}
		}
	})
}

func BenchmarkCtSelect(b *testing.B) {
	for _, c := range []struct{ n, entries int }{{48, 16}, {48, 32}, {48, 64}, {64, 64}} {
		tab := make([]uint, c.n*c.entries)
		dst := make([]uint, c.n)
		b.Run(fmt.Sprintf("limbs=%d/entries=%d", c.n, c.entries), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				ctSelect(dst, tab, uint(i%c.entries))
			}
		})
	}
}
