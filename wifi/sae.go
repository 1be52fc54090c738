package wifi

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/dragonfly/sae"
)

// SAEResult is the outcome of an SAE exchange (§12.4): the PMK both
// stations derived, its PMKID, and the four SAE messages as sent
// (commit and confirm of each side, for frame-size accounting).
type SAEResult struct {
	PMK, PMKID            []byte
	STACommit, APCommit   []byte
	STAConfirm, APConfirm []byte
}

// RunSAE runs SAE with group 19 between a station sta and an access point
// ap sharing password, in memory: both derive PWE (by hash-to-element from
// the SSID if h2e, else by hunting and pecking), exchange commits and
// confirms, and must agree on the PMK. The PMK feeds keys.SuiteSAE or
// keys.SuiteSAEExt (group 19) in the 4-way handshake.
func RunSAE(r io.Reader, ssid, password []byte, sta, ap [6]byte, h2e bool) (*SAEResult, error) {
	pwe := func() (*group.Point, error) {
		if !h2e {
			return sae.HuntAndPeck(password, sae.MAC(sta), sae.MAC(ap), nil)
		}
		pt, err := sae.DerivePT(ssid, password, nil)
		if err != nil {
			return nil, err
		}
		return pt.PWE(sae.MAC(sta), sae.MAC(ap))
	}
	pweS, err := pwe()
	if err != nil {
		return nil, err
	}
	pweA, err := pwe()
	if err != nil {
		return nil, err
	}
	s, err := sae.NewSession(r, pweS)
	if err != nil {
		return nil, err
	}
	a, err := sae.NewSession(r, pweA)
	if err != nil {
		return nil, err
	}
	res := &SAEResult{STACommit: s.Commit(), APCommit: a.Commit()}
	if err := a.ProcessCommit(res.STACommit); err != nil {
		return nil, err
	}
	if err := s.ProcessCommit(res.APCommit); err != nil {
		return nil, err
	}
	if res.STAConfirm, err = s.Confirm(); err != nil {
		return nil, err
	}
	if res.APConfirm, err = a.Confirm(); err != nil {
		return nil, err
	}
	if err := a.VerifyConfirm(res.STAConfirm); err != nil {
		return nil, err
	}
	if err := s.VerifyConfirm(res.APConfirm); err != nil {
		return nil, err
	}
	pmkS, err := s.PMK()
	if err != nil {
		return nil, err
	}
	pmkA, err := a.PMK()
	if err != nil {
		return nil, err
	}
	idS, err := s.PMKID()
	if err != nil {
		return nil, err
	}
	idA, err := a.PMKID()
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(pmkS, pmkA) != 1 || !bytes.Equal(idS, idA) {
		return nil, fmt.Errorf("%w: SAE stations disagree on the PMK", pakeerr.ErrAuthFailed)
	}
	res.PMK, res.PMKID = pmkS, idS
	return res, nil
}
