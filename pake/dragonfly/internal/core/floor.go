package core

import (
	"github.com/kexlab/kexlab/internal/floor"
	"github.com/kexlab/kexlab/internal/group"
)

// Floor returns the primitive limit of one commit exchange between two
// peers that each derive the password element PE with derive (RFC 7664
// §3.2, IEEE 802.11-2020 §12.4.4), listed in ops. s stands in for every
// secret scalar; derive is called once here, off the clock, for PE and the
// peer's element s·PE.
//
// Online performs both peers' group operations (RFC 7664 §3.3,
// IEEE 802.11-2020 §12.4.5.3 and §12.4.5.4): per peer, Element =
// inverse(mask·PE), decoding the peer's element, and
// K = private·(peer-scalar·PE + peer-Element) — three variable-base scalar
// multiplications and one decoding. Password calls derive once per peer.
func Floor(ops []string, s *group.Scalar, derive func() (*group.Point, error)) (*floor.Floor, error) {
	pe, err := derive()
	if err != nil {
		return nil, err
	}
	peer := EncodeElement(group.NewPoint().ScalarMult(s, pe))
	return &floor.Floor{
		Ops: ops,
		Online: func() error {
			for range 2 {
				group.NewPoint().ScalarMult(s, pe)
				q, err := DecodeElement(peer)
				if err != nil {
					return err
				}
				q.Add(q, group.NewPoint().ScalarMult(s, pe))
				q.ScalarMult(s, q)
			}
			return nil
		},
		Password: func() error {
			for range 2 {
				if _, err := derive(); err != nil {
					return err
				}
			}
			return nil
		},
	}, nil
}
