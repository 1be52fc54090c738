package cpace

import (
	"fmt"
	"github.com/kexlab/kexlab/internal/floor"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Unavoidable returns the primitive limit of one run, with a random
// scalar and a valid peer element drawn from rand off the clock. Per party
// (draft-irtf-cfrg-cpace §6.2, §7.2, §8.4): the generator
// g = encode_to_curve(generator_string(...)) of the NU suite, Y = y·g, the
// decoding of the peer's Y and K = y·Y_peer. The generator string is built
// off the clock: it is concatenation, and encode_to_curve hashes it.
func Unavoidable(rand io.Reader) (*floor.Floor, error) {
	rand = sysrand.Or(rand)
	y, err := group.RandomScalar(rand)
	if err != nil {
		return nil, fmt.Errorf("%w: cpace: floor inputs", pakeerr.ErrRandom)
	}
	gs := generatorString([]byte(DSI), []byte("password"), LVCat([]byte("client"), []byte("server"), nil), nil, hashBlockSize)
	peer := group.NewPoint().ScalarBaseMult(y).Bytes()
	party := func() error {
		g, err := group.EncodeToCurve(gs, []byte(dst))
		if err != nil {
			return err
		}
		group.NewPoint().ScalarMult(y, g)
		q, err := group.NewPoint().SetBytes(peer)
		if err != nil {
			return err
		}
		group.NewPoint().ScalarMult(y, q)
		return nil
	}
	return &floor.Floor{
		Ops: []string{
			"2 × P-256 encode_to_curve (XMD:SHA-256 SSWU NU)",
			"2 × P-256 point decoding (uncompressed)",
			"4 × P-256 ScalarMult",
		},
		Online: func() error {
			if err := party(); err != nil {
				return err
			}
			return party()
		},
	}, nil
}
