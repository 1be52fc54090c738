package rotator

import (
	"bytes"
	"crypto/rand"
	"errors"
	"net/netip"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/wgdev"
)

type node = wgdev.NetstackDevice

// freshPort is the UDP port of the fresh-mode channel inside the tunnel.
const freshPort = 51821

// newPair starts two wireguard-go devices on netstack TUNs, peers of each
// other over 127.0.0.1, with a UDP echo server on b:7 inside the tunnel.
func newPair(t testing.TB) (a, b *node) {
	a, b, err := wgdev.NewLoopbackPair(netip.MustParseAddr("10.7.0.1"), netip.MustParseAddr("10.7.0.2"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	stop, err := b.ServeEcho(7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return a, b
}

// echo sends one datagram from a to b's echo port through the tunnel and
// reports whether it came back within d.
func echo(t *testing.T, a, b *node, d time.Duration) bool {
	return a.Ping(netip.AddrPortFrom(b.Addr, 7), d) == nil
}

func lastHS(t *testing.T, n *node, peer [32]byte) time.Time {
	st, err := n.Peer(peer)
	if err != nil {
		t.Fatal(err)
	}
	return st.LastHandshake
}

// handshake forces a new handshake initiated by from: ExpireCurrentKeypairs
// drops from's sending keys and clears WireGuard's 5 s initiation rate
// limit, so the next packet starts a handshake at once. Responders reject
// an initiation whose TAI64N timestamp is not newer than the last one
// (replay protection; wireguard-go rounds it to 2^24 ns), so attempts are
// spaced by 20 ms and a rejected one is retried. It reports whether the
// handshake completed on both sides within d.
func handshake(t *testing.T, from, to *node, d time.Duration) bool {
	t.Helper()
	h1, h2 := lastHS(t, from, to.Pub), lastHS(t, to, from.Pub)
	a, b := from, to
	if from.Addr != netip.MustParseAddr("10.7.0.1") {
		a, b = to, from
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		from.ForceHandshake(to.Pub)
		ok := echo(t, a, b, min(200*time.Millisecond, time.Until(deadline)))
		for end := time.Now().Add(50 * time.Millisecond); ok && time.Now().Before(end); {
			if lastHS(t, from, to.Pub).After(h1) && lastHS(t, to, from.Pub).After(h2) {
				return true
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	return false
}

// clock is real time plus an offset the test advances to make handshakes
// stale without waiting.
type clock struct{ off time.Duration }

func (c *clock) now() time.Time { return time.Now().Add(c.off) }

type side struct {
	n      *node
	cfg    Config
	r      *Rotator
	ch     *tap
	events []Event
}

// tap is the fresh-mode channel of a side, through which a test can drop
// or change the messages this side sends.
type tap struct {
	wgdev.Channel
	mu     sync.Mutex
	sent   int
	change func(i int, msg []byte) []byte // nil result: dropped
}

func (c *tap) Send(msg []byte) error {
	c.mu.Lock()
	i := c.sent
	c.sent++
	f := c.change
	c.mu.Unlock()
	if f != nil {
		if msg = f(i, bytes.Clone(msg)); msg == nil {
			return nil
		}
	}
	return c.Channel.Send(msg)
}

func newSides(t *testing.T, mode wg.Mode, keyA, keyB [32]byte) (*clock, *side, *side) {
	a, b := newPair(t)
	c := &clock{}
	mk := func(n, peer *node, key [32]byte, name string) *side {
		s := &side{n: n}
		s.cfg = Config{Self: n.Pub, Peer: peer.Pub, Source: keysource.NewFile(key, name),
			Device: n, Mode: mode, StatePath: filepath.Join(t.TempDir(), name+".state"),
			StaleAfter: time.Minute, FailWindow: 10 * time.Second, MaxFailures: 3, Now: c.now,
			RetryInterval: 50 * time.Millisecond,
			Events:        func(e Event) { s.events = append(s.events, e) }}
		mux, err := n.Mux(freshPort)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { mux.Close() })
		s.ch = &tap{Channel: mux.Peer(netip.AddrPortFrom(peer.Addr, freshPort))}
		s.cfg.Channel = s.ch
		s.start(t)
		return s
	}
	return c, mk(a, b, keyA, "a"), mk(b, a, keyB, "b")
}

func (s *side) start(t *testing.T) {
	t.Helper()
	r, err := New(s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.r = r
	t.Cleanup(r.Close)
}

func (s *side) poll(t *testing.T) {
	t.Helper()
	if err := s.r.Poll(); err != nil {
		t.Fatal(err)
	}
}

func (s *side) pskHash(t *testing.T) [32]byte {
	st, err := s.cfg.Device.Peer(s.cfg.Peer)
	if err != nil {
		t.Fatal(err)
	}
	return st.PSKHash
}

func (s *side) has(k EventKind) bool {
	for _, e := range s.events {
		if e.Kind == k {
			return true
		}
	}
	return false
}

// settle polls both rotators until they agree on a position other than
// before, with no fresh-mode exchange in progress (timestamp mode: one
// poll each), or fails the test after 2 s.
func settle(t *testing.T, a, b *side, before wg.State) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		a.poll(t)
		b.poll(t)
		sa, sb := a.r.State(), b.r.State()
		if sa.Mode == wg.Timestamp || sa == sb && sa != before && a.r.fresh.offer == nil && b.r.fresh.offer == nil {
			return
		}
	}
	t.Fatalf("rotators did not settle: %+v / %+v", a.r.State(), b.r.State())
}

// rotate forces n handshakes, alternating initiators, lets both rotators
// handle each, and checks that both apply the same, new PSK.
func rotate(t *testing.T, a, b *side, n int) {
	t.Helper()
	seen := map[[32]byte]bool{a.pskHash(t): true}
	for i := range n {
		from, to := a, b
		if i%2 == 1 {
			from, to = b, a
		}
		before := a.r.State()
		if !handshake(t, from.n, to.n, 2*time.Second) {
			t.Fatalf("handshake %d failed", i)
		}
		settle(t, a, b, before)
		ha, hb := a.pskHash(t), b.pskHash(t)
		if ha != hb || a.r.State() != b.r.State() {
			t.Fatalf("after handshake %d: sides differ: %+v / %+v", i, a.r.State(), b.r.State())
		}
		if a.r.State().Mode != wg.Timestamp {
			if seen[ha] {
				t.Fatalf("after handshake %d: PSK repeated", i)
			}
			if a.r.State().FallenBack {
				t.Fatalf("after handshake %d: still fallen back", i)
			}
		}
		seen[ha] = true
	}
}

func randKey(t *testing.T) [32]byte {
	var k [32]byte
	rand.Read(k[:])
	return k
}

// expectedChain recomputes the PSKs a chain started at epoch must apply,
// with the wg primitives alone.
func expectedChain(t *testing.T, key [32]byte, a, b [32]byte, mode wg.Mode, epoch uint64, n int) [][32]byte {
	src := keysource.NewFile(key, "oracle")
	pair := wg.PairID(a, b)
	st := wg.NewState(mode)
	psk, err := wg.StartChain(src, pair, &st, epoch)
	if err != nil {
		t.Fatal(err)
	}
	out := [][32]byte{psk.Hash()}
	for range n {
		if mode == wg.HashRatchet {
			next, err := wg.HashStep(&psk, &st)
			if err != nil {
				t.Fatal(err)
			}
			psk = next
		} else if psk, err = wg.Step(src, pair, &st, nil); err != nil {
			t.Fatal(err)
		}
		out = append(out, psk.Hash())
	}
	return out
}

func TestRotation(t *testing.T) {
	for _, mode := range []wg.Mode{wg.HashRatchet, wg.HardwareRatchet, wg.Timestamp} {
		t.Run(mode.String(), func(t *testing.T) {
			key := randKey(t)
			c, a, b := newSides(t, mode, key, key)
			pair := wg.PairID(a.n.Pub, b.n.Pub)
			ts, err := wg.TimestampPSK(keysource.NewFile(key, "oracle"), pair, c.now())
			if err != nil {
				t.Fatal(err)
			}
			if a.pskHash(t) != ts.Hash() || b.pskHash(t) != ts.Hash() {
				t.Fatal("a new rotator must start with the timestamp PSK")
			}
			const n = 12
			rotate(t, a, b, 1)
			if mode == wg.Timestamp {
				rotate(t, a, b, 3)
				if a.pskHash(t) != ts.Hash() {
					t.Fatal("timestamp mode must keep the hour's PSK")
				}
				return
			}
			if !a.has(EventResync) || !b.has(EventResync) {
				t.Fatal("the first handshake must start the chain (EventResync)")
			}
			want := expectedChain(t, key, a.n.Pub, b.n.Pub, mode, a.r.State().Epoch, n)
			for i := range n {
				if a.pskHash(t) != want[i] {
					t.Fatalf("step %d: applied PSK is not the chain's", i)
				}
				rotate(t, a, b, 1)
			}
			if !echo(t, a.n, b.n, 2*time.Second) {
				t.Fatal("no traffic after rotation")
			}
			// The saved state is the live one.
			st, err := wg.LoadState(a.cfg.StatePath)
			if err != nil || st != a.r.State() {
				t.Fatalf("saved state %+v, %v; live %+v", st, err, a.r.State())
			}
		})
	}
}

// fail makes the handshakes fail for k failure windows: each window one
// handshake is attempted (it must fail), the clock moves a window on and
// both rotators poll.
func fail(t *testing.T, c *clock, a, b *side, k int) {
	t.Helper()
	if c.off < a.cfg.StaleAfter {
		c.off = a.cfg.StaleAfter
	}
	for range k {
		if handshake(t, a.n, b.n, 150*time.Millisecond) {
			t.Fatal("handshake succeeded with different PSKs")
		}
		c.off += a.cfg.FailWindow
		a.poll(t)
		b.poll(t)
	}
	// Back to the devices' clock, so that the next handshake is not
	// already stale by the rotators' clock.
	c.off = 0
}

func TestDesyncRecovers(t *testing.T) {
	for _, mode := range []wg.Mode{wg.HashRatchet, wg.HardwareRatchet} {
		t.Run(mode.String(), func(t *testing.T) {
			key := randKey(t)
			c, a, b := newSides(t, mode, key, key)
			rotate(t, a, b, 4)
			// Inject a desync: a steps once more than b.
			if err := a.r.handshake(); err != nil {
				t.Fatal(err)
			}
			fail(t, c, a, b, 3)
			for _, s := range []*side{a, b} {
				if !s.has(EventFallback) || !s.r.State().FallenBack {
					t.Fatalf("%s did not fall back: %+v", s.cfg.Source.Name(), s.r.State())
				}
			}
			if a.pskHash(t) != b.pskHash(t) {
				t.Fatal("fallback PSKs differ")
			}
			a.events, b.events = nil, nil
			rotate(t, a, b, 5)
			if !a.has(EventResync) || !b.has(EventResync) {
				t.Fatal("no resync after the fallback")
			}
		})
	}
}

func TestRestart(t *testing.T) {
	for _, mode := range []wg.Mode{wg.HashRatchet, wg.HardwareRatchet} {
		t.Run(mode.String(), func(t *testing.T) {
			key := randKey(t)
			c, a, b := newSides(t, mode, key, key)
			rotate(t, a, b, 3)
			before := a.r.State()

			// Killed and restarted; the device kept its PSK.
			a.r.Close()
			a.events = nil
			a.start(t)
			if a.r.State() != before || a.has(EventApplied) {
				t.Fatalf("restart changed the state or re-applied the PSK: %+v", a.r.State())
			}
			rotate(t, a, b, 3)

			// Killed, and the device lost its PSK too (a userspace device
			// restarted with the daemon): the PSK is recomputed from the
			// saved states and applied.
			a.r.Close()
			var zero wg.PSK
			if err := a.cfg.Device.SetPSK(a.cfg.Peer, &zero); err != nil {
				t.Fatal(err)
			}
			a.events = nil
			a.start(t)
			if !a.has(EventApplied) || a.pskHash(t) != b.pskHash(t) {
				t.Fatal("restarted rotator did not restore the PSK")
			}
			rotate(t, a, b, 3)

			// Killed while a handshake happened: b stepped, a did not.
			a.r.Close()
			if !handshake(t, a.n, b.n, 2*time.Second) {
				t.Fatal("handshake failed")
			}
			b.poll(t)
			a.start(t)
			fail(t, c, a, b, 3)
			rotate(t, a, b, 3)
		})
	}
}

func TestWrongKey(t *testing.T) {
	c, a, b := newSides(t, wg.HardwareRatchet, randKey(t), randKey(t))
	fail(t, c, a, b, 3)
	for _, s := range []*side{a, b} {
		var got *Event
		for i := range s.events {
			if s.events[i].Kind == EventKeyMismatch {
				got = &s.events[i]
			}
		}
		if got == nil || !errors.Is(got.Err, ErrKeyMismatch) {
			t.Fatalf("%s: no key-mismatch event: %v", s.cfg.Source.Name(), s.events)
		}
	}
}
