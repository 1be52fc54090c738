package sae

import (
	"bytes"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

// The vectors, with their sources, are in testdata/.
var (
	//go:embed testdata/ieee80211-2020-annex-j10.json
	j10JSON []byte
	//go:embed testdata/ieee80211-18-1104r0-confirm.json
	confirmJSON []byte
)

type j10Vectors struct {
	Password string `json:"password"`
	HnP      struct {
		STAA   string `json:"sta_a"`
		STAB   string `json:"sta_b"`
		Rounds []struct {
			Counter  int    `json:"counter"`
			PwdSeed  string `json:"pwd_seed"`
			PwdValue string `json:"pwd_value"`
		} `json:"rounds"`
		PWEX       string `json:"pwe_x"`
		PWEY       string `json:"pwe_y"`
		Rand       string `json:"rand"`
		Mask       string `json:"mask"`
		Commit     string `json:"commit"`
		PeerCommit string `json:"peer_commit"`
		KCK        string `json:"kck"`
		PMK        string `json:"pmk"`
		PMKID      string `json:"pmkid"`
	} `json:"hunting_and_pecking"`
	H2E struct {
		SSID       string `json:"ssid"`
		Identifier string `json:"password_identifier"`
		STAA       string `json:"sta_a"`
		STAB       string `json:"sta_b"`
		PwdSeed    string `json:"pwd_seed"`
		PwdValue1  string `json:"pwd_value_1"`
		U1         string `json:"u1"`
		P1X        string `json:"p1_x"`
		P1Y        string `json:"p1_y"`
		PwdValue2  string `json:"pwd_value_2"`
		U2         string `json:"u2"`
		P2X        string `json:"p2_x"`
		P2Y        string `json:"p2_y"`
		PTX        string `json:"pt_x"`
		PTY        string `json:"pt_y"`
		Val        string `json:"val"`
		PWEX       string `json:"pwe_x"`
		PWEY       string `json:"pwe_y"`
	} `json:"hash_to_element"`
}

type confirmVector struct {
	LocalScalar  string `json:"local_scalar"`
	LocalElement string `json:"local_element"`
	PeerScalar   string `json:"peer_scalar"`
	PeerElement  string `json:"peer_element"`
	Keyseed      string `json:"keyseed"`
	KCK          string `json:"kck"`
	PMK          string `json:"pmk"`
	LocalConfirm string `json:"local_confirm"`
	PeerConfirm  string `json:"peer_confirm"`
}

// KnownAnswerTests returns the IEEE 802.11 known-answer tests.
func KnownAnswerTests() []kat.Test {
	return []kat.Test{
		{Name: "IEEE 802.11-2020 J.10 hunting and pecking: pwd-seed and pwd-value, rounds 1, 2, 40", Run: katRounds},
		{Name: "IEEE 802.11-2020 J.10 hunting and pecking: PWE (40 rounds, constant time)", Run: katHuntAndPeck},
		{Name: "IEEE 802.11-2020 J.10 commit from rand and mask", Run: katCommit},
		{Name: "IEEE 802.11-2020 J.10 KCK, PMK and PMKID from the peer's commit", Run: katKeys},
		{Name: "IEEE 802.11-2020 J.10 hash-to-element: pwd-seed, pwd-value, u1, u2, P1, P2", Run: katH2EMap},
		{Name: "IEEE 802.11-2020 J.10 hash-to-element: PT, val and PWE", Run: katH2EPWE},
		{Name: "IEEE 802.11-18/1104r0 KCK and PMK from keyseed", Run: katKeyseed},
		{Name: "IEEE 802.11-18/1104r0 confirm", Run: katConfirm},
	}
}

func loadJ10() (*j10Vectors, error) {
	var v j10Vectors
	if err := json.Unmarshal(j10JSON, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

func unhex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

func mac(s string) MAC {
	var m MAC
	copy(m[:], unhex(s))
	return m
}

func checkPoint(what string, p *group.Point, x, y string) error {
	if got, want := core.EncodeElement(p), unhex(x+y); !bytes.Equal(got, want) {
		return kat.Mismatch(what, got, want)
	}
	return nil
}

func katRounds() error {
	v, err := loadJ10()
	if err != nil {
		return err
	}
	key := maxMin(mac(v.HnP.STAA), mac(v.HnP.STAB))
	for _, r := range v.HnP.Rounds {
		seed := pwdSeed(key, []byte(v.Password), byte(r.Counter))
		if want := unhex(r.PwdSeed); !bytes.Equal(seed, want) {
			return kat.Mismatch(fmt.Sprintf("pwd-seed %d", r.Counter), seed, want)
		}
		if got, want := pwdValue(seed), unhex(r.PwdValue); !bytes.Equal(got, want) {
			return kat.Mismatch(fmt.Sprintf("pwd-value %d", r.Counter), got, want)
		}
	}
	return nil
}

func katHuntAndPeck() error {
	v, err := loadJ10()
	if err != nil {
		return err
	}
	a, b := mac(v.HnP.STAA), mac(v.HnP.STAB)
	for _, order := range [][2]MAC{{a, b}, {b, a}} {
		pwe, err := HuntAndPeck([]byte(v.Password), order[0], order[1], nil)
		if err != nil {
			return err
		}
		if err := checkPoint("PWE", pwe, v.HnP.PWEX, v.HnP.PWEY); err != nil {
			return err
		}
	}
	return nil
}

// replayScalars returns a reader that makes group.RandomScalar return each
// of the given 32-byte scalars in turn.
func replayScalars(scalars ...[]byte) *bytes.Reader {
	var b []byte
	for _, s := range scalars {
		b = append(b, make([]byte, 16)...)
		b = append(b, s...)
	}
	return bytes.NewReader(b)
}

// j10Session starts a session on the J.10 PWE with the vector's rand and
// mask.
func j10Session(v *j10Vectors) (*Session, error) {
	pwe, err := core.DecodeElement(unhex(v.HnP.PWEX + v.HnP.PWEY))
	if err != nil {
		return nil, err
	}
	return NewSession(replayScalars(unhex(v.HnP.Rand), unhex(v.HnP.Mask)), pwe)
}

func katCommit() error {
	v, err := loadJ10()
	if err != nil {
		return err
	}
	s, err := j10Session(v)
	if err != nil {
		return err
	}
	if got, want := s.Commit(), unhex(v.HnP.Commit); !bytes.Equal(got, want) {
		return kat.Mismatch("commit", got, want)
	}
	return nil
}

func katKeys() error {
	v, err := loadJ10()
	if err != nil {
		return err
	}
	s, err := j10Session(v)
	if err != nil {
		return err
	}
	if err := s.ProcessCommit(unhex(v.HnP.PeerCommit)); err != nil {
		return err
	}
	for _, c := range []struct {
		what      string
		got, want []byte
	}{{"KCK", s.kck, unhex(v.HnP.KCK)}, {"PMK", s.pmk, unhex(v.HnP.PMK)}, {"PMKID", s.pmkid, unhex(v.HnP.PMKID)}} {
		if !bytes.Equal(c.got, c.want) {
			return kat.Mismatch(c.what, c.got, c.want)
		}
	}
	return nil
}

func katH2EMap() error {
	v, err := loadJ10()
	if err != nil {
		return err
	}
	h := v.H2E
	prk, err := pwdSeedH2E([]byte(h.SSID), []byte(v.Password), []byte(h.Identifier))
	if err != nil {
		return err
	}
	if want := unhex(h.PwdSeed); !bytes.Equal(prk, want) {
		return kat.Mismatch("pwd-seed", prk, want)
	}
	for _, c := range []struct{ label, value, u, px, py string }{
		{labelU1, h.PwdValue1, h.U1, h.P1X, h.P1Y},
		{labelU2, h.PwdValue2, h.U2, h.P2X, h.P2Y},
	} {
		okm, u, err := hashToField(prk, c.label)
		if err != nil {
			return err
		}
		if want := unhex(c.value); !bytes.Equal(okm, want) {
			return kat.Mismatch("pwd-value "+c.label, okm, want)
		}
		if want := unhex(c.u); !bytes.Equal(u.Bytes(), want) {
			return kat.Mismatch("u "+c.label, u.Bytes(), want)
		}
		p, err := core.MapToCurveSSWU(u)
		if err != nil {
			return err
		}
		if err := checkPoint("SSWU "+c.label, p, c.px, c.py); err != nil {
			return err
		}
	}
	return nil
}

func katH2EPWE() error {
	v, err := loadJ10()
	if err != nil {
		return err
	}
	h := v.H2E
	pt, err := DerivePT([]byte(h.SSID), []byte(v.Password), []byte(h.Identifier))
	if err != nil {
		return err
	}
	if err := checkPoint("PT", pt.p, h.PTX, h.PTY); err != nil {
		return err
	}
	a, b := mac(h.STAA), mac(h.STAB)
	if got, want := pweScalar(a, b), unhex(h.Val); !bytes.Equal(got, want) {
		return kat.Mismatch("val", got, want)
	}
	for _, order := range [][2]MAC{{a, b}, {b, a}} {
		pwe, err := pt.PWE(order[0], order[1])
		if err != nil {
			return err
		}
		if err := checkPoint("PWE", pwe, h.PWEX, h.PWEY); err != nil {
			return err
		}
	}
	return nil
}

func loadConfirm() (*confirmVector, *core.Commit, *core.Commit, error) {
	var v confirmVector
	if err := json.Unmarshal(confirmJSON, &v); err != nil {
		return nil, nil, nil, err
	}
	local, err := core.ParseCommit(unhex(v.LocalScalar), unhex(v.LocalElement))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("local commit: %w", err)
	}
	peer, err := core.ParseCommit(unhex(v.PeerScalar), unhex(v.PeerElement))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("peer commit: %w", err)
	}
	return &v, local, peer, nil
}

func katKeyseed() error {
	v, local, peer, err := loadConfirm()
	if err != nil {
		return err
	}
	kck, pmk, _ := keysFromKeyseed(unhex(v.Keyseed), local.Scalar, peer.Scalar)
	if want := unhex(v.KCK); !bytes.Equal(kck, want) {
		return kat.Mismatch("KCK", kck, want)
	}
	if want := unhex(v.PMK); !bytes.Equal(pmk, want) {
		return kat.Mismatch("PMK", pmk, want)
	}
	return nil
}

func katConfirm() error {
	v, local, peer, err := loadConfirm()
	if err != nil {
		return err
	}
	s := &Session{own: local, peer: peer, kck: unhex(v.KCK)}
	got, err := s.Confirm()
	if err != nil {
		return err
	}
	if want := unhex(v.LocalConfirm); !bytes.Equal(got, want) {
		return kat.Mismatch("local confirm", got, want)
	}
	return s.VerifyConfirm(unhex(v.PeerConfirm))
}
