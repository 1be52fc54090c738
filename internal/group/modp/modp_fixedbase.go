// Fixed-base exponentiation for MODP groups.

package modp

// modpBaseBytes is the longest exponent, in bytes, that ExpBase serves from
// the fixed-base table: 512 bits covers 256-bit random exponents and every
// hash output up to SHA-512 (SRP's x).
const modpBaseBytes = 64

// modpWindows is the number of 4-bit windows the table covers.
const modpWindows = 2 * modpBaseBytes

// modpBaseTable holds g^(j * 16^i) for every window i < modpWindows and digit
// j < 16, each in Montgomery form (times R mod p, see monty).
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
	m := g.mont
	l := m.n
	tab := &modpBaseTable{limbs: l, t: make([]uint, modpWindows*16*l)}
	t := make([]uint, 2*l)
	base := make([]uint, l) // g^(16^i), Montgomery form
	m.mul(base, g.g.Bits(), m.rr, t)
	for i := 0; i < modpWindows; i++ {
		copy(tab.entry(i, 0), m.one)
		for j := 1; j < 16; j++ {
			m.mul(tab.entry(i, j), tab.entry(i, j-1), base, t)
		}
		m.mul(base, tab.entry(i, 15), base, t) // g^(16^i)^16
	}
	return tab
}

func (tab *modpBaseTable) entry(i, j int) []uint {
	off := (16*i + j) * tab.limbs
	return tab.t[off : off+tab.limbs]
}

// window returns the 16 entries of window i.
func (tab *modpBaseTable) window(i int) []uint {
	off := 16 * i * tab.limbs
	return tab.t[off : off+16*tab.limbs]
}

// exp sets z = g^e for len(e) <= modpBaseBytes. Its time depends only on
// len(e).
func (tab *modpBaseTable) exp(g *Group, z []uint, e []byte) {
	m := g.mont
	if len(e) == 0 {
		clear(z)
		z[0] = 1
		return
	}
	s := m.getScratch()
	defer m.putScratch(s, 0)
	// Window i holds bits 4i..4i+3 of e, counted from the least significant.
	digit := func(i int) uint { return uint(e[len(e)-1-i/2]>>(4*(i%2))) & 0xf }
	ctSelect(s.acc, tab.window(0), digit(0))
	for i := 1; i < 2*len(e); i++ {
		ctSelect(s.sel, tab.window(i), digit(i))
		m.mul(s.acc, s.acc, s.sel, s.t)
	}
	m.fromMont(z, s.acc, s.sel, s.t)
}
