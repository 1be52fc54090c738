package spake2

import (
	"fmt"
	"github.com/kexlab/kexlab/internal/floor"
	"io"
	"reflect"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Unavoidable returns the primitive limit of one exchange whose parties
// derive w with mhf (nil: Scrypt), with random scalars of the real sizes
// and a valid peer element drawn from rand off the clock. Per party
// (RFC 9382, Section 3.3): the share x·P + w·M (ScalarBaseMult, TableMult
// on the fixed point M, Add), the decoding of the peer's share, w·N
// (TableMult) and K = x·(pB − w·N) (ScalarMult); B mirrors it with M and N
// exchanged. Password is the MHF of Section 3.2, once per party.
func Unavoidable(rand io.Reader, mhf MHF) (*floor.Floor, error) {
	rand = sysrand.Or(rand)
	x, err1 := group.RandomScalar(rand)
	w, err2 := group.RandomScalar(rand)
	r, err3 := group.RandomScalar(rand)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, fmt.Errorf("%w: spake2: floor inputs", pakeerr.ErrRandom)
	}
	peer := group.NewPoint().ScalarBaseMult(r).Bytes()
	c := bases()
	party := func(own, other *group.Table) error {
		share := group.NewPoint().ScalarBaseMult(x)
		share.Add(share, group.NewPoint().TableMult(w, own))
		q, err := group.NewPoint().SetBytes(peer)
		if err != nil {
			return err
		}
		group.NewPoint().TableMult(w, other).ScalarMult(x, q)
		return nil
	}
	f := &floor.Floor{
		Ops: []string{
			"2 × P-256 ScalarBaseMult",
			"4 × P-256 TableMult (M, N)",
			"2 × P-256 point decoding (uncompressed)",
			"2 × P-256 ScalarMult",
		},
		Online: func() error {
			if err := party(c.m, c.n); err != nil {
				return err
			}
			return party(c.n, c.m)
		},
	}
	name, stretch := mhfName(mhf)
	f.Ops = append(f.Ops, "2 × "+name)
	salt := IdentitySalt([]byte("A"), []byte("B"))
	f.Password = func() error {
		for range 2 {
			if _, err := DeriveW(stretch, []byte("password"), salt); err != nil {
				return err
			}
		}
		return nil
	}
	return f, nil
}

// mhfName names mhf for Floor.Ops and returns the function to run; a nil
// mhf selects Scrypt, as DeriveW does.
func mhfName(mhf MHF) (string, MHF) {
	if mhf == nil || reflect.ValueOf(mhf).Pointer() == reflect.ValueOf(MHF(Scrypt)).Pointer() {
		return fmt.Sprintf("scrypt N=%d r=%d p=%d", ScryptN, ScryptR, ScryptP), Scrypt
	}
	if reflect.ValueOf(mhf).Pointer() == reflect.ValueOf(MHF(HKDF)).Pointer() {
		return "HKDF-SHA256 (no memory-hard function)", HKDF
	}
	return "MHF (application's)", mhf
}
