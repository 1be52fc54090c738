// Fixed-base exponentiation for MODP groups.

package modp

import (
	"crypto/subtle"

	"filippo.io/bigmod"
)

// modpBaseBytes is the longest exponent, in bytes, that ExpBase serves from
// the fixed-base table: 512 bits covers 256-bit random exponents and every
// hash output up to SHA-512 (SRP's x).
const modpBaseBytes = 64

// modpWindows is the number of 4-bit windows the table covers.
const modpWindows = 2 * modpBaseBytes

// modpBaseTable holds g^(j * 16^i) for every window i < modpWindows and digit
// j < 16, each as the limbs of a bigmod.Nat reduced mod p.
//
// g^e is then the product, over the 4-bit digits e_i of e, of the entries
// (i, e_i): one multiplication per digit and no squarings, against four
// squarings and one multiplication per digit for a plain windowed Exp. Entry
// (i, 0) is 1, so every digit costs the same multiplication, and each entry
// is selected by a constant-time scan of the 16 entries of its window. The
// table takes 128 * 16 * Size bytes: 0.8 MB for 3072 bits, 2 MB for 8192.
type modpBaseTable struct {
	limbs int    // limbs per entry (the announced length of p)
	t     []uint // entry (i, j) at t[(16*i + j)*limbs:][:limbs]
}

func (g *Group) baseTable() *modpBaseTable {
	g.tableOnce.Do(func() { g.table = newModPBaseTable(g) })
	return g.table
}

func newModPBaseTable(g *Group) *modpBaseTable {
	one := bigmod.NewNat().ExpandFor(g.p)
	one.Bits()[0] = 1
	l := len(one.Bits())
	tab := &modpBaseTable{limbs: l, t: make([]uint, modpWindows*16*l)}
	base := g.Generator().n // g^(16^i)
	for i := 0; i < modpWindows; i++ {
		cur := g.clone(one).n
		copy(tab.entry(i, 0), cur.Bits())
		for j := 1; j < 16; j++ {
			cur.Mul(base, g.p)
			copy(tab.entry(i, j), cur.Bits())
		}
		base = cur.Mul(base, g.p) // g^(16^i)^16
	}
	return tab
}

func (tab *modpBaseTable) entry(i, j int) []uint {
	off := (16*i + j) * tab.limbs
	return tab.t[off : off+tab.limbs]
}

// selectInto sets dst to entry (i, d) in constant time with respect to d.
func (tab *modpBaseTable) selectInto(dst []uint, i int, d byte) {
	clear(dst)
	for j := 0; j < 16; j++ {
		mask := -uint(subtle.ConstantTimeByteEq(byte(j), d))
		src := tab.entry(i, j)
		for k := range dst {
			dst[k] |= mask & src[k]
		}
	}
}

// exp returns g^e for len(e) <= modpBaseBytes. Its time depends only on
// len(e).
func (tab *modpBaseTable) exp(g *Group, e []byte) *bigmod.Nat {
	acc := bigmod.NewNat().ExpandFor(g.p)
	if len(e) == 0 {
		acc.Bits()[0] = 1
		return acc
	}
	sel := bigmod.NewNat().ExpandFor(g.p)
	// Window i holds bits 4i..4i+3 of e, counted from the least significant.
	digit := func(i int) byte { return e[len(e)-1-i/2] >> (4 * (i % 2)) & 0xf }
	tab.selectInto(acc.Bits(), 0, digit(0))
	for i := 1; i < 2*len(e); i++ {
		tab.selectInto(sel.Bits(), i, digit(i))
		acc.Mul(sel, g.p)
	}
	return acc
}
