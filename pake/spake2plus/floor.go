package spake2plus

import (
	"fmt"
	"github.com/kexlab/kexlab/internal/floor"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Unavoidable returns the primitive limit of one exchange with the
// registered configuration (scrypt N=32768, r=8, p=1), with random scalars
// and a valid peer element drawn from rand off the clock (RFC 9383,
// Section 3.3 and 3.4):
//
//	prover:   shareP = x·P + w0·M (ScalarBaseMult, TableMult, Add); decoding
//	          shareV; shareV − w0·N (TableMult); Z = x·(...), V = w1·(...)
//	verifier: shareV = y·P + w0·N (ScalarBaseMult, TableMult, Add); decoding
//	          shareP; shareP − w0·M (TableMult); Z = y·(...), V = y·L
func Unavoidable(rand io.Reader) (*floor.Floor, error) {
	rand = sysrand.Or(rand)
	s := make([]*group.Scalar, 4)
	for i := range s {
		var err error
		if s[i], err = group.RandomScalar(rand); err != nil {
			return nil, fmt.Errorf("%w: spake2plus: floor inputs", pakeerr.ErrRandom)
		}
	}
	x, w0, w1 := s[0], s[1], s[2]
	L := group.NewPoint().ScalarBaseMult(w1)
	peer := group.NewPoint().ScalarBaseMult(s[3]).Bytes()
	c := suiteConstants()
	// party is one side: own and other are the tables of its mask and of
	// the peer's, k1·Q and k2·(Q or L) its two variable-base products.
	party := func(own, other *group.Table, k2 *group.Scalar, l *group.Point) error {
		share := group.NewPoint().ScalarBaseMult(x)
		share.Add(share, group.NewPoint().TableMult(w0, own))
		q, err := group.NewPoint().SetBytes(peer)
		if err != nil {
			return err
		}
		q.Add(q, group.NewPoint().TableMult(w0, other))
		if l == nil {
			l = q
		}
		group.NewPoint().ScalarMult(x, q)
		group.NewPoint().ScalarMult(k2, l)
		return nil
	}
	server := func() error { return party(c.nTable, c.mTable, x, L) }
	salt := IdentitySalt([]byte("prover"), []byte("verifier"))
	return &floor.Floor{
		Ops: []string{
			"2 × P-256 ScalarBaseMult",
			"4 × P-256 TableMult (M, N)",
			"2 × P-256 point decoding (uncompressed)",
			"4 × P-256 ScalarMult",
			fmt.Sprintf("1 × scrypt N=%d r=%d p=%d", ScryptN, ScryptR, ScryptP),
		},
		Online: func() error {
			if err := party(c.mTable, c.nTable, w1, nil); err != nil {
				return err
			}
			return server()
		},
		Server: server,
		Password: func() error {
			_, err := Scrypt(salt)([]byte("password"), PBKDFOutputSize)
			return err
		},
	}, nil
}
