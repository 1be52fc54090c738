package sae

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/floor"
	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

// Unavoidable returns the primitive limit of one authentication whose
// stations derive PWE by hash-to-element (§12.4.4.2.3: PT from the SSID
// and password, then PWE = val·PT) or, with huntAndPeck, by hunting and
// pecking with opts (§12.4.4.2.2), with secrets and a valid peer commit
// drawn from rand off the clock. Per station (§12.4.5.3, §12.4.5.4):
// COMMIT-ELEMENT = inverse(mask·PWE); decoding the peer's element;
// K = rand·(peer-scalar·PWE + PEER-COMMIT-ELEMENT). The constant-time
// hunt's every round counts: the standard runs at least k = 40 rounds
// whatever the round that found PWE, so that its time does not reveal the
// password.
func Unavoidable(rand io.Reader, huntAndPeck bool, opts *Options) (*floor.Floor, error) {
	rand = sysrand.Or(rand)
	s, err := group.RandomScalar(rand)
	if err != nil {
		return nil, fmt.Errorf("%w: sae: floor inputs", pakeerr.ErrRandom)
	}
	ssid, password := []byte("kexlab"), []byte("password")
	staA, staB := MACFromID([]byte("client")), MACFromID([]byte("server"))
	derive := func() (*group.Point, error) {
		if huntAndPeck {
			return HuntAndPeck(password, staA, staB, opts)
		}
		pt, err := DerivePT(ssid, password, nil)
		if err != nil {
			return nil, err
		}
		return pt.PWE(staA, staB)
	}
	ops := []string{
		"4 × P-256 ScalarMult (mask·PWE, peer-scalar·PWE)",
		"2 × P-256 point decoding (x||y)",
		"2 × P-256 ScalarMult (rand·(...))",
	}
	switch {
	case !huntAndPeck:
		ops = append(ops, "2 × SAE H2E PT derivation (2 × hash_to_field, 2 × SSWU)",
			"2 × P-256 ScalarMult (PWE = val·PT)")
	case opts != nil && opts.InsecureEarlyExit:
		ops = append(ops, "2 × hunting-and-pecking PWE (INSECURE early exit)")
	default:
		ops = append(ops, fmt.Sprintf("2 × hunting-and-pecking PWE (%d rounds, constant time)", Iterations))
	}
	return core.Floor(ops, s, derive)
}
