package dragonfly

import (
	"bytes"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

var (
	testPassword = []byte("correct horse battery staple")
	aliceID      = []byte("alice@example.org")
	bobID        = []byte("bob.example.org")
)

// P-256 parameters for the math/big oracle (SEC 2 §2.4.2).
var (
	bigP, _ = new(big.Int).SetString("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", 16)
	bigB, _ = new(big.Int).SetString("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b", 16)
)

// oraclePE is an independent, variable-time transcription of RFC 7664
// §3.2.1 for the package's instantiation, on math/big. It runs on test
// passwords only.
func oraclePE(t *testing.T, password, idA, idB []byte) (x, y *big.Int, rounds int) {
	hi, lo := idA, idB
	if bytes.Compare(idA, idB) < 0 {
		hi, lo = idB, idA
	}
	pm1 := new(big.Int).Sub(bigP, big.NewInt(1))
	for counter := 1; counter < 256; counter++ {
		h := sha256.New()
		h.Write(hi)
		h.Write(lo)
		h.Write(password)
		h.Write([]byte{byte(counter)})
		base := h.Sum(nil)
		temp, err := hkdf.Key(sha256.New, base, nil, "Dragonfly Hunting And Pecking", 40)
		if err != nil {
			t.Fatal(err)
		}
		seed := new(big.Int).SetBytes(temp)
		seed.Mod(seed, pm1).Add(seed, big.NewInt(1))
		val := new(big.Int).Exp(seed, big.NewInt(3), bigP)
		val.Sub(val, new(big.Int).Mul(big.NewInt(3), seed)).Add(val, bigB).Mod(val, bigP)
		if big.Jacobi(val, bigP) != 1 {
			continue
		}
		y := new(big.Int).ModSqrt(val, bigP)
		if y.Bit(0) != uint(base[31]&1) {
			y.Sub(bigP, y)
		}
		return seed, y, counter
	}
	t.Fatal("oracle: no password element")
	return nil, nil, 0
}

func TestPasswordElementMatchesOracle(t *testing.T) {
	maxRounds := 0
	for i := 0; i < 12; i++ {
		pw := []byte{'p', 'w', byte(i)}
		x, y, rounds := oraclePE(t, pw, aliceID, bobID)
		maxRounds = max(maxRounds, rounds)
		want := append(x.FillBytes(make([]byte, 32)), y.FillBytes(make([]byte, 32))...)
		for _, early := range []bool{false, true} {
			for _, ids := range [][2][]byte{{aliceID, bobID}, {bobID, aliceID}} {
				pe, err := PasswordElement(pw, ids[0], ids[1], &Options{InsecureEarlyExit: early})
				if err != nil {
					t.Fatal(err)
				}
				if got := core.EncodeElement(pe); !bytes.Equal(got, want) {
					t.Fatalf("password %x, early exit %v: PE %x, oracle %x (round %d)", pw, early, got, want, rounds)
				}
			}
		}
	}
	if maxRounds < 2 {
		t.Errorf("every test password succeeded in round 1; the selection of a later round is untested")
	}
}

func TestPasswordElementParameters(t *testing.T) {
	if _, err := PasswordElement(nil, aliceID, bobID, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("empty password: %v", err)
	}
	if _, err := PasswordElement(testPassword, aliceID, aliceID, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("equal identities: %v", err)
	}
	if _, err := NewInitiator(rand.Reader, testPassword, bobID, bobID, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("NewInitiator, equal identities: %v", err)
	}
}

// runParties runs an initiator and a responder to the end and returns the
// three messages and both keys.
func runParties(t *testing.T, ini, resp *Party) (msgs [][]byte, ki, kr []byte) {
	t.Helper()
	m1, err := ini.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := resp.Next(m1)
	if err != nil {
		t.Fatal(err)
	}
	m3, err := ini.Next(m2)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := resp.Next(m3); err != nil || out != nil {
		t.Fatalf("responder's last Next: %x, %v", out, err)
	}
	if ki, err = ini.SessionKey(); err != nil {
		t.Fatal(err)
	}
	if kr, err = resp.SessionKey(); err != nil {
		t.Fatal(err)
	}
	return [][]byte{m1, m2, m3}, ki, kr
}

func newPair(t testing.TB, initiatorPW, responderPW []byte) (*Party, *Party) {
	ini, err := NewInitiator(rand.Reader, initiatorPW, aliceID, bobID, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := NewResponder(rand.Reader, responderPW, bobID, aliceID, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ini, resp
}

func TestHonestExchange(t *testing.T) {
	ini, resp := newPair(t, testPassword, testPassword)
	msgs, ki, kr := runParties(t, ini, resp)
	if !bytes.Equal(ki, kr) || len(ki) != KeySize {
		t.Fatalf("keys differ or wrong size: %x %x", ki, kr)
	}
	for i, want := range []int{CommitSize, CommitSize + ConfirmSize, ConfirmSize} {
		if len(msgs[i]) != want {
			t.Errorf("message %d: %d bytes, want %d", i, len(msgs[i]), want)
		}
	}
	if !ini.Done() || !resp.Done() {
		t.Error("parties not done")
	}
	for _, p := range []*Party{ini, resp} {
		if _, err := p.Next(msgs[2]); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("Next after the end: %v", err)
		}
	}
}

func TestSymmetricPeers(t *testing.T) {
	a, err := NewPeer(rand.Reader, testPassword, aliceID, bobID, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewPeer(rand.Reader, testPassword, bobID, aliceID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Key(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("Key before the exchange: %v", err)
	}
	// Both commits cross, then both confirms: the order does not matter.
	if err := a.ProcessCommit(b.Commit()); err != nil {
		t.Fatal(err)
	}
	if err := b.ProcessCommit(a.Commit()); err != nil {
		t.Fatal(err)
	}
	ca, _ := a.Confirm()
	cb, _ := b.Confirm()
	if bytes.Equal(ca, cb) {
		t.Error("the two confirms are equal; the sender's identity is not bound")
	}
	if err := a.VerifyConfirm(cb); err != nil {
		t.Fatal(err)
	}
	if err := b.VerifyConfirm(ca); err != nil {
		t.Fatal(err)
	}
	ka, _ := a.Key()
	kb, _ := b.Key()
	if !bytes.Equal(ka, kb) {
		t.Fatal("keys differ")
	}
	// A peer's own confirm sent back to it does not verify.
	c, err := NewPeer(rand.Reader, testPassword, aliceID, bobID, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewPeer(rand.Reader, testPassword, bobID, aliceID, nil)
	c.ProcessCommit(d.Commit())
	own, _ := c.Confirm()
	if err := c.VerifyConfirm(own); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("reflected confirm: %v", err)
	}
}

func TestWrongPassword(t *testing.T) {
	ini, resp := newPair(t, []byte("wrong password"), testPassword)
	m1, _ := ini.Next(nil)
	m2, err := resp.Next(m1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ini.Next(m2); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Fatalf("initiator with the wrong password: %v, want ErrAuthFailed", err)
	}
	if _, err := ini.Next(m2); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("Next after a failure: %v, want ErrState", err)
	}
	if _, err := ini.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("SessionKey after a failure: %v", err)
	}
}

// Values around the group order r and the field prime p.
var (
	orderR       = mustHexT("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
	orderRPlus1  = mustHexT("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632552")
	orderRMinus1 = mustHexT("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550")
	primeP       = mustHexT("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
)

func mustHexT(s string) []byte { return unhex(s) }

func scalarBytes(v byte) []byte { b := make([]byte, 32); b[31] = v; return b }

// freshPeer returns a peer on a fixed, quickly made password element.
func freshPeer(t testing.TB) (*Peer, *group.Point) {
	s, _ := group.RandomScalar(rand.Reader)
	pe := group.NewPoint().ScalarBaseMult(s)
	p, err := newPeerWithElement(rand.Reader, pe, aliceID, bobID)
	if err != nil {
		t.Fatal(err)
	}
	return p, pe
}

func TestInvalidCommits(t *testing.T) {
	p0, _ := freshPeer(t)
	good := p0.Commit() // a valid commit from another peer on another PE
	element := good[ScalarSize:]
	scalar := good[:ScalarSize]
	offCurve := bytes.Clone(element)
	offCurve[ElementSize-1] ^= 1
	xTooBig := append(bytes.Clone(primeP), element[32:]...)
	for _, c := range []struct {
		name   string
		commit []byte
		want   error
	}{
		{"scalar 0", append(scalarBytes(0), element...), ErrInvalidScalar},
		{"scalar 1", append(scalarBytes(1), element...), ErrInvalidScalar},
		{"scalar r", append(bytes.Clone(orderR), element...), ErrInvalidScalar},
		{"scalar r+1", append(bytes.Clone(orderRPlus1), element...), ErrInvalidScalar},
		{"scalar 2^256-1", append(bytes.Repeat([]byte{0xff}, 32), element...), ErrInvalidScalar},
		{"element off the curve", append(bytes.Clone(scalar), offCurve...), ErrInvalidElement},
		{"element x = p", append(bytes.Clone(scalar), xTooBig...), ErrInvalidElement},
		{"element (0, 0)", append(bytes.Clone(scalar), make([]byte, ElementSize)...), ErrInvalidElement},
		{"short", good[:CommitSize-1], pakeerr.ErrInvalidMessage},
		{"long", append(bytes.Clone(good), 0), pakeerr.ErrInvalidMessage},
	} {
		p, _ := freshPeer(t)
		err := p.ProcessCommit(c.commit)
		if !errors.Is(err, c.want) || !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if _, err := p.Confirm(); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("%s: Confirm after a rejected commit: %v", c.name, err)
		}
	}
	// The boundary values just inside the range are accepted.
	for _, s := range [][]byte{scalarBytes(2), orderRMinus1} {
		p, _ := freshPeer(t)
		if err := p.ProcessCommit(append(bytes.Clone(s), element...)); err != nil {
			t.Errorf("scalar %x: %v", s, err)
		}
	}
}

func TestReflection(t *testing.T) {
	p, _ := freshPeer(t)
	if err := p.ProcessCommit(p.Commit()); !errors.Is(err, ErrReflection) {
		t.Fatalf("own commit reflected: %v, want ErrReflection", err)
	}
	// Through Party: the initiator receives its own commit back.
	ini, _ := newPair(t, testPassword, testPassword)
	m1, _ := ini.Next(nil)
	if _, err := ini.Next(append(m1, make([]byte, ConfirmSize)...)); !errors.Is(err, ErrReflection) {
		t.Fatalf("initiator given its own commit: %v, want ErrReflection", err)
	}
}

func TestIdentitySharedSecret(t *testing.T) {
	// A peer that knows PE can send Element = -(scalar·PE), which makes
	// peer-scalar·PE + peer-Element the identity; it must be rejected.
	p, pe := freshPeer(t)
	s := scalarBytes(7)
	sc, _ := group.NewScalar().SetCanonicalBytes(s)
	e := group.NewPoint().ScalarMult(sc, pe)
	e.Negate(e)
	err := p.ProcessCommit(append(s, core.EncodeElement(e)...))
	if !errors.Is(err, core.ErrIdentityKey) || !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Fatalf("identity K: %v", err)
	}
}

func TestPartyState(t *testing.T) {
	ini, resp := newPair(t, testPassword, testPassword)
	if _, err := ini.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("SessionKey before the run: %v", err)
	}
	if _, err := resp.Next(nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("responder speaking first: %v", err)
	}
	ini2, _ := newPair(t, testPassword, testPassword)
	if _, err := ini2.Next([]byte{1}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("initiator's first Next with input: %v", err)
	}
	// A responder that answered refuses the same commit again.
	ini3, resp3 := newPair(t, testPassword, testPassword)
	m1, _ := ini3.Next(nil)
	if _, err := resp3.Next(m1); err != nil {
		t.Fatal(err)
	}
	if _, err := resp3.Next(m1); err == nil {
		t.Error("responder accepted the commit twice")
	}
	_ = ini
}

// FuzzPeerCommit feeds arbitrary bytes as the peer's commit, then as its
// confirm. It must never panic, and must reject or verify consistently.
func FuzzPeerCommit(f *testing.F) {
	p0, pe := freshPeer(f)
	f.Add(p0.Commit(), make([]byte, ConfirmSize))
	f.Add(make([]byte, CommitSize), []byte{})
	f.Add(append(scalarBytes(2), make([]byte, ElementSize)...), []byte{1})
	f.Fuzz(func(t *testing.T, commit, confirm []byte) {
		p, err := newPeerWithElement(rand.Reader, pe, aliceID, bobID)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.ProcessCommit(commit); err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if err := p.VerifyConfirm(confirm); err == nil {
			t.Fatalf("arbitrary confirm %x verified", confirm)
		}
	})
}

// FuzzParty drives an initiator and a responder (on a fixed, quickly made
// password element) with arbitrary messages at every step.
func FuzzParty(f *testing.F) {
	_, pe := freshPeer(f)
	f.Add([]byte{}, []byte{}, uint8(0))
	f.Add(make([]byte, CommitSize+ConfirmSize), make([]byte, ConfirmSize), uint8(1))
	f.Fuzz(func(t *testing.T, a, b []byte, mode uint8) {
		mk := func(initiator bool, own, peer []byte) *Party {
			pr, err := newPeerWithElement(rand.Reader, pe, own, peer)
			if err != nil {
				t.Fatal(err)
			}
			return &Party{core.NewExchange(pr, initiator, CommitSize)}
		}
		ini, resp := mk(true, aliceID, bobID), mk(false, bobID, aliceID)
		switch mode % 3 {
		case 0: // garbage to the responder, twice
			resp.Next(a)
			resp.Next(b)
		case 1: // garbage as the responder's answer
			if _, err := ini.Next(nil); err != nil {
				t.Fatal(err)
			}
			ini.Next(a)
			ini.Next(b)
		case 2: // an honest commit, then garbage as the last confirm
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

// deterministic returns a reproducible randomness source for benchmarks.
func deterministic(seed uint64) *mrand.ChaCha8 {
	var s [32]byte
	s[0] = byte(seed)
	return mrand.NewChaCha8(s)
}
