// Package modp provides the MODP groups: the multiplicative group of integers modulo a safe prime p,
// as used by SRP (RFC 5054, RFC 2945) and by DH-based PAKEs such as OEKE.
//
// # Arithmetic
//
// Exp, ExpBase and Mul run on this package's own Montgomery arithmetic
// (mont.go); filippo.io/bigmod parses, encodes, adds and subtracts. bigmod
// has assembly only up to 2048 bits and allocates its scratch space on the
// heap above that (700 allocations for one 3072-bit Exp with a 256-bit
// exponent, 7,700 with a full-length one), which made a 3072-bit Exp 4
// to 5 times slower than OpenSSL's BN_mod_exp_mont_consttime, and no maintained
// Go library offers constant-time Montgomery arithmetic with MULX, ADCX and
// ADOX at these sizes (math/big is variable time).
//
// Elements keep their value in a bigmod.Nat, whose limbs (Nat.Bits) the
// Montgomery code reads and writes directly. On amd64 with BMI2 and ADX,
// products and squares are computed by separated operand scanning in
// assembly (a squaring computes each cross product once, about 25% fewer
// multiplications), then Montgomery-reduced; elsewhere, and in tests on
// amd64, the same results come from portable code on math/bits (CIOS).
// The constants derived from p (-p^-1 mod 2^W, R^2 mod p) are computed with
// math/big, which never sees anything but p.
//
// # Constant time
//
// Arithmetic is constant time in the values of elements and exponents: the
// time and memory accesses depend only on the group and on the lengths of
// exponents, which callers keep fixed. No branch or memory index depends on
// a limb or exponent bit; the final subtraction of a Montgomery
// multiplication is a masked select, and table entries are picked by
// reading every entry and masking. TestModPExpTiming checks this
// statistically (Welch's t between all-zero and random exponents, and
// between base 1 and random bases).
//
// Exp is a fixed-window exponentiation: a table of x^0 .. x^(2^w-1) in
// Montgomery form, then per w bits of exponent w squarings, a lookup and a
// multiplication (by 1 for a zero digit). Its scratch space comes from a
// per-group sync.Pool and is cleared after use, so an exponentiation does
// not allocate; Exp, ExpBase and Mul allocate only the Element they return.
// The window is 4 bits for exponents up to 384 bits, 5 up to 1536 and 6
// beyond (expWindow), from BenchmarkModPExpWindow on an AMD EPYC (Zen 4):
// at 3072 bits, in microseconds for w = 4/5/6, a 256-bit exponent takes
// 590/601/653, 384 bits 886/885/921, 520 bits 1238/1154/1189, 1024 bits
// 2401/2231/2233, 1536 bits 3430/3259/3303 and 3072 bits 6769/6543/6413;
// 4 bits is also best for 256-bit exponents at 2048 and 4096 bits, and 6
// for full-length ones.
//
// On that machine Exp takes 0.29, 0.63 and 1.06 ms at 2048, 3072 and 4096
// bits with a 256-bit exponent (2.2, 7.1 and 15.6 ms with a full-length
// one), within 10% of OpenSSL 3.0's BN_mod_exp_mont_consttime (0.28, 0.60,
// 1.10 ms; 2.0, 6.6, 15.6 ms); with bigmod it took 0.41, 2.3 and 4.4 ms.
// ExpBase uses a precomputed table of powers of g (modp_fixedbase.go).
package modp

import (
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"

	"filippo.io/bigmod"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// ErrInvalidElement is wrapped (together with pakeerr.ErrInvalidMessage) by
// every error that rejects a MODP element encoding.
var ErrInvalidElement = errors.New("modp: invalid MODP element")

// ExponentSize is the default secret exponent length in bytes: 256 bits
// for 128-bit security (RFC 3526 §1: the exponent "should have double the
// entropy of the strength of the entire system").
const ExponentSize = 32

// Group is the group Z_p^* for a safe prime p = 2q + 1 (q prime) with a fixed
// generator g. Every prime this package defines is a safe prime, so the
// subgroups of Z_p^* have orders 1, 2, q and 2q.
//
// A Group is immutable and safe for concurrent use. Get one from
// RFC3526Group15 or RFC5054Group.
type Group struct {
	name string
	p    *bigmod.Modulus
	pb   []byte      // p, big-endian, Size bytes
	qb   []byte      // q = (p-1)/2, big-endian, Size bytes
	gb   []byte      // g, big-endian, minimal length
	g    *bigmod.Nat // g mod p
	rm   []uint      // 2^(8*(Size-1)) mod p in Montgomery form, for Reduce
	mont *monty      // Montgomery arithmetic for Exp, ExpBase and Mul

	tableOnce sync.Once
	table     *modpBaseTable // fixed-base table for ExpBase, built on first use
}

// newModP builds a group from a big-endian prime and a small generator. It
// is only called on constants, so malformed input is a bug and panics.
func newModP(name string, p []byte, g uint) *Group {
	m, err := bigmod.NewModulus(p)
	if err != nil || p[0] == 0 || p[len(p)-1]&1 == 0 {
		panic("modp: bad MODP prime " + name)
	}
	// q = (p-1)/2 = p >> 1, since p is odd.
	q := make([]byte, len(p))
	for i := range p {
		q[i] = p[i] >> 1
		if i > 0 {
			q[i] |= p[i-1] << 7
		}
	}
	if g < 2 || g > 255 {
		panic("modp: bad MODP generator for " + name)
	}
	gn, err := bigmod.NewNat().SetBytes([]byte{byte(g)}, m)
	if err != nil {
		panic("modp: bad MODP generator for " + name)
	}
	// 2^(8*(Size-1)) has Size bytes and is below p, whose top byte is non-zero.
	rb := make([]byte, len(p))
	rb[0] = 1
	r, err := bigmod.NewNat().SetBytes(rb, m)
	if err != nil {
		panic("modp: bad MODP prime " + name)
	}
	mont := newMonty(p)
	if len(gn.Bits()) != mont.n {
		panic("modp: limb counts of bigmod and Montgomery arithmetic differ for " + name)
	}
	rm := make([]uint, mont.n)
	mont.modMul(rm, r.Bits(), mont.one) // r*R mod p
	return &Group{name: name, p: m, pb: p, qb: q, gb: []byte{byte(g)}, g: gn, rm: rm, mont: mont}
}

// Name returns the group's name, e.g. "RFC5054-2048" or "RFC3526-MODP-3072".
func (g *Group) Name() string { return g.name }

// Size returns the byte length of p, which is the length of every encoded
// element (RFC 5054 PAD()).
func (g *Group) Size() int { return len(g.pb) }

// BitLen returns the bit length of p.
func (g *Group) BitLen() int { return g.p.BitLen() }

// P returns the prime p, big-endian, Size bytes.
func (g *Group) P() []byte { return append([]byte(nil), g.pb...) }

// Q returns the prime q = (p-1)/2, the order of the subgroup of squares,
// big-endian, Size bytes.
func (g *Group) Q() []byte { return append([]byte(nil), g.qb...) }

// G returns the generator g, big-endian, without leading zeros (one byte for
// every group here). Generator().Bytes() is PAD(g).
func (g *Group) G() []byte { return append([]byte(nil), g.gb...) }

// Modulus returns p as a bigmod modulus.
func (g *Group) Modulus() *bigmod.Modulus { return g.p }

// Generator returns the element g.
func (g *Group) Generator() *Element { return g.clone(g.g) }

// Element is an integer modulo p, 0 <= x < p. Elements decoded from the
// wire are in Z_p^* (non-zero); sums and differences may be zero. The zero
// value is not usable: elements come from the methods of a Group and must only
// be combined with elements of the same Group (mixing groups panics).
type Element struct {
	group *Group
	n     *bigmod.Nat // reduced mod p, announced length that of p
}

func (g *Group) clone(x *bigmod.Nat) *Element {
	z := g.newElement()
	z.n.Add(x, g.p) // 0 + x
	return z
}

// newElement returns the element 0, in two allocations (the Element with
// its Nat, and the limbs).
func (g *Group) newElement() *Element {
	box := new(struct {
		e Element
		n bigmod.Nat
	})
	box.n.ExpandFor(g.p)
	box.e = Element{group: g, n: &box.n}
	return &box.e
}

func (g *Group) check(xs ...*Element) {
	for _, x := range xs {
		if x.group != g {
			panic("modp: element of " + x.group.name + " used in " + g.name)
		}
	}
}

func invalidElement(format string, args ...any) error {
	return fmt.Errorf("%w: %w: "+format, append([]any{pakeerr.ErrInvalidMessage, ErrInvalidElement}, args...)...)
}

// ParseElement decodes a big-endian element of exactly Size bytes (PAD(x),
// RFC 5054 §2.1). It rejects other lengths, values >= p, and 0, so SRP's
// aborts on "B % N is zero" and "A % N is zero" (RFC 5054 §2.5.3, §2.5.4)
// happen here. It accepts 1 and p-1; protocols that
// must exclude them call CheckNonTrivial. Errors wrap ErrInvalidElement and
// pakeerr.ErrInvalidMessage. Constant time in the value of b.
func (g *Group) ParseElement(b []byte) (*Element, error) {
	if len(b) != g.Size() {
		return nil, invalidElement("%d bytes, want %d", len(b), g.Size())
	}
	n, err := bigmod.NewNat().SetBytes(b, g.p)
	if err != nil {
		return nil, invalidElement("not less than p")
	}
	if n.IsZero() == 1 {
		return nil, invalidElement("zero")
	}
	return &Element{group: g, n: n}, nil
}

// Reduce returns b mod p for a big-endian integer b of any length (for
// example a hash output such as SRP's k). Its time depends only on len(b).
func (g *Group) Reduce(b []byte) *Element {
	// Horner's rule over chunks of Size-1 bytes, each below 2^(8*(Size-1))
	// < p: acc = acc * 2^(8*(Size-1)) + chunk.
	c := g.Size() - 1
	buf := make([]byte, (len(b)+c-1)/c*c)
	copy(buf[len(buf)-len(b):], b)
	z := g.newElement()
	acc := z.n
	chunk := make([]byte, g.Size())
	x := bigmod.NewNat()
	var tbuf [2 * maxLimbs]uint
	for off := 0; off < len(buf); off += c {
		copy(chunk[1:], buf[off:off+c])
		if _, err := x.SetBytes(chunk, g.p); err != nil {
			panic("modp: unreachable: chunk not below p")
		}
		g.mont.mul(acc.Bits(), acc.Bits(), g.rm, tbuf[:]) // acc * r
		acc.Add(x, g.p)
	}
	return z
}

// Exp returns x^e mod p, for a big-endian exponent e of any length (e may
// exceed p; the empty exponent gives 1). Constant time in x and in the value
// of e: the time depends only on len(e).
func (g *Group) Exp(x *Element, e []byte) *Element {
	g.check(x)
	z := g.newElement()
	g.mont.exp(z.n.Bits(), x.n.Bits(), e)
	return z
}

// ExpBase returns g^e mod p, like Exp(Generator(), e). Exponents of up to
// 64 bytes use a precomputed fixed-base table (built on the first call);
// longer ones use Exp. Constant time in the value of e.
func (g *Group) ExpBase(e []byte) *Element {
	z := g.newElement()
	if len(e) > modpBaseBytes {
		g.mont.exp(z.n.Bits(), g.g.Bits(), e)
	} else {
		g.baseTable().exp(g, z.n.Bits(), e)
	}
	return z
}

// Mul returns x*y mod p.
func (g *Group) Mul(x, y *Element) *Element {
	g.check(x, y)
	z := g.newElement()
	g.mont.modMul(z.n.Bits(), x.n.Bits(), y.n.Bits())
	return z
}

// Add returns x+y mod p (for SRP's B = k*v + g^b, RFC 5054 §2.5.3).
func (g *Group) Add(x, y *Element) *Element {
	g.check(x, y)
	z := g.clone(x.n)
	z.n.Add(y.n, g.p)
	return z
}

// Sub returns x-y mod p (for SRP's B - k*g^x, RFC 5054 §2.6).
func (g *Group) Sub(x, y *Element) *Element {
	g.check(x, y)
	z := g.clone(x.n)
	z.n.Sub(y.n, g.p)
	return z
}

// Bytes returns the big-endian encoding of x, left-padded to Size bytes
// (RFC 5054 PAD()).
func (x *Element) Bytes() []byte { return x.n.Bytes(x.group.p) }

// Equal returns 1 if x == y and 0 otherwise, in constant time.
func (x *Element) Equal(y *Element) int {
	x.group.check(y)
	return int(x.n.Equal(y.n))
}

// IsZero returns 1 if x == 0 and 0 otherwise, in constant time.
func (x *Element) IsZero() int { return int(x.n.IsZero()) }

// IsOne returns 1 if x == 1 and 0 otherwise, in constant time.
func (x *Element) IsOne() int { return int(x.n.IsOne()) }

// IsMinusOne returns 1 if x == p-1 and 0 otherwise, in constant time.
func (x *Element) IsMinusOne() int { return int(x.n.IsMinusOne(x.group.p)) }

// CheckNonTrivial returns an error wrapping ErrInvalidElement and
// pakeerr.ErrInvalidMessage if x is 0, 1 or p-1. For a safe prime these are
// exactly the elements of order below q (or no order at all), so a peer's
// value that passes lies in a subgroup of order q or 2q.
func (x *Element) CheckNonTrivial() error {
	if x.IsZero()|x.IsOne()|x.IsMinusOne() == 1 {
		return invalidElement("0, 1 or p-1")
	}
	return nil
}

// RandomExponent reads a secret exponent of size bytes from rand: the bytes
// read, as a big-endian integer, are the exponent (tests replay a
// specification's fixed exponent by supplying it as the reader's output).
// An all-zero draw is discarded and read again. Use ExponentSize for
// 128-bit security, or Size() for a full-length exponent. Errors wrap
// pakeerr.ErrRandom (reader failed) or pakeerr.ErrInvalidParameter (size < 1).
func RandomExponent(rand io.Reader, size int) ([]byte, error) {
	if size < 1 {
		return nil, fmt.Errorf("%w: exponent size %d", pakeerr.ErrInvalidParameter, size)
	}
	e := make([]byte, size)
	zero := make([]byte, size)
	for {
		if _, err := io.ReadFull(rand, e); err != nil {
			return nil, fmt.Errorf("%w: %w", pakeerr.ErrRandom, err)
		}
		// Discarding a zero draw (probability 2^-8size) reveals nothing about
		// the exponent that is kept.
		if subtle.ConstantTimeCompare(e, zero) == 0 {
			return e, nil
		}
	}
}

// ExponentMulAdd returns u*x + a as a big-endian integer of exactly
// max(len(a), len(u)+len(x)) + 1 bytes, computed over the integers in
// constant time: the time and the output length depend only on the input
// lengths.
//
// This is SRP's client exponent a + u*x (RFC 5054 §2.6, S = (B - k*g^x) ^
// (a + u*x) % N). The sum is deliberately not reduced: an unreduced exponent
// is correct for a base of any order, whereas reducing mod q is wrong for
// bases outside the subgroup of order q, and reducing mod p-1 (always
// correct) would make the exponent as long as p: 384 bytes for a 3072-bit
// group, against 65 here for SHA-256 SRP with a 32-byte a.
//
// It is schoolbook multiplication on math/bits (constant time for all
// inputs): bigmod has no modulus-free integer product, and emulating one
// with a fresh modulus per call costs more than the product itself.
func ExponentMulAdd(u, x, a []byte) []byte {
	l := max(len(a), len(u)+len(x)) + 1
	uw, xw, aw := words(u), words(x), words(a)
	z := make([]uint64, len(uw)+len(xw)+len(aw)+1)
	copy(z, aw)
	for i, ui := range uw {
		var carry uint64
		for j, xj := range xw {
			hi, lo := bits.Mul64(ui, xj)
			var c uint64
			lo, c = bits.Add64(lo, z[i+j], 0)
			hi += c
			lo, c = bits.Add64(lo, carry, 0)
			hi += c
			z[i+j], carry = lo, hi
		}
		for k := i + len(xw); k < len(z); k++ {
			z[k], carry = bits.Add64(z[k], carry, 0)
		}
	}
	// u*x + a < 2^(8(l-1)+1): the top bytes of z are zero.
	out := make([]byte, 8*len(z))
	for i, w := range z {
		binary.BigEndian.PutUint64(out[len(out)-8*(i+1):], w)
	}
	return out[len(out)-l:]
}

// words returns big-endian b as little-endian 64-bit words.
func words(b []byte) []uint64 {
	w := make([]uint64, (len(b)+7)/8)
	for i := range w {
		var buf [8]byte
		lo := max(len(b)-8*(i+1), 0)
		copy(buf[8-(len(b)-8*i-lo):], b[lo:len(b)-8*i])
		w[i] = binary.BigEndian.Uint64(buf[:])
	}
	return w
}
