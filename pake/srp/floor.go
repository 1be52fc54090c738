package srp

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/floor"
	"github.com/kexlab/kexlab/internal/group/modp"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Unavoidable returns the primitive limit of one exchange in p, with
// exponents of the sizes a run uses and a valid peer element drawn from
// rand off the clock (RFC 5054 §2.5.3, §2.6, RFC 2945):
//
//	client: A = g^a, g^x (fixed base), decoding B,
//	        S = (B − k·g^x)^(a + u·x), an exponent of 32+h+1 bytes
//	server: g^b (fixed base) in B = k·v + g^b, decoding A, v^u and
//	        S = (A·v^u)^b
//
// The fixed-base table of g is built once, off the clock, as any
// implementation may. A nil rand means crypto/rand.
func Unavoidable(rand io.Reader, p *Params) (*floor.Floor, error) {
	if p == nil {
		return nil, errNoParams
	}
	rand = sysrand.Or(rand)
	g := p.group
	a, err1 := modp.RandomExponent(rand, modp.ExponentSize)
	b, err2 := modp.RandomExponent(rand, modp.ExponentSize)
	e, err3 := modp.RandomExponent(rand, modp.ExponentSize)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, fmt.Errorf("%w: srp: floor inputs", pakeerr.ErrRandom)
	}
	u, x := p.h([]byte("u")), p.h([]byte("x"))
	ax := modp.ExponentMulAdd(u, x, a)
	peer := g.ExpBase(e).Bytes() // also builds g's table
	decode := func() (*modp.Element, error) {
		q, err := g.ParseElement(peer)
		if err != nil {
			return nil, err
		}
		return q, q.CheckNonTrivial()
	}
	server := func() error {
		g.ExpBase(b)
		A, err := decode()
		if err != nil {
			return err
		}
		g.Exp(g.Mul(A, g.Exp(A, u)), b)
		return nil
	}
	bits, hbits := 8*modp.ExponentSize, 8*p.HashSize()
	return &floor.Floor{
		Ops: []string{
			fmt.Sprintf("2 × MODP-%d fixed-base Exp (%d-bit exponent: g^a, g^b)", g.BitLen(), bits),
			fmt.Sprintf("1 × MODP-%d fixed-base Exp (%d-bit exponent: g^x)", g.BitLen(), hbits),
			fmt.Sprintf("2 × MODP-%d element decoding", g.BitLen()),
			fmt.Sprintf("1 × MODP-%d Exp (%d-bit exponent: v^u)", g.BitLen(), hbits),
			fmt.Sprintf("1 × MODP-%d Exp (%d-bit exponent: (A·v^u)^b)", g.BitLen(), bits),
			fmt.Sprintf("1 × MODP-%d Exp (%d-bit exponent: (B − k·g^x)^(a+u·x))", g.BitLen(), 8*len(ax)),
		},
		Online: func() error {
			g.ExpBase(a)
			g.ExpBase(x)
			B, err := decode()
			if err != nil {
				return err
			}
			g.Exp(B, ax)
			return server()
		},
		Server: server,
	}, nil
}
