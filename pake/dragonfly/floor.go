package dragonfly

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/floor"
	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

// Unavoidable returns the primitive limit of one exchange with opts (nil:
// the constant-time hunt), with secrets and a valid peer commit drawn from
// rand off the clock. Per peer (RFC 7664 §3.3): Element = inverse(mask·PE);
// decoding the peer's Element; K = private·(peer-scalar·PE ⊕ peer-Element),
// three variable-base multiplications in all. Password is hunting and
// pecking (§3.2.1) in each peer, run as PasswordElement runs it: all
// Iterations rounds whatever the round that found PE. The constant-time
// loop is not overhead to be optimized away: RFC 7664 §3.2.1 requires it
// to run at least k rounds so that its duration does not reveal the
// password (Dragonblood, Vanhoef and Ronen 2020, shows what an early exit
// leaks), so every round's hashing, reduction and quadratic-residue test
// counts. Only InsecureEarlyExit, a measurement aid, makes it shorter.
func Unavoidable(rand io.Reader, opts *Options) (*floor.Floor, error) {
	rand = sysrand.Or(rand)
	s, err := group.RandomScalar(rand)
	if err != nil {
		return nil, fmt.Errorf("%w: dragonfly: floor inputs", pakeerr.ErrRandom)
	}
	password, idA, idB := []byte("password"), []byte("alice"), []byte("bob")
	hunt := fmt.Sprintf("hunting-and-pecking PE (%d rounds, constant time)", Iterations)
	if opts != nil && opts.InsecureEarlyExit {
		hunt = "hunting-and-pecking PE (INSECURE early exit)"
	}
	ops := []string{
		"4 × P-256 ScalarMult (mask·PE, peer-scalar·PE)",
		"2 × P-256 point decoding (x||y)",
		"2 × P-256 ScalarMult (private·(...))",
		"2 × " + hunt,
	}
	return core.Floor(ops, s, func() (*group.Point, error) {
		return PasswordElement(password, idA, idB, opts)
	})
}
