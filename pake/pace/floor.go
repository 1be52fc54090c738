package pace

import (
	"crypto/aes"
	"fmt"
	"github.com/kexlab/kexlab/internal/floor"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
	"github.com/kexlab/kexlab/pake/pace/internal/suite"
)

// Unavoidable returns the primitive limit of one run with mapping m and
// K_π = PBKDF2 with the given iteration count (zero: DefaultIterations),
// with secrets and a valid peer point drawn from rand off the clock. Per
// party (§4.4.1, §4.4.3): the nonce z = E(K_π, s), encrypted by the chip
// and decrypted by the terminal (one AES block each); the mapping to the
// ephemeral generator G' — Generic Mapping: PK_Map = sk_Map·G and
// G' = s·G + sk_Map·PK_Map,peer (two ScalarBaseMult, one decoding, one
// ScalarMult); Integrated Mapping: G' = f_G(R(s, t)) (the AES-based
// pseudo-random function and the point encoding) — then PK = sk·G',
// the decoding of the peer's PK and K = sk·PK_peer.
func Unavoidable(rand io.Reader, m Mapping, iterations int) (*floor.Floor, error) {
	rand = sysrand.Or(rand)
	if iterations == 0 {
		iterations = DefaultIterations
	}
	sk, err := group.RandomScalar(rand)
	nonce, kpi := make([]byte, 2*NonceSize), make([]byte, KeySize)
	if err == nil {
		_, err = io.ReadFull(rand, nonce)
	}
	if err == nil {
		_, err = io.ReadFull(rand, kpi)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: pace: floor inputs", pakeerr.ErrRandom)
	}
	s, t := nonce[:NonceSize], nonce[NonceSize:]
	peer := group.NewPoint().ScalarBaseMult(sk).Bytes()
	party := func() error {
		blk, err := aes.NewCipher(kpi)
		if err != nil {
			return err
		}
		blk.Encrypt(make([]byte, NonceSize), s)
		gen, err := mapGenerator(m, sk, s, t, peer)
		if err != nil {
			return err
		}
		group.NewPoint().ScalarMult(sk, gen)
		q, err := group.NewPoint().SetBytes(peer)
		if err != nil {
			return err
		}
		group.NewPoint().ScalarMult(sk, q)
		return nil
	}
	salt := PBKDF2Salt([]byte("chip"))
	key := PBKDF2PasswordKey(salt, iterations)
	return &floor.Floor{
		Ops: append(mappingOps(m),
			"2 × AES-128 block (nonce z = E(K_π, s))",
			"2 × P-256 point decoding (uncompressed, PK)",
			"4 × P-256 ScalarMult (PK = sk·G', K)",
			fmt.Sprintf("2 × PBKDF2-HMAC-SHA256 (%d iterations)", iterations)),
		Online: func() error {
			if err := party(); err != nil {
				return err
			}
			return party()
		},
		Password: func() error {
			for range 2 {
				if _, err := key([]byte("password")); err != nil {
					return err
				}
			}
			return nil
		},
	}, nil
}

// mapGenerator performs one party's mapping of the nonce to G'.
func mapGenerator(m Mapping, sk *group.Scalar, s, t, peer []byte) (*group.Point, error) {
	if m == IntegratedMapping {
		x, err := suite.PseudoRandom(s, t)
		if err != nil {
			return nil, err
		}
		enc, err := suite.P256.Encode(suite.P256.Reduce(x))
		if err != nil {
			return nil, err
		}
		return group.NewPoint().SetBytes(enc)
	}
	group.NewPoint().ScalarBaseMult(sk) // PK_Map
	q, err := group.NewPoint().SetBytes(peer)
	if err != nil {
		return nil, err
	}
	h := group.NewPoint().ScalarMult(sk, q)
	sg := group.NewPoint().ScalarBaseMult(group.NewScalar().SetReducedBytes(s))
	return sg.Add(sg, h), nil
}

// mappingOps names the operations of mapGenerator, both parties.
func mappingOps(m Mapping) []string {
	if m == IntegratedMapping {
		return []string{"2 × PACE-IM mapping (R(s, t): AES-128 PRF; f_G: P-256 point encoding)"}
	}
	return []string{
		"4 × P-256 ScalarBaseMult (PK_Map = sk_Map·G, s·G)",
		"2 × P-256 point decoding (uncompressed, PK_Map)",
		"2 × P-256 ScalarMult (H = sk_Map·PK_Map)",
	}
}
