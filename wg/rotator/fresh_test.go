package rotator

import (
	"testing"
	"time"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
)

// roles returns the initiator (the side that offers) and the responder.
func roles(a, b *side) (ini, resp *side) {
	if a.r.fresh.initiator {
		return a, b
	}
	return b, a
}

func count(s *side, k EventKind) int {
	n := 0
	for _, e := range s.events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func TestFreshRotation(t *testing.T) {
	key := randKey(t)
	_, a, b := newSides(t, wg.Fresh, key, key)
	if a.r.fresh.initiator == b.r.fresh.initiator {
		t.Fatal("both sides have the same role")
	}
	// The first handshake (timestamp PSK) restarts the chain at index 1
	// and the initiator offers at once: index 2 carries fresh material.
	rotate(t, a, b, 1)
	ini, resp := roles(a, b)
	if !ini.has(EventResync) || !resp.has(EventResync) || !ini.has(EventOffer) || !resp.has(EventAnswer) {
		t.Fatalf("events: initiator %v; responder %v", ini.events, resp.events)
	}
	st := a.r.State()
	if st.Index != 2 || st.FallenBack {
		t.Fatalf("after the first exchange: %+v", st)
	}
	hw := expectedChain(t, key, a.n.Pub, b.n.Pub, wg.HardwareRatchet, st.Epoch, 1)
	if a.pskHash(t) == hw[0] || a.pskHash(t) == hw[1] {
		t.Fatal("fresh mode applied a hardware-ratchet PSK: no fresh material")
	}
	for i := range 8 {
		rotate(t, a, b, 1)
		if got := a.r.State().Index; got != st.Index+uint64(i)+1 {
			t.Fatalf("index %d after %d more handshakes", got, i+1)
		}
	}
	if !echo(t, a.n, b.n, 2*time.Second) {
		t.Fatal("no traffic after rotation")
	}
	saved, err := wg.LoadState(a.cfg.StatePath)
	if err != nil || saved != a.r.State() {
		t.Fatalf("saved state %+v, %v; live %+v", saved, err, a.r.State())
	}
}

// TestFreshLostMessages drops the first Offer and the first Answer: the
// initiator repeats its Offer, the responder repeats its Answer without
// answering twice.
func TestFreshLostMessages(t *testing.T) {
	key := randKey(t)
	_, a, b := newSides(t, wg.Fresh, key, key)
	rotate(t, a, b, 1)
	ini, resp := roles(a, b)
	drop := func(i int, msg []byte) []byte {
		if i == 0 {
			return nil
		}
		return msg
	}
	ini.ch.sent, resp.ch.sent = 0, 0
	ini.ch.change, resp.ch.change = drop, drop
	ini.events, resp.events = nil, nil
	rotate(t, a, b, 3)
	if n := count(ini, EventOffer); n < 5 {
		t.Errorf("%d offers sent for 3 exchanges with two lost messages", n)
	}
	if n := count(resp, EventAnswer); n != 3 {
		t.Errorf("responder answered %d times, want 3", n)
	}
}

// TestFreshTamperedAnswer changes the ciphertext of one Answer in transit:
// ML-KEM's implicit rejection gives the initiator another secret, the PSKs
// differ, handshakes fail, and both sides fall back and resynchronise.
func TestFreshTamperedAnswer(t *testing.T) {
	key := randKey(t)
	c, a, b := newSides(t, wg.Fresh, key, key)
	rotate(t, a, b, 2)
	ini, resp := roles(a, b)
	resp.ch.sent = 0
	resp.ch.change = func(i int, msg []byte) []byte {
		if i == 0 {
			msg[len(msg)-1] ^= 1
		}
		return msg
	}
	before := a.r.State().Index
	if !handshake(t, a.n, b.n, 2*time.Second) {
		t.Fatal("handshake failed")
	}
	for end := time.Now().Add(2 * time.Second); ini.r.State().Index == before || resp.r.State().Index == before; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no exchange: %+v / %+v", a.r.State(), b.r.State())
		}
		a.poll(t)
		b.poll(t)
	}
	if a.pskHash(t) == b.pskHash(t) {
		t.Fatal("a tampered answer gave both sides the same PSK")
	}
	fail(t, c, a, b, 3)
	if !a.r.State().FallenBack || !b.r.State().FallenBack {
		t.Fatalf("no fallback: %+v / %+v", a.r.State(), b.r.State())
	}
	rotate(t, a, b, 2)
}

func TestFreshRestart(t *testing.T) {
	key := randKey(t)
	c, a, b := newSides(t, wg.Fresh, key, key)
	rotate(t, a, b, 3)
	for _, s := range []*side{a, b} {
		// Killed and restarted; the device kept its PSK: the rotator
		// continues from the saved state without touching the device.
		before := s.r.State()
		s.r.Close()
		s.events = nil
		s.start(t)
		if s.r.State() != before || s.has(EventApplied) {
			t.Fatalf("restart changed the state or re-applied the PSK: %+v", s.r.State())
		}
		rotate(t, a, b, 2)
	}
	// Killed, and the device lost its PSK: fresh PSKs cannot be
	// recomputed, so the restarted side falls back and the peer follows.
	a.r.Close()
	var zero wg.PSK
	if err := a.cfg.Device.SetPSK(a.cfg.Peer, &zero); err != nil {
		t.Fatal(err)
	}
	a.start(t)
	if !a.r.State().FallenBack {
		t.Fatalf("restart without the device's PSK did not fall back: %+v", a.r.State())
	}
	fail(t, c, a, b, 3)
	rotate(t, a, b, 2)
}

// TestRestored: a device that loses its PSK while the rotator runs (an
// interface re-created) gets it back at the next poll.
func TestRestored(t *testing.T) {
	key := randKey(t)
	_, a, b := newSides(t, wg.HardwareRatchet, key, key)
	rotate(t, a, b, 2)
	want := a.pskHash(t)
	var zero wg.PSK
	if err := a.cfg.Device.SetPSK(a.cfg.Peer, &zero); err != nil {
		t.Fatal(err)
	}
	a.poll(t)
	if !a.has(EventRestored) || a.pskHash(t) != want {
		t.Fatal("the PSK was not restored")
	}
	rotate(t, a, b, 1)
}

func TestFreshNeedsChannel(t *testing.T) {
	a, b := newPair(t)
	_, err := New(Config{Self: a.Pub, Peer: b.Pub, Source: nil, Device: a, Mode: wg.Fresh})
	if err == nil {
		t.Fatal("New without a Source succeeded")
	}
	_, err = New(Config{Self: a.Pub, Peer: b.Pub, Source: testSource(), Device: a, Mode: wg.Fresh})
	if err == nil {
		t.Fatal("fresh mode without a Channel accepted")
	}
}

// stubChannel delivers the fuzzer's messages.
type stubChannel struct{ in [][]byte }

func (s *stubChannel) Send([]byte) error { return nil }
func (s *stubChannel) Receive() ([]byte, bool) {
	if len(s.in) == 0 {
		return nil, false
	}
	m := s.in[0]
	s.in = s.in[1:]
	return m, true
}

// FuzzFreshMessages feeds arbitrary datagrams to both roles of a fresh-mode
// rotator: never a panic, and a message that is not a well-formed Offer or
// Answer for the next position never moves the state.
func FuzzFreshMessages(f *testing.F) {
	_, offer, err := wg.NewOffer(zeroReader{}, 0, 2)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(offer)
	f.Add([]byte("KXWG\x01\x02"))
	f.Add(make([]byte, wg.AnswerSize))
	a, b := newPair(f)
	src := testSource()
	f.Fuzz(func(t *testing.T, msg []byte) {
		for _, self := range []*node{a, b} {
			peer := b
			if self == b {
				peer = a
			}
			ch := &stubChannel{in: [][]byte{msg}}
			r, err := New(Config{Self: self.Pub, Peer: peer.Pub, Source: src, Device: self, Mode: wg.Fresh, Channel: ch})
			if err != nil {
				t.Fatal(err)
			}
			// Out of fallback at index 1 of epoch 0, as after a resync.
			psk, err := wg.StartChain(src, wg.PairID(self.Pub, peer.Pub), &r.st, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.advance(wg.State{}, psk, EventApplied); err != nil {
				t.Fatal(err)
			}
			before := r.State()
			r.exchange()
			after := r.State()
			if after != before {
				if m, err := wg.ParseMessage(msg); err != nil || m.Index != 2 || r.fresh.initiator {
					t.Fatalf("state moved on %x", msg)
				}
			}
			r.Close()
		}
	})
}

func testSource() keysource.Source {
	var k [32]byte
	for i := range k {
		k[i] = byte(i)
	}
	return keysource.NewFile(k, "test")
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }
