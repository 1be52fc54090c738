package sae

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/big"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

var (
	testPassword = []byte("correct horse battery staple")
	testSSID     = []byte("kexlab-wifi")
	staMAC       = MAC{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}
	apMAC        = MAC{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}
)

var (
	bigP, _ = new(big.Int).SetString("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", 16)
	bigB, _ = new(big.Int).SetString("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b", 16)
)

// oraclePWE is an independent, variable-time transcription of
// §12.4.4.2.2 on math/big, for test passwords only.
func oraclePWE(t *testing.T, password []byte, a, b MAC) (x, y *big.Int) {
	key := append(a[:], b[:]...)
	if bytes.Compare(a[:], b[:]) < 0 {
		key = append(b[:], a[:]...)
	}
	for counter := 1; counter < 256; counter++ {
		m := hmac.New(sha256.New, key)
		m.Write(password)
		m.Write([]byte{byte(counter)})
		seed := m.Sum(nil)
		// KDF-SHA-256-256 with context p: one HMAC block.
		k := hmac.New(sha256.New, seed)
		k.Write([]byte{1, 0})
		k.Write([]byte("SAE Hunting and Pecking"))
		k.Write(bigP.FillBytes(make([]byte, 32)))
		k.Write([]byte{0, 1})
		x := new(big.Int).SetBytes(k.Sum(nil))
		if x.Cmp(bigP) >= 0 {
			continue
		}
		val := new(big.Int).Exp(x, big.NewInt(3), bigP)
		val.Sub(val, new(big.Int).Mul(big.NewInt(3), x)).Add(val, bigB).Mod(val, bigP)
		if big.Jacobi(val, bigP) != 1 {
			continue
		}
		y := new(big.Int).ModSqrt(val, bigP)
		if y.Bit(0) != uint(seed[31]&1) {
			y.Sub(bigP, y)
		}
		return x, y
	}
	t.Fatal("oracle: no PWE")
	return nil, nil
}

func TestHuntAndPeckMatchesOracle(t *testing.T) {
	for i := 0; i < 8; i++ {
		pw := []byte{'p', 'w', byte(i)}
		x, y := oraclePWE(t, pw, staMAC, apMAC)
		want := append(x.FillBytes(make([]byte, 32)), y.FillBytes(make([]byte, 32))...)
		for _, early := range []bool{false, true} {
			pwe, err := HuntAndPeck(pw, apMAC, staMAC, &Options{InsecureEarlyExit: early})
			if err != nil {
				t.Fatal(err)
			}
			if got := core.EncodeElement(pwe); !bytes.Equal(got, want) {
				t.Fatalf("password %x, early exit %v: PWE %x, oracle %x", pw, early, got, want)
			}
		}
	}
}

func TestParameters(t *testing.T) {
	if _, err := HuntAndPeck(nil, staMAC, apMAC, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("empty password: %v", err)
	}
	if _, err := DerivePT(testSSID, nil, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("empty password: %v", err)
	}
	if _, err := DerivePT(make([]byte, 33), testPassword, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("33-octet SSID: %v", err)
	}
	pt, err := DerivePT(make([]byte, 32), testPassword, []byte("id"))
	if err != nil {
		t.Fatal(err)
	}
	pt2, err := ParsePT(pt.Bytes())
	if err != nil || pt2.p.Equal(pt.p) != 1 {
		t.Errorf("PT round trip: %v", err)
	}
	if _, err := ParsePT(make([]byte, ElementSize)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("ParsePT of zeros: %v", err)
	}
}

func h2ePWE(t testing.TB, ssid, password []byte) *group.Point {
	pt, err := DerivePT(ssid, password, nil)
	if err != nil {
		t.Fatal(err)
	}
	pwe, err := pt.PWE(staMAC, apMAC)
	if err != nil {
		t.Fatal(err)
	}
	return pwe
}

func exchange(t *testing.T, sta, ap *Session) error {
	t.Helper()
	if err := ap.ProcessCommit(sta.Commit()); err != nil {
		return err
	}
	if err := sta.ProcessCommit(ap.Commit()); err != nil {
		return err
	}
	apConfirm, _ := ap.Confirm()
	if err := sta.VerifyConfirm(apConfirm); err != nil {
		return err
	}
	staConfirm, _ := sta.Confirm()
	return ap.VerifyConfirm(staConfirm)
}

func TestSessions(t *testing.T) {
	for _, name := range []string{"h2e", "hunt-and-peck"} {
		t.Run(name, func(t *testing.T) {
			var pweSTA, pweAP *group.Point
			if name == "h2e" {
				pweSTA, pweAP = h2ePWE(t, testSSID, testPassword), h2ePWE(t, testSSID, testPassword)
			} else {
				var err error
				if pweSTA, err = HuntAndPeck(testPassword, staMAC, apMAC, nil); err != nil {
					t.Fatal(err)
				}
				if pweAP, err = HuntAndPeck(testPassword, apMAC, staMAC, nil); err != nil {
					t.Fatal(err)
				}
			}
			sta, _ := NewSession(rand.Reader, pweSTA)
			ap, _ := NewSession(rand.Reader, pweAP)
			if _, err := sta.PMKID(); !errors.Is(err, pakeerr.ErrState) {
				t.Errorf("PMKID before the commit: %v", err)
			}
			if len(sta.Commit()) != CommitSize {
				t.Errorf("commit of %d octets", len(sta.Commit()))
			}
			if err := exchange(t, sta, ap); err != nil {
				t.Fatal(err)
			}
			k1, _ := sta.PMK()
			k2, _ := ap.PMK()
			id1, _ := sta.PMKID()
			id2, _ := ap.PMKID()
			if !bytes.Equal(k1, k2) || len(k1) != KeySize || !bytes.Equal(id1, id2) || len(id1) != PMKIDSize {
				t.Fatalf("PMK %x / %x, PMKID %x / %x", k1, k2, id1, id2)
			}
		})
	}
}

func TestWrongPasswordOrSSID(t *testing.T) {
	for name, pwe := range map[string]*group.Point{
		"password": h2ePWE(t, testSSID, []byte("wrong")),
		"ssid":     h2ePWE(t, []byte("other-wifi"), testPassword),
	} {
		sta, _ := NewSession(rand.Reader, pwe)
		ap, _ := NewSession(rand.Reader, h2ePWE(t, testSSID, testPassword))
		if err := exchange(t, sta, ap); !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Errorf("wrong %s: %v, want ErrAuthFailed", name, err)
		}
		if _, err := sta.PMK(); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("wrong %s: PMK after failure: %v", name, err)
		}
	}
}

var orderR = []byte{
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
}

func TestParseCommit(t *testing.T) {
	s, _ := NewSession(rand.Reader, h2ePWE(t, testSSID, testPassword))
	good := s.Commit()
	c, err := ParseCommit(good)
	if err != nil || !bytes.Equal(c.Bytes(), good) {
		t.Fatalf("round trip: %v", err)
	}
	if !bytes.Equal(c.Scalar(), good[2:34]) || !bytes.Equal(c.Element(), good[34:]) {
		t.Error("Scalar/Element accessors")
	}
	with := func(off int, b []byte) []byte {
		m := bytes.Clone(good)
		copy(m[off:], b)
		return m
	}
	scalar := func(v byte) []byte { b := make([]byte, 32); b[31] = v; return b }
	for _, tc := range []struct {
		name string
		msg  []byte
		want error
	}{
		{"group 20", with(0, []byte{20, 0}), ErrUnsupportedGroup},
		{"group 19 big-endian", with(0, []byte{0, 19}), ErrUnsupportedGroup},
		{"scalar 0", with(2, scalar(0)), ErrInvalidScalar},
		{"scalar 1", with(2, scalar(1)), ErrInvalidScalar},
		{"scalar r", with(2, orderR), ErrInvalidScalar},
		{"element zero", with(34, make([]byte, 64)), ErrInvalidElement},
		{"element off curve", with(97, []byte{good[97] ^ 1}), ErrInvalidElement},
		{"x = p", with(34, core.PBytes()), ErrInvalidElement},
		{"short", good[:CommitSize-1], pakeerr.ErrInvalidMessage},
		{"with a trailing element", append(bytes.Clone(good), 0xff, 0x01, 0x21), pakeerr.ErrInvalidMessage},
	} {
		if _, err := ParseCommit(tc.msg); !errors.Is(err, tc.want) || !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestReflection(t *testing.T) {
	s, _ := NewSession(rand.Reader, h2ePWE(t, testSSID, testPassword))
	if err := s.ProcessCommit(s.Commit()); !errors.Is(err, ErrReflection) {
		t.Fatalf("reflected commit: %v, want ErrReflection", err)
	}
	if _, err := s.Confirm(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("Confirm after a rejected commit: %v", err)
	}
	// A reflected confirm does not verify either: the order of the fields
	// differs between the two sides.
	pwe := h2ePWE(t, testSSID, testPassword)
	a, _ := NewSession(rand.Reader, pwe)
	b, _ := NewSession(rand.Reader, pwe)
	a.ProcessCommit(b.Commit())
	own, _ := a.Confirm()
	if err := a.VerifyConfirm(own); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("reflected confirm: %v", err)
	}
}

func TestSendConfirm(t *testing.T) {
	pwe := h2ePWE(t, testSSID, testPassword)
	a, _ := NewSession(rand.Reader, pwe)
	b, _ := NewSession(rand.Reader, pwe)
	a.ProcessCommit(b.Commit())
	b.ProcessCommit(a.Commit())
	c1, _ := a.Confirm()
	c2, _ := a.Confirm()
	if binary.LittleEndian.Uint16(c1) != 1 || binary.LittleEndian.Uint16(c2) != 2 || bytes.Equal(c1[2:], c2[2:]) {
		t.Fatalf("send-confirm not counted and bound: %x %x", c1, c2)
	}
	// The counter is bound into the confirm: changing it breaks it.
	bad := bytes.Clone(c2)
	bad[0] = 7
	if err := b.VerifyConfirm(bad); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("altered send-confirm: %v", err)
	}
	// A third station that saw a's commit but not as a's peer (a processed
	// b's commit) does not accept a's confirm.
	c3, _ := NewSession(rand.Reader, pwe)
	c3.ProcessCommit(a.Commit())
	if err := c3.VerifyConfirm(c2); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("confirm for another session: %v", err)
	}
	c, err := ParseConfirm(c2)
	if err != nil || !bytes.Equal(c.Bytes(), c2) || c.SendConfirm != 2 {
		t.Errorf("ParseConfirm round trip: %v", err)
	}
	if _, err := ParseConfirm(c2[:ConfirmSize-1]); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("short confirm: %v", err)
	}
}

func TestParty(t *testing.T) {
	pwe := h2ePWE(t, testSSID, testPassword)
	ini, _ := NewInitiator(rand.Reader, pwe)
	resp, _ := NewResponder(rand.Reader, pwe)
	m1, err := ini.Next(nil)
	if err != nil || len(m1) != CommitSize {
		t.Fatal(err)
	}
	m2, err := resp.Next(m1)
	if err != nil || len(m2) != CommitSize+ConfirmSize {
		t.Fatal(err)
	}
	m3, err := ini.Next(m2)
	if err != nil || len(m3) != ConfirmSize {
		t.Fatal(err)
	}
	if out, err := resp.Next(m3); err != nil || out != nil {
		t.Fatal(err)
	}
	k1, _ := ini.SessionKey()
	k2, _ := resp.SessionKey()
	if !ini.Done() || !resp.Done() || !bytes.Equal(k1, k2) {
		t.Fatal("exchange did not agree")
	}
	if _, err := resp.Next(m3); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("Next after the end: %v", err)
	}
}

func testPWE(t testing.TB) *group.Point {
	return group.NewPoint().ScalarBaseMult(group.NewScalar().SetReducedBytes([]byte("fuzz PWE")))
}

func FuzzParseCommit(f *testing.F) {
	s, _ := NewSession(rand.Reader, testPWE(f))
	f.Add(s.Commit())
	f.Add(make([]byte, CommitSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCommit(b)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !bytes.Equal(c.Bytes(), b) {
			t.Fatalf("accepted a non-canonical commit %x", b)
		}
	})
}

func FuzzParseConfirm(f *testing.F) {
	f.Add(make([]byte, ConfirmSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConfirm(b)
		if err == nil && !bytes.Equal(c.Bytes(), b) {
			t.Fatalf("round trip of %x gave %x", b, c.Bytes())
		}
	})
}

// FuzzSession gives a session an arbitrary peer commit and confirm.
func FuzzSession(f *testing.F) {
	pwe := testPWE(f)
	peer, _ := NewSession(rand.Reader, pwe)
	f.Add(peer.Commit(), make([]byte, ConfirmSize))
	f.Fuzz(func(t *testing.T, commit, confirm []byte) {
		s, err := NewSession(rand.Reader, pwe)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ProcessCommit(commit); err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if err := s.VerifyConfirm(confirm); err == nil {
			t.Fatalf("arbitrary confirm %x verified", confirm)
		}
	})
}

// FuzzParty drives the two parties with arbitrary messages.
func FuzzParty(f *testing.F) {
	pwe := testPWE(f)
	f.Add([]byte{}, []byte{}, uint8(0))
	f.Add(make([]byte, CommitSize+ConfirmSize), make([]byte, ConfirmSize), uint8(1))
	f.Fuzz(func(t *testing.T, a, b []byte, mode uint8) {
		ini, _ := NewInitiator(rand.Reader, pwe)
		resp, _ := NewResponder(rand.Reader, pwe)
		switch mode % 3 {
		case 0:
			resp.Next(a)
			resp.Next(b)
		case 1:
			ini.Next(nil)
			ini.Next(a)
			ini.Next(b)
		case 2:
			m1, _ := ini.Next(nil)
			if _, err := resp.Next(m1); err != nil {
				t.Fatal(err)
			}
			if _, err := resp.Next(a); err == nil {
				t.Fatalf("responder accepted a confirm it was not sent: %x", a)
			}
		}
		for _, p := range []*Party{ini, resp} {
			if !p.Done() {
				if _, err := p.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
					t.Fatalf("SessionKey of an unfinished party: %v", err)
				}
			}
		}
	})
}

func TestMACFromID(t *testing.T) {
	id := []byte{0x00, 0x09, 0x5b, 0x66, 0xec, 0x1e}
	if m := MACFromID(id); !bytes.Equal(m[:], id) {
		t.Errorf("6-octet identity changed: %x", m)
	}
	h := sha256.Sum256([]byte("kexlab SAE MACclient@kexlab"))
	want := h[:6]
	want[0] = want[0]&^1 | 2
	a, b := MACFromID([]byte("client@kexlab")), MACFromID([]byte("server.kexlab"))
	if !bytes.Equal(a[:], want) {
		t.Errorf("MACFromID = %x, want %x", a, want)
	}
	if a[0]&1 != 0 || a[0]&2 == 0 || a == b {
		t.Errorf("not distinct unicast locally administered addresses: %x %x", a, b)
	}
}

// FuzzParsePT: no input panics; a refused input gets ErrInvalidParameter;
// an accepted one is a valid x || y encoding, so it re-encodes to the same
// bytes and gives a PWE that is not the identity (PT is a point of the
// prime-order group and val is in [1, r-1]).
func FuzzParsePT(f *testing.F) {
	pt, err := DerivePT(testSSID, testPassword, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pt.Bytes())
	f.Add(group.NewGenerator().Bytes()[1:])
	f.Add(make([]byte, ElementSize))
	f.Add(append(bigP.FillBytes(make([]byte, 32)), pt.Bytes()[32:]...)) // x = p
	f.Add(pt.Bytes()[:ElementSize-1])
	f.Fuzz(func(t *testing.T, b []byte) {
		pt, err := ParsePT(b)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidParameter) {
				t.Fatalf("ParsePT(%x): untyped error %v", b, err)
			}
			return
		}
		if !bytes.Equal(pt.Bytes(), b) {
			t.Fatalf("ParsePT(%x) re-encodes as %x", b, pt.Bytes())
		}
		pwe, err := pt.PWE(staMAC, apMAC)
		if err != nil || pwe.IsIdentity() == 1 {
			t.Fatalf("PWE from accepted PT %x: identity %v, %v", b, pwe != nil && pwe.IsIdentity() == 1, err)
		}
	})
}
