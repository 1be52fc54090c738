//go:build amd64 && !purego

package modp

import "github.com/kexlab/kexlab/internal/cpuid"

// useADX reports BMI2 (MULX) and ADX (ADCX, ADOX), which mulADX, sqrADX and
// redcADX need; groups built while it is set use them. Tests build copies of
// the groups with monty.adx cleared to run the portable code on the same
// machine.
var useADX = cpuid.X86.BMI2 && cpuid.X86.ADX

// mulADX sets t[0..2n-1] = x*y for n-limb x and y, n a positive multiple
// of 8.
//
//go:noescape
func mulADX(t, x, y *uint, n int)

// sqrADX sets t[0..2n-1] = x*x for an n-limb x, n a positive multiple of 8.
//
//go:noescape
func sqrADX(t, x *uint, n int)

// redcADX sets z = t/R mod p, fully reduced, for a 2n-limb t < p*R, n a
// positive multiple of 8 and n0 = -p^-1 mod 2^64; t is overwritten. z may
// not alias t.
//
//go:noescape
func redcADX(z, t, p *uint, n int, n0 uint)

// haveSelectSSE2: ctSelectSSE2 needs only SSE2, which every amd64 CPU has.
const haveSelectSSE2 = true

// ctSelectSSE2 is ctSelectGeneric in SSE2 for n a positive multiple of 8:
// dst = OR over k < entries of tab[k*n:(k+1)*n] AND masks[2k:2k+2].
//
//go:noescape
func ctSelectSSE2(dst, tab, masks *uint, n, entries int)
