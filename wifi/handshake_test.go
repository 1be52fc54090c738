package wifi

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/keywrap"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi/eapol"
	"github.com/kexlab/kexlab/wifi/keys"
)

var (
	testAA  = [6]byte{0x02, 0, 0, 0, 0, 0x02}
	testSPA = [6]byte{0x02, 0, 0, 0, 0, 0x01}
)

var allSuites = []*keys.Suite{keys.SuitePSK, keys.PSK(keys.GCMP256), keys.SuitePSKSHA256, keys.SuiteSAE, keys.SAE(keys.GCMP256), keys.SuiteSAEExt, keys.SuiteSAEExt384}

func pair(t testing.TB, s keys.KeySuite, pmkA, pmkS []byte) (*Authenticator, *Supplicant) {
	t.Helper()
	a, err := NewAuthenticator(Config{Suite: s, PMK: pmkA, AA: testAA, SPA: testSPA, Rand: rand.Reader})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := NewSupplicant(Config{Suite: s, PMK: pmkS, AA: testAA, SPA: testSPA, Rand: rand.Reader})
	if err != nil {
		t.Fatal(err)
	}
	return a, sp
}

func pmkFor(s *keys.Suite) []byte { return bytes.Repeat([]byte{0x42}, s.PMKSize()) }

func checkSameKeys(t *testing.T, a *Authenticator, s *Supplicant) {
	t.Helper()
	pa, err := a.PTK()
	if err != nil {
		t.Fatal(err)
	}
	ps, err := s.PTK()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pa.TK, ps.TK) || !bytes.Equal(pa.KCK, ps.KCK) || !bytes.Equal(pa.KEK, ps.KEK) || len(pa.TK) == 0 {
		t.Fatalf("PTKs differ: %x / %x", pa.TK, ps.TK)
	}
	ga, ida := a.GTK()
	gs, ids, err := s.GTK()
	if err != nil || !bytes.Equal(ga, gs) || ida != ids {
		t.Fatalf("GTKs differ: %x/%d, %x/%d, %v", ga, ida, gs, ids, err)
	}
}

func TestHandshakeAllSuites(t *testing.T) {
	for _, s := range allSuites {
		t.Run(s.Name(), func(t *testing.T) {
			a, sp := pair(t, s, pmkFor(s), pmkFor(s))
			tr, err := RunHandshake(a, sp)
			if err != nil {
				t.Fatal(err)
			}
			checkSameKeys(t, a, sp)
			if sp.Installs() != 1 || !a.Done() || !sp.Done() {
				t.Fatal("not done")
			}
			// Frames carry the right flags and sizes.
			want := []eapol.KeyInfo{eapol.Pairwise | eapol.Ack,
				eapol.Pairwise | eapol.MIC,
				eapol.Pairwise | eapol.Install | eapol.Ack | eapol.MIC | eapol.Secure | eapol.EncryptedKeyData,
				eapol.Pairwise | eapol.MIC | eapol.Secure}
			for i, m := range [][]byte{tr.Msg1, tr.Msg2, tr.Msg3, tr.Msg4} {
				f, err := eapol.Unmarshal(m, s.MICSize())
				if err != nil {
					t.Fatal(err)
				}
				if f.Info&^eapol.VersionMask != want[i] || f.Info.Version() != s.DescriptorVersion() {
					t.Errorf("msg %d: key info %#04x", i+1, uint16(f.Info))
				}
			}
			if f, _ := eapol.Unmarshal(tr.Msg1, s.MICSize()); int(f.KeyLength) != s.TKSize() {
				t.Errorf("msg 1 key length %d", f.KeyLength)
			}
		})
	}
}

func TestWrongPMK(t *testing.T) {
	pmk := pmkFor(keys.SuitePSK)
	a, sp := pair(t, keys.SuitePSK, pmk, bytes.Repeat([]byte{1}, 32))
	m1, _ := a.Start()
	m2, err := sp.Handle(m1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Handle(m2); !errors.Is(err, ErrMIC) || !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Fatalf("msg 2 under the wrong PMK: %v", err)
	}
	if _, err := a.PTK(); !errors.Is(err, ErrNotDone) {
		t.Fatal("authenticator kept a key")
	}
}

func TestBadMIC(t *testing.T) {
	s := keys.SuiteSAE
	a, sp := pair(t, s, pmkFor(s), pmkFor(s))
	m1, _ := a.Start()
	m2, _ := sp.Handle(m1)
	bad := bytes.Clone(m2)
	bad[eapol.MICOffset()] ^= 1
	if _, err := a.Handle(bad); !errors.Is(err, ErrMIC) {
		t.Fatalf("msg 2 with a flipped MIC bit: %v", err)
	}
	m3, err := a.Handle(m2) // the genuine msg 2 still works
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int{eapol.MICOffset(), len(m3) - 1, 55} {
		bad = bytes.Clone(m3)
		bad[off] ^= 1
		if _, err := sp.Handle(bad); !errors.Is(err, ErrMIC) {
			t.Fatalf("msg 3 modified at %d: %v", off, err)
		}
		if _, err := sp.PTK(); !errors.Is(err, ErrNotDone) {
			t.Fatal("supplicant installed a key from a bad msg 3")
		}
	}
	m4, err := sp.Handle(m3)
	if err != nil {
		t.Fatal(err)
	}
	bad = bytes.Clone(m4)
	bad[len(bad)-3] ^= 1
	if _, err := a.Handle(bad); !errors.Is(err, ErrMIC) || a.Done() {
		t.Fatalf("msg 4 with a bad MIC: %v", err)
	}
	if _, err := a.Handle(m4); err != nil {
		t.Fatal(err)
	}
	checkSameKeys(t, a, sp)
}

func TestReplayedMessage1(t *testing.T) {
	s := keys.SuitePSK
	a, sp := pair(t, s, pmkFor(s), pmkFor(s))
	m1, _ := a.Start()
	m2, _ := sp.Handle(m1)
	// A duplicate msg 1 before msg 3 is answered again with the same SNonce.
	again, err := sp.Handle(m1)
	if err != nil || !bytes.Equal(again, m2) {
		t.Fatalf("duplicate msg 1: %v", err)
	}
	m3, _ := a.Handle(m2)
	m4, _ := sp.Handle(m3)
	a.Handle(m4)
	// After msg 3 set the replay counter, the old msg 1 is a replay.
	if _, err := sp.Handle(m1); !errors.Is(err, ErrReplay) {
		t.Fatalf("replayed msg 1 after completion: %v", err)
	}
	checkSameKeys(t, a, sp)
}

func TestReplayedMessage3(t *testing.T) {
	s := keys.SuitePSKSHA256
	a, sp := pair(t, s, pmkFor(s), pmkFor(s))
	m1, _ := a.Start()
	m2, _ := sp.Handle(m1)
	m3, _ := a.Handle(m2)
	if _, err := sp.Handle(m3); err != nil {
		t.Fatal(err)
	}
	ptk, _ := sp.PTK()
	// The same msg 3 again: a replay, dropped, nothing reinstalled.
	if _, err := sp.Handle(m3); !errors.Is(err, ErrReplay) || sp.Installs() != 1 {
		t.Fatalf("replayed msg 3: %v, %d installs", err, sp.Installs())
	}
	// msg 4 was lost: the authenticator retransmits msg 3 with a new
	// counter; the supplicant answers without reinstalling (KRACK).
	r3, err := a.Retransmit()
	if err != nil {
		t.Fatal(err)
	}
	m4, err := sp.Handle(r3)
	if err != nil || sp.Installs() != 1 {
		t.Fatalf("retransmitted msg 3: %v, %d installs", err, sp.Installs())
	}
	if p, _ := sp.PTK(); !bytes.Equal(p.TK, ptk.TK) {
		t.Fatal("TK changed")
	}
	if _, err := a.Handle(m4); err != nil {
		t.Fatal(err)
	}
	checkSameKeys(t, a, sp)
}

func TestWrongReplayCounter(t *testing.T) {
	s := keys.SuitePSK
	a, sp := pair(t, s, pmkFor(s), pmkFor(s))
	m1, _ := a.Start()
	m2, _ := sp.Handle(m1)
	// msg 2 with a replay counter the authenticator never used: re-MIC it
	// under the right KCK so that only the counter is wrong.
	f, _ := eapol.Unmarshal(m2, 16)
	f.ReplayCounter = 7
	clear(f.MIC)
	ptk, _ := s.DerivePTK(pmkFor(s), testAA, testSPA, mustNonce(t, m1), f.Nonce[:])
	forged, _ := seal(s, f, ptk.KCK)
	if _, err := a.Handle(forged); !errors.Is(err, ErrReplay) {
		t.Fatalf("msg 2 with counter 7: %v", err)
	}
	m3, err := a.Handle(m2)
	if err != nil {
		t.Fatal(err)
	}
	// msg 3 re-sealed with a counter not above the one already verified.
	m4, _ := sp.Handle(m3)
	f3, _ := eapol.Unmarshal(m3, 16)
	clear(f3.MIC)
	old, _ := seal(s, f3, ptk.KCK)
	if _, err := sp.Handle(old); !errors.Is(err, ErrReplay) {
		t.Fatalf("msg 3 with an old counter: %v", err)
	}
	// msg 4 with a counter the authenticator did not send.
	f4, _ := eapol.Unmarshal(m4, 16)
	f4.ReplayCounter++
	clear(f4.MIC)
	bad4, _ := seal(s, f4, ptk.KCK)
	if _, err := a.Handle(bad4); !errors.Is(err, ErrReplay) || a.Done() {
		t.Fatalf("msg 4 with counter+1: %v", err)
	}
	if _, err := a.PTK(); !errors.Is(err, ErrNotDone) {
		t.Fatal("authenticator reports keys before a valid msg 4")
	}
	if _, err := a.Handle(m4); err != nil {
		t.Fatal(err)
	}
}

// TestSupersededMessage1: a message 1 with a new ANonce (here from an
// authenticator with another PMK) replaces the pending one; the genuine
// message 3 for the old ANonce is then dropped and no key is installed.
func TestSupersededMessage1(t *testing.T) {
	s := keys.SuitePSK
	a, sp := pair(t, s, pmkFor(s), pmkFor(s))
	evil, _ := NewAuthenticator(Config{Suite: s, PMK: bytes.Repeat([]byte{9}, 32), AA: testAA, SPA: testSPA, Rand: rand.Reader})
	m1, _ := a.Start()
	m2, _ := sp.Handle(m1)
	e1, _ := evil.Start()
	e1f, _ := eapol.Unmarshal(e1, 16)
	e1f.ReplayCounter = 2
	e1, _ = seal(s, e1f, nil)
	if _, err := sp.Handle(e1); err != nil {
		t.Fatal(err)
	}
	m3, _ := a.Handle(m2)
	if _, err := sp.Handle(m3); !errors.Is(err, ErrUnexpected) || sp.Done() {
		t.Fatalf("msg 3 for a superseded msg 1: %v", err)
	}
}

func mustNonce(t *testing.T, m1 []byte) []byte {
	f, err := eapol.Unmarshal(m1, 16)
	if err != nil {
		t.Fatal(err)
	}
	return f.Nonce[:]
}

func TestRetransmissionAndExhaustion(t *testing.T) {
	s := keys.SuiteSAE
	a, sp := pair(t, s, pmkFor(s), pmkFor(s))
	a.cfg.Retries = 2
	a.limit = 2
	m1, _ := a.Start()
	r1, err := a.Retransmit()
	if err != nil {
		t.Fatal(err)
	}
	f1, _ := eapol.Unmarshal(m1, 16)
	g1, _ := eapol.Unmarshal(r1, 16)
	if g1.ReplayCounter != f1.ReplayCounter+1 || g1.Nonce != f1.Nonce {
		t.Fatalf("retransmitted msg 1: counter %d -> %d", f1.ReplayCounter, g1.ReplayCounter)
	}
	// An answer to the first transmission is still accepted.
	m2, _ := sp.Handle(m1)
	m3, err := a.Handle(m2)
	if err != nil {
		t.Fatal(err)
	}
	r3a, _ := a.Retransmit()
	r3b, _ := a.Retransmit()
	if r3a == nil || r3b == nil {
		t.Fatal("retransmissions of msg 3 refused")
	}
	if _, err := a.Retransmit(); !errors.Is(err, ErrRetryLimit) {
		t.Fatalf("third retransmission: %v", err)
	}
	m4, _ := sp.Handle(m3)
	if _, err := a.Handle(m4); !errors.Is(err, ErrUnexpected) || a.Done() {
		t.Fatalf("msg 4 after failure: %v", err)
	}
	if _, err := a.PTK(); !errors.Is(err, ErrNotDone) {
		t.Fatal("failed authenticator kept a key")
	}
}

func TestRSNEMismatch(t *testing.T) {
	s := keys.SuitePSK
	a, _ := pair(t, s, pmkFor(s), pmkFor(s))
	sp, _ := NewSupplicant(Config{Suite: s, PMK: pmkFor(s), AA: testAA, SPA: testSPA, Rand: rand.Reader,
		RSNE: keys.PSK(keys.GCMP256).RSNE()})
	m1, _ := a.Start()
	m2, _ := sp.Handle(m1)
	if _, err := a.Handle(m2); !errors.Is(err, ErrRSNE) {
		t.Fatalf("downgraded RSNE: %v", err)
	}
}

func TestTruncatedAndGarbled(t *testing.T) {
	s := keys.SuiteSAEExt384
	a, sp := pair(t, s, pmkFor(s), pmkFor(s))
	m1, _ := a.Start()
	m2, _ := sp.Handle(m1)
	for n := 0; n < len(m2); n += 7 {
		if _, err := a.Handle(m2[:n]); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Fatalf("msg 2 truncated to %d: %v", n, err)
		}
	}
	if _, err := sp.Handle(m1[:50]); !errors.Is(err, eapol.ErrFrame) {
		t.Fatalf("truncated msg 1: %v", err)
	}
	if _, err := sp.Handle(m2); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("msg 2 fed to the supplicant: %v", err)
	}
	m3, err := a.Handle(m2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Handle(m3); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("msg 3 fed to the authenticator: %v", err)
	}
	if _, err := keywrap.Unwrap(make([]byte, 32), []byte{1}); err == nil {
		t.Fatal("keywrap accepted garbage")
	}
	if _, err := sp.Handle(m3); err != nil {
		t.Fatal(err)
	}
}

func TestConfigErrors(t *testing.T) {
	if _, err := NewAuthenticator(Config{}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Fatal(err)
	}
	if _, err := NewSupplicant(Config{Suite: keys.SuitePSK, PMK: []byte{1}, Rand: rand.Reader, RSNE: []byte{48, 1, 0}}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Fatal(err)
	}
	if _, err := NewAuthenticator(Config{Suite: keys.SuitePSK, PMK: []byte{1}, Rand: bytes.NewReader(nil)}); !errors.Is(err, pakeerr.ErrRandom) {
		t.Fatal(err)
	}
}

func TestSAEThenFourWay(t *testing.T) {
	for _, h2e := range []bool{false, true} {
		res, err := RunSAE(rand.Reader, []byte("kexlab-wifi"), []byte("correct horse battery staple"), testSPA, testAA, h2e)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.PMK) != 32 || len(res.PMKID) != 16 {
			t.Fatalf("PMK %d, PMKID %d octets", len(res.PMK), len(res.PMKID))
		}
		for _, s := range []*keys.Suite{keys.SuiteSAE, keys.SuiteSAEExt} {
			a, sp := pair(t, s, res.PMK, res.PMK)
			if _, err := RunHandshake(a, sp); err != nil {
				t.Fatal(err)
			}
			checkSameKeys(t, a, sp)
		}
	}
}

// FuzzAuthenticator feeds arbitrary frames to an authenticator waiting for
// message 2 and then message 4; it must never panic or complete.
func FuzzAuthenticator(f *testing.F) {
	s := keys.SuitePSK
	a, sp := pair(f, s, pmkFor(s), pmkFor(s))
	m1, _ := a.Start()
	m2, _ := sp.Handle(m1)
	m3, _ := a.Handle(m2)
	m4, _ := sp.Handle(m3)
	f.Add(m2, false)
	f.Add(m4, true)
	f.Fuzz(func(t *testing.T, msg []byte, second bool) {
		a, _ := NewAuthenticator(Config{Suite: s, PMK: pmkFor(s), AA: testAA, SPA: testSPA, Rand: bytes.NewReader(make([]byte, 64))})
		a.Start()
		if second {
			a.state = authSentMsg3
			a.ptk = keys.PTK{KCK: make([]byte, 16), KEK: make([]byte, 16), TK: make([]byte, 16)}
		}
		if out, err := a.Handle(msg); err == nil && a.Done() && out != nil {
			t.Fatal("output after completion")
		}
	})
}

// FuzzSupplicant feeds arbitrary frames to a fresh supplicant and to one
// that has answered message 1.
func FuzzSupplicant(f *testing.F) {
	s := keys.SuiteSAE
	a, sp := pair(f, s, pmkFor(s), pmkFor(s))
	m1, _ := a.Start()
	m2, _ := sp.Handle(m1)
	m3, _ := a.Handle(m2)
	f.Add(m1)
	f.Add(m3)
	f.Fuzz(func(t *testing.T, msg []byte) {
		sp, _ := NewSupplicant(Config{Suite: s, PMK: pmkFor(s), AA: testAA, SPA: testSPA, Rand: rand.Reader})
		sp.Handle(m1)
		if _, err := sp.Handle(msg); err == nil && sp.Done() {
			t.Fatal("supplicant completed on a fuzzed msg 3")
		}
	})
}
