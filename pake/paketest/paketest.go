// Package paketest is the conformance suite that every kexlab PAKE must pass
// unchanged. Package pake runs it over every registered scheme; a scheme's
// own tests may run it too.
//
// It checks, through the uniform pake.Scheme interface only:
//   - an honest run gives equal, fresh keys, with the messages Info declares;
//   - a wrong password never gives equal keys, and fails with
//     pake.ErrAuthFailed where the scheme confirms keys;
//   - every message with any single byte flipped (two bit patterns), cut
//     short, extended or emptied is rejected with a typed error or leads to
//     different keys, and never panics; a party that rejected a message
//     refuses further use;
//   - parties used out of order fail with pake.ErrState;
//   - a nil io.Reader means crypto/rand: Register, both parties (made
//     directly and through pake.Preparer) and Floor (pake.Floorer) accept
//     it, and the exchange completes with fresh, equal keys;
//   - a nil or empty message at any step of the exchange is refused by
//     the party receiving it with a typed error (one of the pake error
//     values), without a panic, and that party is dead after; an all-zero
//     message makes the exchange fail as a tampered one must;
//   - an augmented scheme's server works from the record without the
//     password;
//   - parties made through pake.Preparer (where a scheme has it) behave
//     exactly like those made directly; the byte-by-byte tampering runs
//     use them, so the password is stretched once, not per run.
package paketest

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/kexlab/kexlab/pake"
)

// Credentials used by the suite.
var (
	Honest = pake.Credentials{
		Password: []byte("correct horse battery staple"),
		ClientID: []byte("client@kexlab"),
		ServerID: []byte("server.kexlab"),
		Context:  []byte("kexlab conformance v1"),
	}
	wrongPassword = []byte("correct horse battery stapler")
)

// Conformance runs the whole suite against s.
func Conformance(t *testing.T, s pake.Scheme) {
	info := s.Info()
	record, err := s.Register(rand.Reader, Honest)
	if err != nil {
		t.Fatalf("%s: Register: %v", info.Name, err)
	}
	if info.Augmented != (record != nil) {
		t.Fatalf("%s: Augmented=%v but Register returned a record of %d bytes", info.Name, info.Augmented, len(record))
	}
	t.Run("honest", func(t *testing.T) { testHonest(t, s, record) })
	t.Run("wrong-password", func(t *testing.T) { testWrongPassword(t, s) })
	t.Run("tamper", func(t *testing.T) { testTamper(t, s, record) })
	t.Run("state", func(t *testing.T) { testState(t, s, record) })
	t.Run("nil-rand", func(t *testing.T) { testNilRand(t, s) })
	t.Run("empty-messages", func(t *testing.T) { testEmptyMessages(t, s, record) })
}

// sides starts the parties of one run. The server of an augmented scheme
// is given no password.
type sides struct {
	client, server pake.PartyFactory
}

// credentials returns the client's and the server's credentials.
func credentials(s pake.Scheme, clientPW []byte) (cc, sc pake.Credentials) {
	cc, sc = Honest, Honest
	cc.Password = clientPW
	if s.Info().Augmented {
		sc.Password = nil
	}
	return cc, sc
}

// direct starts parties through Scheme.NewClient and NewServer, so each
// party does all of its work, password stretching included.
func direct(s pake.Scheme, clientPW, record []byte) sides {
	cc, sc := credentials(s, clientPW)
	return sides{
		client: func(r io.Reader) (pake.Party, error) { return s.NewClient(r, cc) },
		server: func(r io.Reader) (pake.Party, error) { return s.NewServer(r, sc, record) },
	}
}

// prepared starts parties through pake.Preparer where the scheme has it,
// stretching the password once for many runs; otherwise it is direct.
func prepared(t *testing.T, s pake.Scheme, clientPW, record []byte) sides {
	t.Helper()
	p, ok := s.(pake.Preparer)
	if !ok {
		return direct(s, clientPW, record)
	}
	cc, sc := credentials(s, clientPW)
	c, err := p.PrepareClient(cc)
	if err != nil {
		t.Fatalf("PrepareClient: %v", err)
	}
	sv, err := p.PrepareServer(sc, record)
	if err != nil {
		t.Fatalf("PrepareServer: %v", err)
	}
	return sides{client: c, server: sv}
}

// parties creates a client and a server for one run.
func (sd sides) parties(t *testing.T) (pake.Party, pake.Party) {
	t.Helper()
	return sd.partiesFrom(t, rand.Reader)
}

// partiesFrom creates a client and a server that draw their randomness
// from r, turning a panic into a test failure.
func (sd sides) partiesFrom(t *testing.T, r io.Reader) (c, sv pake.Party) {
	t.Helper()
	var err error
	noPanic(t, "new client", func() { c, err = sd.client(r) })
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	noPanic(t, "new server", func() { sv, err = sd.server(r) })
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	return c, sv
}

// noPanic runs f, turning a panic into a fatal test failure.
func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s: panic: %v", what, p)
		}
	}()
	f()
}

// typed reports whether err is one of the pake error values.
func typed(err error) bool {
	for _, e := range []error{pake.ErrInvalidMessage, pake.ErrAuthFailed, pake.ErrState, pake.ErrInvalidParameter, pake.ErrRandom} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// run drives one exchange, turning a panic into a test failure.
func run(t *testing.T, c, sv pake.Party, hook pake.Hook) (kc, ks []byte, tr pake.Transcript, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("panic during exchange: %v", p)
		}
	}()
	return pake.Run(c, sv, hook)
}

func testHonest(t *testing.T, s pake.Scheme, record []byte) {
	info := s.Info()
	var first []byte
	// The first run is direct, the second prepared (pake.Preparer): the
	// two paths must agree on the wire and on keys.
	for n, sd := range []sides{direct(s, Honest.Password, record), prepared(t, s, Honest.Password, record)} {
		c, sv := sd.parties(t)
		kc, ks, tr, err := run(t, c, sv, nil)
		if err != nil {
			t.Fatalf("honest run failed: %v", err)
		}
		if !bytes.Equal(kc, ks) {
			t.Fatalf("honest run: keys differ\nclient %x\nserver %x", kc, ks)
		}
		if len(kc) < 16 {
			t.Fatalf("session key of %d bytes, want at least 16", len(kc))
		}
		if n == 1 && bytes.Equal(kc, first) {
			t.Fatalf("two runs gave the same key %x: randomness not used", kc)
		}
		first = kc
		if len(tr.Messages) != len(info.Messages) {
			t.Fatalf("run sent %d messages, Info declares %d", len(tr.Messages), len(info.Messages))
		}
		for i, m := range info.Messages {
			if m.From != pake.Role(i%2) {
				t.Errorf("Info message %d (%s) from %v, but messages alternate from the client", i, m.Name, m.From)
			}
			if !m.Fits(len(tr.Messages[i])) {
				t.Errorf("message %d (%s): %d bytes on the wire, Info says %d", i, m.Name, len(tr.Messages[i]), m.Size)
			}
			if m.StudySize <= 0 {
				t.Errorf("message %d (%s): StudySize not set", i, m.Name)
			}
		}
		// A finished party refuses further messages.
		for _, p := range []pake.Party{c, sv} {
			if _, err := p.Next(tr.Messages[len(tr.Messages)-1]); !errors.Is(err, pake.ErrState) {
				t.Errorf("Next after the end: got %v, want ErrState", err)
			}
		}
	}
}

func testWrongPassword(t *testing.T, s pake.Scheme) {
	info := s.Info()
	// The server holds the honest password (or its record); the client
	// tries a wrong one, and the other way round for balanced schemes.
	record, err := s.Register(rand.Reader, Honest)
	if err != nil {
		t.Fatal(err)
	}
	for _, sd := range []sides{direct(s, wrongPassword, record), prepared(t, s, wrongPassword, record)} {
		c, sv := sd.parties(t)
		kc, ks, _, err := run(t, c, sv, nil)
		checkRejectedOrDifferent(t, info, "wrong password", kc, ks, err, true)
	}
}

// checkRejectedOrDifferent asserts that a run either failed with a typed
// error or ended with different keys. authOnly demands ErrAuthFailed (not
// just ErrInvalidMessage) from schemes with key confirmation.
func checkRejectedOrDifferent(t *testing.T, info pake.Info, what string, kc, ks []byte, err error, authOnly bool) {
	t.Helper()
	if err == nil {
		if bytes.Equal(kc, ks) {
			t.Errorf("%s: run ended with equal keys", what)
		} else if info.KeyConfirmation {
			t.Errorf("%s: scheme confirms keys but the run ended without error (keys differ)", what)
		}
		return
	}
	switch {
	case errors.Is(err, pake.ErrAuthFailed):
	case errors.Is(err, pake.ErrInvalidMessage) && !authOnly:
	default:
		t.Errorf("%s: untyped or wrong error: %v", what, err)
	}
}

type mutation struct {
	name string
	f    func([]byte) []byte
}

func mutations(size int) []mutation {
	var ms []mutation
	for pos := 0; pos < size; pos++ {
		for _, bit := range []byte{0x01, 0x80} {
			pos, bit := pos, bit
			ms = append(ms, mutation{fmt.Sprintf("flip byte %d ^%#02x", pos, bit), func(m []byte) []byte {
				out := bytes.Clone(m)
				out[pos] ^= bit
				return out
			}})
		}
	}
	ms = append(ms,
		mutation{"empty", func(m []byte) []byte { return []byte{} }},
		mutation{"truncate by one", func(m []byte) []byte { return bytes.Clone(m[:len(m)-1]) }},
		mutation{"truncate to half", func(m []byte) []byte { return bytes.Clone(m[:len(m)/2]) }},
		mutation{"extend by zero byte", func(m []byte) []byte { return append(bytes.Clone(m), 0) }},
		mutation{"extend by copy", func(m []byte) []byte { return append(bytes.Clone(m), m...) }},
		mutation{"random bytes", func(m []byte) []byte {
			out := make([]byte, len(m))
			rand.Read(out)
			return out
		}},
	)
	return ms
}

func testTamper(t *testing.T, s pake.Scheme, record []byte) {
	info := s.Info()
	sd := prepared(t, s, Honest.Password, record)
	for i, msg := range info.Messages {
		for _, mu := range mutations(msg.Size) {
			tamper(t, info, sd, i, mu)
			if t.Failed() {
				return
			}
		}
	}
}

// tamper runs one exchange in which message i is replaced by mu.f of it:
// the run must fail with a typed error or end with different keys, and a
// receiver that failed must refuse further use.
func tamper(t *testing.T, info pake.Info, sd sides, i int, mu mutation) {
	t.Helper()
	msg := info.Messages[i]
	c, sv := sd.parties(t)
	var receiver pake.Party = sv
	if msg.From == pake.Server {
		receiver = c
	}
	hook := func(j int, _ pake.Role, m []byte) []byte {
		if j == i {
			return mu.f(m)
		}
		return m
	}
	what := fmt.Sprintf("message %d (%s): %s", i, msg.Name, mu.name)
	kc, ks, _, err := run(t, c, sv, hook)
	checkRejectedOrDifferent(t, info, what, kc, ks, err, false)
	if err != nil && !receiver.Done() {
		// The failure may have surfaced at the other party (the receiver
		// then still waits for its next message): either way, nil is
		// refused.
		if _, err2 := receiver.Next(nil); !errors.Is(err2, pake.ErrState) && !errors.Is(err2, pake.ErrInvalidMessage) {
			t.Errorf("%s: party used after a failure: got %v, want ErrState", what, err2)
		}
	}
}

func testState(t *testing.T, s pake.Scheme, record []byte) {
	sd := direct(s, Honest.Password, record)
	c, sv := sd.parties(t)
	if _, err := c.SessionKey(); !errors.Is(err, pake.ErrState) {
		t.Errorf("client SessionKey before the run: got %v, want ErrState", err)
	}
	if _, err := sv.SessionKey(); !errors.Is(err, pake.ErrState) {
		t.Errorf("server SessionKey before the run: got %v, want ErrState", err)
	}
	// The server cannot speak first.
	if _, err := sv.Next(nil); !errors.Is(err, pake.ErrInvalidMessage) && !errors.Is(err, pake.ErrState) {
		t.Errorf("server.Next(nil) first: got %v, want ErrInvalidMessage or ErrState", err)
	}
	// Replaying the client's first message to a server that already
	// answered it is refused.
	c2, sv2 := sd.parties(t)
	m1, err := c2.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sv2.Next(m1); err != nil {
		t.Fatal(err)
	}
	if len(s.Info().Messages) > 2 {
		if _, err := sv2.Next(m1); err == nil {
			t.Errorf("server accepted the client's first message twice")
		}
	}
	// The client's first call takes no input.
	c3, _ := sd.parties(t)
	if _, err := c3.Next([]byte{1, 2, 3}); !errors.Is(err, pake.ErrInvalidMessage) && !errors.Is(err, pake.ErrState) {
		t.Errorf("client.Next(non-nil) first: got %v, want ErrInvalidMessage or ErrState", err)
	}
}

// testNilRand registers and runs an exchange with a nil io.Reader
// everywhere, which must mean crypto/rand: both runs (direct and prepared)
// end with equal keys, and the two runs with different ones.
func testNilRand(t *testing.T, s pake.Scheme) {
	info := s.Info()
	var record []byte
	var err error
	noPanic(t, "Register(nil)", func() { record, err = s.Register(nil, Honest) })
	if err != nil {
		t.Fatalf("Register with a nil reader: %v", err)
	}
	if info.Augmented != (record != nil) {
		t.Fatalf("Register with a nil reader: Augmented=%v but the record has %d bytes", info.Augmented, len(record))
	}
	var first []byte
	for n, sd := range []sides{direct(s, Honest.Password, record), prepared(t, s, Honest.Password, record)} {
		c, sv := sd.partiesFrom(t, nil)
		kc, ks, _, err := run(t, c, sv, nil)
		if err != nil {
			t.Fatalf("run %d with a nil reader: %v", n, err)
		}
		if !bytes.Equal(kc, ks) || len(kc) == 0 {
			t.Fatalf("run %d with a nil reader: keys differ\nclient %x\nserver %x", n, kc, ks)
		}
		if n == 1 && bytes.Equal(kc, first) {
			t.Fatalf("two runs with a nil reader gave the same key %x: crypto/rand not used", kc)
		}
		first = kc
	}
	if f, ok := s.(pake.Floorer); ok {
		noPanic(t, "Floor(nil)", func() { _, err = f.Floor(nil) })
		if err != nil {
			t.Errorf("Floor with a nil reader: %v", err)
		}
	}
}

// testEmptyMessages runs an honest exchange up to message i and gives the
// party that should receive it a nil and an empty message instead: each
// must be refused at once with a typed error, and the party must refuse
// further use. An all-zero message of the declared size is not always
// malformed (an encrypted nonce or share decrypts to something), so the
// exchange goes on with it and must fail with a typed error, or, in a
// scheme without key confirmation, end with different keys.
func testEmptyMessages(t *testing.T, s pake.Scheme, record []byte) {
	info := s.Info()
	sd := prepared(t, s, Honest.Password, record)
	for i, m := range info.Messages {
		for _, bad := range []struct {
			name string
			msg  []byte
		}{{"nil", nil}, {"empty", []byte{}}} {
			what := fmt.Sprintf("message %d (%s) %s", i, m.Name, bad.name)
			c, sv := sd.parties(t)
			parties := [2]pake.Party{c, sv}
			var in []byte
			for j := 0; j <= i; j++ { // the honest messages 0..i; message i is dropped
				var err error
				noPanic(t, what, func() { in, err = parties[j%2].Next(in) })
				if err != nil {
					t.Fatalf("%s: honest message %d: %v", what, j, err)
				}
			}
			receiver := parties[(i+1)%2]
			var err error
			noPanic(t, what, func() { _, err = receiver.Next(bad.msg) })
			if !typed(err) {
				t.Errorf("%s: got %v, want a typed error", what, err)
				continue
			}
			// Dead after refusing it: even the honest message is refused.
			noPanic(t, what+", then the honest message", func() { _, err = receiver.Next(in) })
			if !errors.Is(err, pake.ErrState) {
				t.Errorf("%s, then the honest message: got %v, want ErrState", what, err)
			}
		}
		tamper(t, info, sd, i, mutation{"all-zero", func(m []byte) []byte { return make([]byte, len(m)) }})
	}
}
