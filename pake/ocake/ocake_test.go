package ocake

import (
	"bytes"
	"crypto/aes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// testIterations keeps unit tests fast; DefaultIterations is exercised by
// the regression transcripts and the conformance suite.
const testIterations = 1000

var testSession = Session{
	ClientID: []byte("alice@kexlab"),
	ServerID: []byte("bob.kexlab"),
	Context:  []byte("ocake test"),
}

func mustKey(t testing.TB, password string, s Session) []byte {
	t.Helper()
	k, err := DeriveKey([]byte(password), s.ClientID, s.ServerID, testIterations)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// exchange runs Alice and Bob with their own password keys and sessions.
// tamper, if not nil, may change message i (0 or 1) in flight.
func exchange(t testing.TB, keyA, keyB []byte, sA, sB Session, tamper func(i int, m []byte) []byte) (ka, kb []byte, errA, errB error) {
	t.Helper()
	a, err := NewInitiator(rand.Reader, keyA, sA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewResponder(rand.Reader, keyB, sB)
	if err != nil {
		t.Fatal(err)
	}
	if tamper == nil {
		tamper = func(_ int, m []byte) []byte { return m }
	}
	m1, err := a.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m1) != Message1Size {
		t.Fatalf("message 1 is %d bytes, want %d", len(m1), Message1Size)
	}
	m2, errB := b.Next(tamper(0, m1))
	if errB != nil {
		return nil, nil, nil, errB
	}
	if len(m2) != Message2Size {
		t.Fatalf("message 2 is %d bytes, want %d", len(m2), Message2Size)
	}
	kb, _ = b.SessionKey()
	out, errA := a.Next(tamper(1, m2))
	if errA != nil {
		return nil, kb, errA, nil
	}
	if out != nil {
		t.Fatalf("initiator sent a third message")
	}
	ka, _ = a.SessionKey()
	return ka, kb, nil, nil
}

func TestHonest(t *testing.T) {
	k := mustKey(t, "correct horse", testSession)
	ka, kb, errA, errB := exchange(t, k, k, testSession, testSession, nil)
	if errA != nil || errB != nil {
		t.Fatalf("honest run failed: %v / %v", errA, errB)
	}
	if !bytes.Equal(ka, kb) || len(ka) != KeySize {
		t.Fatalf("keys differ or wrong size:\n%x\n%x", ka, kb)
	}
	ka2, _, _, _ := exchange(t, k, k, testSession, testSession, nil)
	if bytes.Equal(ka, ka2) {
		t.Fatal("two runs gave the same key")
	}
}

func TestWrongPassword(t *testing.T) {
	kA := mustKey(t, "correct horse", testSession)
	kB := mustKey(t, "correct horsf", testSession)
	_, _, errA, errB := exchange(t, kA, kB, testSession, testSession, nil)
	if !errors.Is(errB, pakeerr.ErrAuthFailed) && !errors.Is(errA, pakeerr.ErrAuthFailed) {
		t.Fatalf("wrong password: got %v / %v, want ErrAuthFailed", errA, errB)
	}
}

// TestSessionBinding checks that each part of sid changes the keys: a
// mismatch in any of them fails the exchange.
func TestSessionBinding(t *testing.T) {
	k := mustKey(t, "pw", testSession)
	other := testSession
	other.Context = []byte("another context")
	if _, _, errA, errB := exchange(t, k, k, testSession, other, nil); errA == nil && errB == nil {
		t.Error("different Context: exchange succeeded")
	}
	// The password key is bound to the identities through the salt.
	swapped := Session{ClientID: testSession.ServerID, ServerID: testSession.ClientID, Context: testSession.Context}
	if bytes.Equal(k, mustKey(t, "pw", swapped)) {
		t.Error("swapping the identities does not change the password key")
	}
}

func TestTamper(t *testing.T) {
	k := mustKey(t, "pw", testSession)
	flip := func(msg, pos int) func(int, []byte) []byte {
		return func(i int, m []byte) []byte {
			if i != msg {
				return m
			}
			m = bytes.Clone(m)
			m[pos] ^= 1
			return m
		}
	}
	cases := []struct {
		name string
		f    func(int, []byte) []byte
		want error
	}{
		{"message 1 IV", flip(0, 0), pakeerr.ErrAuthFailed},
		{"message 1 first block", flip(0, ivSize), pakeerr.ErrAuthFailed},
		{"message 1 padding block", flip(0, Message1Size-1), pakeerr.ErrAuthFailed},
		{"message 2 ciphertext", flip(1, 0), pakeerr.ErrAuthFailed},
		{"message 2 Auth", flip(1, Message2Size-1), pakeerr.ErrAuthFailed},
		{"message 1 truncated", func(i int, m []byte) []byte {
			if i == 0 {
				return m[:len(m)-aes.BlockSize]
			}
			return m
		}, pakeerr.ErrInvalidMessage},
		{"message 2 extended", func(i int, m []byte) []byte {
			if i == 1 {
				return append(bytes.Clone(m), 0)
			}
			return m
		}, pakeerr.ErrInvalidMessage},
	}
	for _, tc := range cases {
		_, _, errA, errB := exchange(t, k, k, testSession, testSession, tc.f)
		err := errB
		if err == nil {
			err = errA
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestState(t *testing.T) {
	k := mustKey(t, "pw", testSession)
	a, _ := NewInitiator(nil, k, testSession)
	b, _ := NewResponder(nil, k, testSession)
	if _, err := a.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("SessionKey before the end: %v", err)
	}
	if _, err := b.Next(nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("responder.Next(nil): %v", err)
	}
	if _, err := b.Next(make([]byte, Message1Size)); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("responder used after failing: %v", err)
	}
	a2, _ := NewInitiator(nil, k, testSession)
	if _, err := a2.Next([]byte{1}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("initiator.Next(non-nil) first: %v", err)
	}
	if _, err := a2.Next(nil); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("initiator used after failing: %v", err)
	}
	// Run a and a fresh responder to the end, then misuse them.
	b2, _ := NewResponder(nil, k, testSession)
	m1, _ := a.Next(nil)
	m2, err := b2.Next(m1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b2.Next(m1); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("responder answered twice: %v", err)
	}
	if _, err := a.Next(m2); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Next(m2); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("initiator after the end: %v", err)
	}
	if k, err := a.SessionKey(); err != nil || len(k) != KeySize {
		t.Errorf("SessionKey after misuse of a finished party: %v", err)
	}
}

func TestParameters(t *testing.T) {
	if _, err := DeriveKey(nil, nil, nil, 1); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("empty password: %v", err)
	}
	if _, err := DeriveKey([]byte("pw"), nil, nil, -1); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("negative iterations: %v", err)
	}
	if _, err := NewInitiator(nil, make([]byte, 16), Session{}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("short password key: %v", err)
	}
	if _, err := NewResponder(nil, nil, Session{}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("nil password key: %v", err)
	}
	failing := newFailingInitiator(t)
	if _, err := failing.Next(nil); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("failing randomness: %v", err)
	}
}

// newFailingInitiator returns an initiator whose randomness source is
// empty.
func newFailingInitiator(t *testing.T) *Initiator {
	a, err := NewInitiator(bytes.NewReader(nil), mustKey(t, "pw", testSession), testSession)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPaddingOracle demonstrates the offline dictionary attack described
// in the package documentation: from message 1 alone, the last plaintext
// block under a candidate password key is the constant padding block for
// the right password, and not for wrong ones.
func TestPaddingOracle(t *testing.T) {
	right := mustKey(t, "hunter2", testSession)
	a, _ := NewInitiator(nil, right, testSession)
	m1, err := a.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	isPassword := func(pwKey []byte) bool {
		k := transcriptHash("enc", testSession.ClientID, testSession.ServerID, testSession.Context, pwKey)
		block, _ := aes.NewCipher(k[:encKeySize])
		last := make([]byte, aes.BlockSize)
		block.Decrypt(last, m1[len(m1)-aes.BlockSize:])
		for i := range last {
			last[i] ^= m1[len(m1)-2*aes.BlockSize+i]
		}
		return bytes.Equal(last, fullPadding[:])
	}
	if !isPassword(right) {
		t.Fatal("the right password does not reveal the padding")
	}
	for _, guess := range []string{"hunter1", "hunter3", "Hunter2", "password", "123456"} {
		if isPassword(mustKey(t, guess, testSession)) {
			t.Errorf("wrong guess %q passes the padding test", guess)
		}
	}
}
