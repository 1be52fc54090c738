package apakepq

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/ocake"
)

// testIterations keeps unit tests fast; DefaultIterations is exercised by
// the regression transcripts and the conformance suite.
const testIterations = 1000

var testSession = Session{
	ClientID: []byte("alice@kexlab"),
	ServerID: []byte("server.kexlab"),
	Context:  []byte("apakepq test"),
}

func mustRecord(t testing.TB, password string) *Record {
	t.Helper()
	r, err := Register([]byte(password), testSession.ClientID, testSession.ServerID, testIterations)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// login runs a client against a server holding rec. tamper, if not nil,
// may change message i (0, 1 or 2) in flight. It returns the keys and the
// first error with the side that raised it.
func login(t testing.TB, c *Client, rec *Record, tamper func(i int, m []byte) []byte) (kc, ks []byte, atServer bool, err error) {
	t.Helper()
	sv, err := NewServer(rand.Reader, rec, testSession)
	if err != nil {
		t.Fatal(err)
	}
	if tamper == nil {
		tamper = func(_ int, m []byte) []byte { return m }
	}
	m1, err := c.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := sv.Next(tamper(0, m1))
	if err != nil {
		return nil, nil, true, err
	}
	m3, err := c.Next(tamper(1, m2))
	if err != nil {
		return nil, nil, false, err
	}
	if out, err := sv.Next(tamper(2, m3)); err != nil || out != nil {
		return nil, nil, true, err
	}
	kc, _ = c.SessionKey()
	ks, _ = sv.SessionKey()
	return kc, ks, false, nil
}

func newTestClient(t testing.TB, password string) *Client {
	t.Helper()
	c, err := NewClient(rand.Reader, []byte(password), testSession, testIterations)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHonest(t *testing.T) {
	rec := mustRecord(t, "correct horse")
	parsed, err := ParseRecord(rec.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	kc, ks, _, err := login(t, newTestClient(t, "correct horse"), parsed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kc, ks) || len(kc) != KeySize {
		t.Fatalf("keys differ:\n%x\n%x", kc, ks)
	}
	kc2, _, _, _ := login(t, newTestClient(t, "correct horse"), rec, nil)
	if bytes.Equal(kc, kc2) {
		t.Fatal("two logins gave the same key")
	}
}

// TestRecord checks the password file: deterministic, bound to the
// identities and the iteration count, free of the password, and parsed
// strictly.
func TestRecord(t *testing.T) {
	const pw = "correct horse battery staple"
	r1 := mustRecord(t, pw).Bytes()
	if len(r1) != RecordSize {
		t.Fatalf("record of %d bytes, want %d", len(r1), RecordSize)
	}
	if !bytes.Equal(r1, mustRecord(t, pw).Bytes()) {
		t.Error("registration is not deterministic")
	}
	if bytes.Contains(r1, []byte(pw)) {
		t.Error("the record contains the password")
	}
	other, _ := Register([]byte(pw), testSession.ServerID, testSession.ClientID, testIterations)
	if bytes.Equal(r1, other.Bytes()) {
		t.Error("the record does not depend on the identities")
	}
	more, _ := Register([]byte(pw), testSession.ClientID, testSession.ServerID, testIterations+1)
	if bytes.Equal(r1, more.Bytes()) {
		t.Error("the record does not depend on the iteration count")
	}
	for _, bad := range [][]byte{nil, r1[:RecordSize-1], append(bytes.Clone(r1), 0)} {
		if _, err := ParseRecord(bad); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("record of %d bytes: %v", len(bad), err)
		}
	}
	// An encapsulation key with a coefficient ≥ q fails the FIPS 203
	// modulus check: set the first 12-bit coefficient to 0xfff.
	unreduced := bytes.Clone(r1)
	unreduced[rwSize] = 0xff
	unreduced[rwSize+1] |= 0x0f
	if _, err := ParseRecord(unreduced); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("unreduced ek: %v", err)
	}
	if _, err := NewServer(nil, nil, testSession); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("nil record: %v", err)
	}
	if _, err := Register(nil, nil, nil, 1); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("empty password: %v", err)
	}
	if _, err := Register([]byte("pw"), nil, nil, -5); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("negative iterations: %v", err)
	}
}

func TestWrongPassword(t *testing.T) {
	rec := mustRecord(t, "correct horse")
	_, _, atServer, err := login(t, newTestClient(t, "correct horsf"), rec, nil)
	if !errors.Is(err, pakeerr.ErrAuthFailed) || !atServer {
		t.Fatalf("wrong password: got %v (at server: %v), want ErrAuthFailed at the server", err, atServer)
	}
}

// TestStolenRecord is the augmented property: whoever holds the record
// knows rw, so can run the OCAKE layer as the client, but cannot
// decapsulate the server's challenge without dk, which only the password
// yields. The server must reject its proof.
func TestStolenRecord(t *testing.T) {
	rec := mustRecord(t, "correct horse")
	_, fakeDK, err := mlkem512.GenerateKeyPair(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	thief, err := newClient(rand.Reader, &secrets{rw: rec.rw, dk: fakeDK}, testSession)
	if err != nil {
		t.Fatal(err)
	}
	_, _, atServer, err := login(t, thief, rec, nil)
	if !errors.Is(err, pakeerr.ErrAuthFailed) || !atServer {
		t.Fatalf("login with the record but not the password: got %v (at server: %v), want ErrAuthFailed at the server", err, atServer)
	}
}

func TestSessionBinding(t *testing.T) {
	rec := mustRecord(t, "pw")
	c, _ := NewClient(rand.Reader, []byte("pw"), Session{ClientID: testSession.ClientID, ServerID: testSession.ServerID, Context: []byte("other")}, testIterations)
	if _, _, _, err := login(t, c, rec, nil); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Fatalf("different Context: %v", err)
	}
}

func TestTamper(t *testing.T) {
	rec := mustRecord(t, "pw")
	flip := func(msg, pos int) func(int, []byte) []byte {
		return func(i int, m []byte) []byte {
			if i != msg {
				return m
			}
			m = bytes.Clone(m)
			m[pos] ^= 0x80
			return m
		}
	}
	cases := []struct {
		name     string
		f        func(int, []byte) []byte
		want     error
		atServer bool
	}{
		{"message 1 padding", flip(0, Message1Size-1), pakeerr.ErrAuthFailed, true},
		{"message 2 OCAKE ciphertext", flip(1, 0), pakeerr.ErrAuthFailed, false},
		{"message 2 Auth", flip(1, ocake.Message2Size-1), pakeerr.ErrAuthFailed, false},
		{"message 2 nonce", flip(1, ocake.Message2Size), pakeerr.ErrAuthFailed, false},
		{"message 2 ψ", flip(1, ocake.Message2Size+nonceSize), pakeerr.ErrAuthFailed, false},
		{"message 2 tag", flip(1, Message2Size-1), pakeerr.ErrAuthFailed, false},
		{"message 3", flip(2, 0), pakeerr.ErrAuthFailed, true},
		{"message 2 short", func(i int, m []byte) []byte {
			if i == 1 {
				return m[:len(m)-1]
			}
			return m
		}, pakeerr.ErrInvalidMessage, false},
		{"message 3 long", func(i int, m []byte) []byte {
			if i == 2 {
				return append(bytes.Clone(m), 0)
			}
			return m
		}, pakeerr.ErrInvalidMessage, true},
	}
	for _, tc := range cases {
		_, _, atServer, err := login(t, newTestClient(t, "pw"), rec, tc.f)
		if !errors.Is(err, tc.want) || atServer != tc.atServer {
			t.Errorf("%s: got %v (at server: %v), want %v (at server: %v)", tc.name, err, atServer, tc.want, tc.atServer)
		}
	}
}

func TestState(t *testing.T) {
	rec := mustRecord(t, "pw")
	c := newTestClient(t, "pw")
	sv, _ := NewServer(nil, rec, testSession)
	if _, err := c.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("SessionKey before the end: %v", err)
	}
	m1, _ := c.Next(nil)
	m2, err := sv.Next(m1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sv.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("server SessionKey before checking σ: %v", err)
	}
	m3, err := c.Next(m2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(m2); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("client after the end: %v", err)
	}
	if _, err := sv.Next(m3); err != nil {
		t.Fatal(err)
	}
	if _, err := sv.Next(m3); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("server after the end: %v", err)
	}
	// Replaying message 1 where σ is expected fails, and kills the server.
	c2 := newTestClient(t, "pw")
	sv2, _ := NewServer(nil, rec, testSession)
	m1, _ = c2.Next(nil)
	if _, err := sv2.Next(m1); err != nil {
		t.Fatal(err)
	}
	if _, err := sv2.Next(m1); err == nil {
		t.Error("server accepted message 1 twice")
	}
	if _, err := sv2.Next(make([]byte, Message3Size)); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("failed server reused: %v", err)
	}
	c3 := newTestClient(t, "pw")
	if _, err := c3.Next([]byte{}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("client.Next(non-nil) first: %v", err)
	}
	if _, err := c3.Next(nil); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("failed client reused: %v", err)
	}
	sv3, _ := NewServer(bytes.NewReader(nil), rec, testSession)
	c4 := newTestClient(t, "pw")
	m1, _ = c4.Next(nil)
	if _, err := sv3.Next(m1); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("server without randomness: %v", err)
	}
}

// TestResumeServer: a server marshalled after message 2 and resumed
// elsewhere finishes with the same key as the client, refuses a wrong
// proof, and marshals only between the two messages.
func TestResumeServer(t *testing.T) {
	rec := mustRecord(t, "correct horse")
	for _, wrong := range []bool{false, true} {
		c := newTestClient(t, "correct horse")
		sv, err := NewServer(rand.Reader, rec, testSession)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sv.MarshalBinary(); !errors.Is(err, pakeerr.ErrState) {
			t.Fatalf("MarshalBinary before message 1: %v", err)
		}
		m1, _ := c.Next(nil)
		m2, err := sv.Next(m1)
		if err != nil {
			t.Fatal(err)
		}
		state, err := sv.MarshalBinary()
		if err != nil || len(state) != Message3Size+KeySize {
			t.Fatalf("MarshalBinary: %d bytes, %v", len(state), err)
		}
		m3, err := c.Next(m2)
		if err != nil {
			t.Fatal(err)
		}
		if wrong {
			m3[0] ^= 1
		}
		resumed, err := ResumeServer(state)
		if err != nil {
			t.Fatal(err)
		}
		_, err = resumed.Next(m3)
		if wrong {
			if !errors.Is(err, pakeerr.ErrAuthFailed) || resumed.Done() {
				t.Fatalf("wrong proof: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		kc, _ := c.SessionKey()
		ks, err := resumed.SessionKey()
		if err != nil || !bytes.Equal(kc, ks) {
			t.Fatalf("resumed key %x, client %x (%v)", ks, kc, err)
		}
		if _, err := resumed.MarshalBinary(); !errors.Is(err, pakeerr.ErrState) {
			t.Fatalf("MarshalBinary after the finish: %v", err)
		}
	}
	for _, n := range []int{0, Message3Size + KeySize - 1, Message3Size + KeySize + 1} {
		if _, err := ResumeServer(make([]byte, n)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("ResumeServer(%d bytes): %v", n, err)
		}
	}
}
