package spake2

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// p256Order is the order p of P-256 (SEC 2, Section 2.4.2), for math/big
// oracles on test values.
var p256Order, _ = new(big.Int).SetString("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", 16)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// randomW returns a random valid password scalar.
func randomW(t testing.TB) []byte {
	t.Helper()
	s, err := group.RandomScalar(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return s.Bytes()
}

// exchange runs A and B to the end through the step methods and returns
// the messages and the error that stopped it, if any.
func exchange(a *PartyA, b *PartyB) (pA, pB, cB, cA []byte, err error) {
	if pA, err = a.Start(); err != nil {
		return
	}
	if pB, cB, err = b.Respond(pA); err != nil {
		return
	}
	if cA, err = a.Finish(pB, cB); err != nil {
		return
	}
	err = b.Finish(cA)
	return
}

func newPair(t testing.TB, idA, idB, aad, wA, wB []byte) (*PartyA, *PartyB) {
	t.Helper()
	a, err := NewA(nil, idA, idB, aad, wA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewB(nil, idA, idB, aad, wB)
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

func TestKnownAnswerTests(t *testing.T) {
	tests := KnownAnswerTests()
	// M and N, and the four cases of Appendix B.
	if len(tests) != 5 {
		t.Fatalf("%d known-answer tests, want 5", len(tests))
	}
	for _, k := range tests {
		if err := k.Run(); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}

// TestVectorTranscripts checks the transcribed vectors against themselves,
// without the package's code: TT is the length-prefixed concatenation of
// A, B, pA, pB, K and w (RFC 9382, Section 3.3), and SHA-256(TT) = Ke || Ka
// = Hash(TT) (Section 4).
func TestVectorTranscripts(t *testing.T) {
	f, err := loadVectors()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Vectors) != 4 {
		t.Fatalf("%d vectors, want the 4 of Appendix B", len(f.Vectors))
	}
	for _, v := range f.Vectors {
		var tt []byte
		for _, field := range [][]byte{[]byte(v.A), []byte(v.B), unhex(t, v.PA), unhex(t, v.PB), unhex(t, v.K), unhex(t, v.W)} {
			tt = binary.LittleEndian.AppendUint64(tt, uint64(len(field)))
			tt = append(tt, field...)
		}
		if !bytes.Equal(tt, unhex(t, v.TT)) {
			t.Errorf("%s: TT does not reassemble from its parts", v.Name)
		}
		h := sha256.Sum256(unhex(t, v.TT))
		if hex.EncodeToString(h[:]) != v.HashTT || v.HashTT != v.Ke+v.Ka {
			t.Errorf("%s: Hash(TT) != Ke || Ka", v.Name)
		}
	}
}

func TestHonestExchange(t *testing.T) {
	for _, ids := range [][2][]byte{{[]byte("alice"), []byte("bob")}, {nil, nil}, {nil, []byte("server")}} {
		w := randomW(t)
		a, b := newPair(t, ids[0], ids[1], []byte("aad"), w, w)
		pA, pB, cB, cA, err := exchange(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if len(pA) != ShareSize || len(pB) != ShareSize || len(cB) != MACSize || len(cA) != MACSize {
			t.Fatalf("message sizes %d, %d, %d, %d", len(pA), len(pB), len(cB), len(cA))
		}
		ka, err := a.SessionKey()
		if err != nil {
			t.Fatal(err)
		}
		kb, err := b.SessionKey()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ka, kb) || len(ka) != KeySize {
			t.Fatalf("keys %x and %x", ka, kb)
		}
		if !a.Done() || !b.Done() {
			t.Fatal("parties not done after the exchange")
		}
	}
}

func TestHonestExchangeNext(t *testing.T) {
	w := randomW(t)
	a, b := newPair(t, []byte("A"), []byte("B"), nil, w, w)
	m1, err := a.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := b.Next(m1)
	if err != nil {
		t.Fatal(err)
	}
	m3, err := a.Next(m2)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Done() || b.Done() {
		t.Fatal("A should be done and B waiting after cA")
	}
	if out, err := b.Next(m3); err != nil || out != nil {
		t.Fatalf("B's last Next: %x, %v", out, err)
	}
	if len(m1) != 65 || len(m2) != 97 || len(m3) != 32 {
		t.Fatalf("wire sizes %d, %d, %d; want 65, 97, 32", len(m1), len(m2), len(m3))
	}
	ka, _ := a.SessionKey()
	kb, _ := b.SessionKey()
	if !bytes.Equal(ka, kb) {
		t.Fatal("keys differ")
	}
	// Finished parties refuse more messages but keep their keys.
	if _, err := a.Next(m2); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("A.Next after the end: %v", err)
	}
	if _, err := b.Next(m3); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("B.Next after the end: %v", err)
	}
	if k, err := a.SessionKey(); err != nil || !bytes.Equal(k, ka) {
		t.Errorf("A lost its key after a late message: %v", err)
	}
}

func TestWrongPassword(t *testing.T) {
	a, b := newPair(t, []byte("A"), []byte("B"), nil, randomW(t), randomW(t))
	_, _, _, _, err := exchange(a, b)
	if !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Fatalf("got %v, want ErrAuthFailed", err)
	}
	if a.Done() || b.Done() {
		t.Fatal("a party finished despite the wrong password")
	}
	if _, err := a.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("A.SessionKey after failure: %v", err)
	}
	if _, err := a.Next(nil); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("A.Next after failure: %v", err)
	}
}

// TestMismatchedParameters: identities and AAD must agree; a difference is
// caught by key confirmation.
func TestMismatchedParameters(t *testing.T) {
	w := randomW(t)
	for _, c := range []struct {
		name                   string
		idA, idB, aad          []byte
		peerIDA, peerIDB, pAAD []byte
	}{
		{"A", []byte("A"), []byte("B"), nil, []byte("A'"), []byte("B"), nil},
		{"B", []byte("A"), []byte("B"), nil, []byte("A"), []byte("B'"), nil},
		{"AAD", []byte("A"), []byte("B"), []byte("x"), []byte("A"), []byte("B"), []byte("y")},
		{"AAD absent", nil, nil, []byte("x"), nil, nil, nil},
		{"identities swapped", []byte("A"), []byte("B"), nil, []byte("B"), []byte("A"), nil},
	} {
		a, err := NewA(nil, c.idA, c.idB, c.aad, w)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewB(nil, c.peerIDA, c.peerIDB, c.pAAD, w)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, _, err := exchange(a, b); !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Errorf("%s differs: got %v, want ErrAuthFailed", c.name, err)
		}
	}
}

func TestWrongConfirmation(t *testing.T) {
	w := randomW(t)
	a, b := newPair(t, nil, nil, nil, w, w)
	pA, _ := a.Start()
	pB, cB, err := b.Respond(pA)
	if err != nil {
		t.Fatal(err)
	}
	cA, err := a.Finish(pB, cB)
	if err != nil {
		t.Fatal(err)
	}
	cA[31] ^= 1
	if err := b.Finish(cA); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Fatalf("tampered cA: %v", err)
	}
	cA[31] ^= 1
	if err := b.Finish(cA); !errors.Is(err, pakeerr.ErrState) {
		t.Fatalf("B.Finish after failure: %v", err)
	}
}

// invalidShares returns encodings that are not a valid share, each with a
// name. w is the password scalar and mask the point (M or N) a share for
// this w must not cancel.
func invalidShares(t *testing.T, valid []byte, w []byte, mask string) map[string][]byte {
	t.Helper()
	ws, err := parseW(w)
	if err != nil {
		t.Fatal(err)
	}
	offCurve := bytes.Clone(valid)
	offCurve[64] ^= 1
	xTooBig := bytes.Clone(valid)
	// x = p, the field prime (not canonical).
	copy(xTooBig[1:33], unhex(t, "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"))
	hybrid := bytes.Clone(valid)
	hybrid[0] = 6 | valid[64]&1
	compressed := make([]byte, 33)
	compressed[0] = 2 | valid[64]&1
	copy(compressed[1:], valid[1:33])
	return map[string][]byte{
		"empty":             {},
		"identity":          {0},
		"65 zero bytes":     make([]byte, 65),
		"short":             valid[:64],
		"long":              append(bytes.Clone(valid), 0),
		"off the curve":     offCurve,
		"x not canonical":   xTooBig,
		"hybrid encoding":   hybrid,
		"compressed":        compressed,
		"prefix 5":          append([]byte{5}, valid[1:]...),
		"mask itself (w*T)": group.NewPoint().ScalarMult(ws, mustPoint(mask)).Bytes(),
	}
}

func TestInvalidShares(t *testing.T) {
	w := randomW(t)
	a0, b0 := newPair(t, nil, nil, nil, w, w)
	pA, pB, _, _, err := exchange(a0, b0)
	if err != nil {
		t.Fatal(err)
	}
	cB := make([]byte, MACSize)

	for name, bad := range invalidShares(t, pA, w, mHex) {
		_, b := newPair(t, nil, nil, nil, w, w)
		if _, _, err := b.Respond(bad); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("pA %s: got %v, want ErrInvalidMessage", name, err)
		}
		if _, _, err := b.Respond(pA); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("pA %s: B usable after the failure: %v", name, err)
		}
	}
	for name, bad := range invalidShares(t, pB, w, nHex) {
		a, _ := newPair(t, nil, nil, nil, w, w)
		if _, err := a.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Finish(bad, cB); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("pB %s: got %v, want ErrInvalidMessage", name, err)
		}
		if _, err := a.Finish(pB, cB); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("pB %s: A usable after the failure: %v", name, err)
		}
	}
}

func TestMalformedMessages(t *testing.T) {
	w := randomW(t)
	a, b := newPair(t, nil, nil, nil, w, w)
	m1, _ := a.Next(nil)
	m2, err := b.Next(m1)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 96, 98, 130} {
		a, _ := newPair(t, nil, nil, nil, w, w)
		a.Next(nil)
		in := make([]byte, n)
		copy(in, m2)
		if _, err := a.Next(in); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("pB||cB of %d bytes: %v", n, err)
		}
	}
	for _, n := range []int{0, 31, 33, 64} {
		_, b := newPair(t, nil, nil, nil, w, w)
		if _, err := b.Next(m1); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Next(make([]byte, n)); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("cA of %d bytes: %v", n, err)
		}
	}
}

func TestState(t *testing.T) {
	w := randomW(t)
	a, b := newPair(t, nil, nil, nil, w, w)
	if _, err := a.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("A.SessionKey before the exchange: %v", err)
	}
	if _, err := b.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("B.SessionKey before the exchange: %v", err)
	}
	if _, err := a.Finish(make([]byte, ShareSize), make([]byte, MACSize)); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("A.Finish before Start: %v", err)
	}
	if err := b.Finish(make([]byte, MACSize)); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("B.Finish before Respond: %v", err)
	}

	a, _ = newPair(t, nil, nil, nil, w, w)
	if _, err := a.Next([]byte{1, 2, 3}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("A.Next(non-nil) first: %v", err)
	}
	if _, err := a.Next(nil); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("A.Next after failure: %v", err)
	}

	a, _ = newPair(t, nil, nil, nil, w, w)
	if _, err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Start(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("Start twice: %v", err)
	}

	_, b = newPair(t, nil, nil, nil, w, w)
	if _, err := b.Next(nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("B.Next(nil) first: %v", err)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func TestRandomnessFailure(t *testing.T) {
	w := randomW(t)
	a, err := NewA(failingReader{}, nil, nil, nil, w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Start(); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("A.Start: %v", err)
	}
	a2, _ := newPair(t, nil, nil, nil, w, w)
	pA, _ := a2.Start()
	b, err := NewB(failingReader{}, nil, nil, nil, w)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Respond(pA); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("B.Respond: %v", err)
	}
}

func TestInvalidW(t *testing.T) {
	for name, w := range map[string][]byte{
		"zero":  make([]byte, 32),
		"p":     p256Order.FillBytes(make([]byte, 32)),
		"short": make([]byte, 31),
		"long":  append([]byte{0}, randomW(t)...),
		"nil":   nil,
	} {
		if _, err := NewA(nil, nil, nil, nil, w); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("NewA with w %s: %v", name, err)
		}
		if _, err := NewB(nil, nil, nil, nil, w); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("NewB with w %s: %v", name, err)
		}
	}
}

// TestInputsCopied: the parties keep their own copies of the parameters.
func TestInputsCopied(t *testing.T) {
	w := randomW(t)
	idA, idB, aad, wA := []byte("A"), []byte("B"), []byte("aad"), bytes.Clone(w)
	a, err := NewA(nil, idA, idB, aad, wA)
	if err != nil {
		t.Fatal(err)
	}
	idA[0], idB[0], aad[0], wA[0] = 'X', 'Y', 'Z', wA[0]^1
	b, err := NewB(nil, []byte("A"), []byte("B"), []byte("aad"), w)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := exchange(a, b); err != nil {
		t.Fatalf("exchange after the caller changed its slices: %v", err)
	}
}
