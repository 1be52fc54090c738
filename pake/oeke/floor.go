package oeke

import (
	"fmt"
	"github.com/kexlab/kexlab/internal/floor"
	"io"

	"github.com/kexlab/kexlab/internal/group/modp"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Unavoidable returns the primitive limit of one exchange in p whose
// parties derive the password key with the given PBKDF2 iteration count
// (zero: DefaultIterations), with secrets and a valid peer element drawn
// from rand off the clock. Per the paper's Figure 2: the client computes
// X = g^x and the server Y = g^y (fixed base); the server encrypts Y under
// the password key (the ideal cipher, here AES-128-CBC) and the client
// decrypts it; each decodes the peer's element and raises it to its secret
// (K = Y^x = X^y).
func Unavoidable(rand io.Reader, p *Params, iterations int) (*floor.Floor, error) {
	rand = sysrand.Or(rand)
	if iterations == 0 {
		iterations = DefaultIterations
	}
	x, err := p.group.secret(rand)
	if err != nil {
		return nil, err
	}
	key, iv := make([]byte, PasswordKeySize), make([]byte, IVSize)
	if _, err := io.ReadFull(rand, key); err != nil {
		return nil, fmt.Errorf("%w: oeke: floor inputs", pakeerr.ErrRandom)
	}
	peer := p.group.public(x)
	sid := Session{ClientID: []byte("client"), ServerID: []byte("server")}
	return &floor.Floor{
		Ops: append(groupOps(p.group),
			"1 × AES-128-CBC encryption of Y (E_pw)",
			"1 × AES-128-CBC decryption of Y (D_pw)",
			fmt.Sprintf("2 × PBKDF2-HMAC-SHA256 (%d iterations)", iterations)),
		Online: func() error {
			for range 2 {
				p.group.public(x)
				if _, err := p.group.shared(x, peer); err != nil {
					return err
				}
			}
			ct, err := seal(key, iv, peer)
			if err != nil {
				return err
			}
			_, err = open(key, iv, ct, p.group.elementSize())
			return err
		},
		Password: func() error {
			for range 2 {
				if _, err := p.DeriveKey([]byte("password"), sid, iterations); err != nil {
					return err
				}
			}
			return nil
		},
	}, nil
}

// groupOps names the group operations of Unavoidable's Online in g.
func groupOps(g dhGroup) []string {
	if m, ok := g.(modpGroup); ok {
		bits, eb := m.g.BitLen(), 8*modp.ExponentSize
		return []string{
			fmt.Sprintf("2 × MODP-%d fixed-base Exp (%d-bit exponent)", bits, eb),
			fmt.Sprintf("2 × MODP-%d element decoding", bits),
			fmt.Sprintf("2 × MODP-%d Exp (%d-bit exponent)", bits, eb),
		}
	}
	return []string{
		"2 × P-256 ScalarBaseMult",
		"2 × P-256 point decoding (compressed)",
		"2 × P-256 ScalarMult",
	}
}
