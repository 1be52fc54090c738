// Montgomery arithmetic modulo the group's prime, for Exp, ExpBase and Mul.

package modp

import (
	"math/big"
	"math/bits"
	"sync"
)

// maxLimbs is the limb count of the largest prime (8192 bits).
const maxLimbs = 8192 / bits.UintSize

// monty holds the Montgomery constants of a prime p of n limbs, R = 2^(W*n)
// for the word size W. Everything in it is derived from p alone, which is
// public; math/big computes it.
//
// Values in Montgomery form are x*R mod p, fully reduced (below p), n limbs
// little-endian: the layout of bigmod.Nat.Bits for a Nat sized for p.
type monty struct {
	n   int
	p   []uint // p
	n0  uint   // -p^-1 mod 2^W
	rr  []uint // R^2 mod p: mul(x, rr) puts x into Montgomery form
	one []uint // R mod p: 1 in Montgomery form
	adx bool   // use the MULX/ADCX/ADOX assembly (tests clear it on their own copies)

	scratch sync.Pool // *expScratch
}

func newMonty(pBytes []byte) *monty {
	p := new(big.Int).SetBytes(pBytes)
	n := (p.BitLen() + bits.UintSize - 1) / bits.UintSize
	if n < 1 || n > maxLimbs || p.Bit(0) == 0 {
		panic("modp: unsupported modulus")
	}
	limbs := func(x *big.Int) []uint {
		z := make([]uint, n)
		for i, w := range x.Bits() {
			z[i] = uint(w)
		}
		return z
	}
	r := new(big.Int).Lsh(big.NewInt(1), uint(n*bits.UintSize))
	m := &monty{
		n:   n,
		p:   limbs(p),
		rr:  limbs(new(big.Int).Mod(new(big.Int).Mul(r, r), p)),
		one: limbs(new(big.Int).Mod(r, p)),
		adx: useADX && n%8 == 0,
	}
	// Newton's iteration for p^-1 mod 2^W: each step doubles the number of
	// correct low bits, and p0 is its own inverse mod 8 (3 bits).
	p0 := m.p[0]
	inv := p0
	for i := 0; i < 5; i++ {
		inv *= 2 - p0*inv
	}
	m.n0 = -inv
	m.scratch.New = func() any { return m.newScratch() }
	return m
}

// mul sets z = x*y/R mod p for x, y < p. z may alias x or y; t is scratch
// of 2n limbs that must not alias anything else. Constant time.
func (m *monty) mul(z, x, y, t []uint) {
	n := m.n
	z, x, y, t = z[:n], x[:n], y[:n], t[:2*n]
	if m.adx {
		mulADX(&t[0], &x[0], &y[0], n)
		redcADX(&z[0], &t[0], &m.p[0], n, m.n0)
		return
	}
	montMulGeneric(z, x, y, m.p, t, m.n0)
}

// sqr sets z = x*x/R mod p, like mul(z, x, x, t); the assembly has a
// squaring that computes each cross product once.
func (m *monty) sqr(z, x, t []uint) {
	n := m.n
	z, x, t = z[:n], x[:n], t[:2*n]
	if m.adx {
		sqrADX(&t[0], &x[0], n)
		redcADX(&z[0], &t[0], &m.p[0], n, m.n0)
		return
	}
	montMulGeneric(z, x, x, m.p, t, m.n0)
}

// montMulGeneric is mul on math/bits: CIOS (coarsely integrated operand
// scanning, Koç, Acar and Kaliski 1996) with the product and reduction rows
// of each limb of x fused into one pass over t, then a final subtraction of
// p by masked select.
func montMulGeneric(z, x, y, p, t []uint, n0 uint) {
	n := len(p)
	z, x, y, t = z[:n], x[:n], y[:n], t[:n+1]
	clear(t)
	for _, xi := range x {
		// t = (t + xi*y + mi*p) / 2^W, with mi chosen so that the division
		// is exact. t < 2p before and after, so t[n] is 0 or 1.
		h1, l1 := bits.Mul(xi, y[0])
		s, cc := bits.Add(t[0], l1, 0)
		c1 := h1 + cc
		mi := s * n0
		h2, l2 := bits.Mul(mi, p[0])
		_, cc = bits.Add(s, l2, 0)
		c2 := h2 + cc
		for j := 1; j < n; j++ {
			h1, l1 := bits.Mul(xi, y[j])
			s, cc := bits.Add(t[j], l1, 0)
			h1 += cc
			s, cc = bits.Add(s, c1, 0)
			c1 = h1 + cc
			h2, l2 := bits.Mul(mi, p[j])
			s, cc = bits.Add(s, l2, 0)
			h2 += cc
			s, cc = bits.Add(s, c2, 0)
			c2 = h2 + cc
			t[j-1] = s
		}
		s, cc = bits.Add(t[n], c1, 0)
		s, cc2 := bits.Add(s, c2, 0)
		t[n-1], t[n] = s, cc+cc2
	}
	// t < 2p: z = t - p, kept unless that borrows out of the top limb t[n].
	var b uint
	for j := range z {
		z[j], b = bits.Sub(t[j], p[j], b)
	}
	_, b = bits.Sub(t[n], 0, b)
	keepT := -b // all ones iff t < p
	for j := range z {
		z[j] ^= (z[j] ^ t[j]) & keepT
	}
}

// ctSelect sets dst to entry idx of tab, a table of len(tab)/len(dst)
// entries of len(dst) limbs each, at most 1<<expWindowMax of them, reading
// every entry: the memory access pattern is independent of idx, and the
// entry is picked by masks.
func ctSelect(dst, tab []uint, idx uint) {
	n := len(dst)
	entries := len(tab) / n
	if entries > 1<<expWindowMax || entries*n != len(tab) {
		panic("modp: bad table")
	}
	// masks[2k] = masks[2k+1] = all ones iff k == idx (pairs for SSE2).
	var masks [2 << expWindowMax]uint
	for k := 0; k < entries; k++ {
		d := uint(k) ^ idx
		m := (((d | -d) >> (bits.UintSize - 1)) & 1) - 1
		masks[2*k], masks[2*k+1] = m, m
	}
	if haveSelectSSE2 && n%8 == 0 {
		ctSelectSSE2(&dst[0], &tab[0], &masks[0], n, entries)
		return
	}
	ctSelectGeneric(dst, tab, masks[:2*entries])
}

// ctSelectGeneric is ctSelect on Go code, four limbs at a time in
// registers.
func ctSelectGeneric(dst, tab, masks []uint) {
	n := len(dst)
	entries := len(masks) / 2
	j := 0
	for ; j+4 <= n; j += 4 {
		var a0, a1, a2, a3 uint
		for k, off := 0, j; k < entries; k, off = k+1, off+n {
			mask := masks[2*k]
			s := tab[off : off+4 : off+4]
			a0 |= s[0] & mask
			a1 |= s[1] & mask
			a2 |= s[2] & mask
			a3 |= s[3] & mask
		}
		dst[j], dst[j+1], dst[j+2], dst[j+3] = a0, a1, a2, a3
	}
	for ; j < n; j++ {
		var a uint
		for k, off := 0, j; k < entries; k, off = k+1, off+n {
			a |= tab[off] & masks[2*k]
		}
		dst[j] = a
	}
}

// expWindowMax is the largest window Exp uses.
const expWindowMax = 6

// expWindow returns the window size for an exponent of the given bit
// length, a public value: the choice, and with it the time, depends only on
// it. A window of w bits costs 2^(w-1) squarings and 2^(w-1)-1
// multiplications for the table, then per w bits of exponent w squarings,
// a lookup that reads all 2^w entries, and one multiplication. The bounds
// come from BenchmarkModPExpWindow (see the package documentation).
func expWindow(ebits int) uint {
	switch {
	case ebits <= 384:
		return 4
	case ebits <= 1536:
		return 5
	default:
		return 6
	}
}

// expScratch is the working memory of one exponentiation, pooled per group
// so that Exp does not allocate in the steady state.
type expScratch struct {
	t   []uint // 2n: mul and sqr scratch
	acc []uint // n
	sel []uint // n
	tab []uint // 2^expWindowMax entries of n limbs
}

func (m *monty) newScratch() *expScratch {
	n := m.n
	buf := make([]uint, 2*n+2*n+(1<<expWindowMax)*n)
	s := &expScratch{}
	s.t, buf = buf[:2*n], buf[2*n:]
	s.acc, buf = buf[:n], buf[n:]
	s.sel, buf = buf[:n], buf[n:]
	s.tab = buf
	return s
}

func (m *monty) getScratch() *expScratch { return m.scratch.Get().(*expScratch) }

// putScratch clears s, which held powers of a possibly secret base, and
// returns it to the pool.
func (m *monty) putScratch(s *expScratch, tabLimbs int) {
	clear(s.acc)
	clear(s.sel)
	clear(s.t)
	clear(s.tab[:tabLimbs])
	m.scratch.Put(s)
}

// window returns bits [pos, pos+w) of the big-endian exponent e, where bit 0
// is the least significant; bits past the top of e read as zero. The bytes
// it reads depend only on pos, w and len(e).
func window(e []byte, pos, w uint) uint {
	i := len(e) - 1 - int(pos/8) // byte holding bit pos
	v := uint(e[i])
	if i > 0 {
		v |= uint(e[i-1]) << 8
	}
	return v >> (pos % 8) & (1<<w - 1)
}

// exp sets z = x^e mod p (normal form, not Montgomery) for x < p and a
// big-endian exponent of any length. z may alias x. The sequence of
// operations and memory accesses depends only on len(e) and n: a fixed
// window of w bits, every table entry read at each lookup, and a
// multiplication for every window, by R mod p where the digit is zero.
func (m *monty) exp(z, x []uint, e []byte) {
	m.expWindow(z, x, e, expWindow(8*len(e)))
}

// expWindow is exp with a window of w bits, 1 <= w <= expWindowMax.
func (m *monty) expWindow(z, x []uint, e []byte, w uint) {
	n := m.n
	s := m.getScratch()
	L := uint(8 * len(e))
	tab := s.tab[:n<<w]
	defer m.putScratch(s, len(tab))

	// tab[k] = x^k in Montgomery form.
	copy(tab[:n], m.one)
	x1 := tab[n : 2*n]
	m.mul(x1, x, m.rr, s.t)
	for k := 2; k < 1<<w; k++ {
		dst := tab[k*n : (k+1)*n]
		if k%2 == 0 {
			m.sqr(dst, tab[k/2*n:(k/2+1)*n], s.t)
		} else {
			m.mul(dst, tab[(k-1)*n:k*n], x1, s.t)
		}
	}

	acc := s.acc
	if L == 0 {
		copy(acc, m.one)
	} else {
		// The top window holds the L mod w leading bits (w if that is 0).
		pos := (L - 1) / w * w
		ctSelect(acc, tab, window(e, pos, L-pos))
		for pos > 0 {
			pos -= w
			for i := uint(0); i < w; i++ {
				m.sqr(acc, acc, s.t)
			}
			ctSelect(s.sel, tab, window(e, pos, w))
			m.mul(acc, acc, s.sel, s.t)
		}
	}
	m.fromMont(z, acc, s.sel, s.t)
}

// fromMont sets z = x/R mod p. tmp is scratch of n limbs, t of 2n.
func (m *monty) fromMont(z, x, tmp, t []uint) {
	clear(tmp)
	tmp[0] = 1
	m.mul(z, x, tmp, t)
}

// modMul sets z = x*y mod p for x, y < p (normal form) with two Montgomery
// multiplications, the scratch on the stack (cleared after use).
func (m *monty) modMul(z, x, y []uint) {
	var tbuf [2 * maxLimbs]uint
	var ubuf [maxLimbs]uint
	t, u := tbuf[:2*m.n], ubuf[:m.n]
	m.mul(u, x, y, t)    // x*y/R
	m.mul(z, u, m.rr, t) // x*y
	clear(u)
	clear(t)
}
