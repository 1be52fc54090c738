package opaque

import (
	"fmt"
	"io"
	"reflect"

	"github.com/kexlab/kexlab/internal/floor"
	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Unavoidable returns the primitive limit of one login whose client
// stretches with ksf (nil: Scrypt), with scalars and valid peer elements
// drawn from rand (nil: crypto/rand) off the clock (RFC 9807 §6.4,
// RFC 9497 §3.3.1):
//
//	client: HashToGroup(password), blind·P (Blind); ephemeral x·G;
//	        decoding evaluated_message, server_public_keyshare and
//	        server_public_key; blind⁻¹·Z (Finalize); the three 3DH products
//	server: decoding blinded_message, client_public_keyshare and the
//	        record's client_public_key; oprf_key·B (BlindEvaluate);
//	        ephemeral y·G; the three 3DH products
func Unavoidable(rand io.Reader, ksf KSF) (*floor.Floor, error) {
	rand = sysrand.Or(rand)
	s := make([]*group.Scalar, 4)
	for i := range s {
		var err error
		if s[i], err = group.RandomScalar(rand); err != nil {
			return nil, fmt.Errorf("%w: opaque: floor inputs", pakeerr.ErrRandom)
		}
	}
	enc := group.NewPoint().ScalarBaseMult(s[3]).BytesCompressed()
	decode3 := func() (p [3]*group.Point, err error) {
		for i := range p {
			if p[i], err = group.NewPoint().SetBytes(enc); err != nil {
				return p, err
			}
		}
		return p, nil
	}
	client := func() error {
		h, err := group.HashToCurve([]byte("password"), []byte("HashToGroup-OPRFV1-\x00-P256-SHA256"))
		if err != nil {
			return err
		}
		group.NewPoint().ScalarMult(s[0], h)
		group.NewPoint().ScalarBaseMult(s[1])
		q, err := decode3()
		if err != nil {
			return err
		}
		group.NewPoint().ScalarMult(group.NewScalar().Invert(s[0]), q[0])
		group.NewPoint().ScalarMult(s[1], q[1])
		group.NewPoint().ScalarMult(s[1], q[2])
		group.NewPoint().ScalarMult(s[2], q[1])
		return nil
	}
	server := func() error {
		q, err := decode3()
		if err != nil {
			return err
		}
		group.NewPoint().ScalarMult(s[0], q[0])
		group.NewPoint().ScalarBaseMult(s[1])
		group.NewPoint().ScalarMult(s[1], q[1])
		group.NewPoint().ScalarMult(s[2], q[1])
		group.NewPoint().ScalarMult(s[1], q[2])
		return nil
	}
	f := &floor.Floor{
		Ops: []string{
			"1 × P-256 hash_to_curve (XMD:SHA-256 SSWU RO)",
			"2 × P-256 ScalarBaseMult",
			"6 × P-256 point decoding (compressed)",
			"1 × P-256 scalar inversion",
			"9 × P-256 ScalarMult",
		},
		Online: func() error {
			if err := client(); err != nil {
				return err
			}
			return server()
		},
		Server: server,
	}
	if name, stretch := ksfName(ksf); stretch != nil {
		f.Ops = append(f.Ops, "1 × "+name)
		f.Password = func() error {
			_, err := stretch(make([]byte, nh))
			return err
		}
	}
	return f, nil
}

// ksfName names ksf for Floor.Ops and returns the function to run, nil for
// the identity KSF, which costs nothing.
func ksfName(ksf KSF) (string, KSF) {
	is := func(k KSF) bool { return reflect.ValueOf(ksf).Pointer() == reflect.ValueOf(k).Pointer() }
	switch {
	case ksf == nil || is(Scrypt):
		return "scrypt N=32768 r=8 p=1", Scrypt
	case is(Argon2id):
		return "Argon2id m=2^21 t=1 p=4", Argon2id
	case is(Identity):
		return "", nil
	}
	return "KSF (application's)", ksf
}
