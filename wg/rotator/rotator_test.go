package rotator

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/tun/netstack"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
)

// node is one in-process wireguard-go device on a netstack TUN, its UDP
// socket on 127.0.0.1.
type node struct {
	dev  *device.Device
	net  *netstack.Net
	addr netip.Addr
	pub  [32]byte
}

func newNode(t *testing.T, addr string) *node {
	t.Helper()
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	n := &node{addr: netip.MustParseAddr(addr)}
	copy(n.pub[:], priv.PublicKey().Bytes())
	tun, tnet, err := netstack.CreateNetTUN([]netip.Addr{n.addr}, nil, 1420)
	if err != nil {
		t.Fatal(err)
	}
	n.net = tnet
	n.dev = device.NewDevice(tun, conn.NewDefaultBind(), device.NewLogger(device.LogLevelSilent, ""))
	t.Cleanup(n.dev.Close)
	if err := n.dev.IpcSet("private_key=" + hex.EncodeToString(priv.Bytes()) + "\nlisten_port=0\n"); err != nil {
		t.Fatal(err)
	}
	if err := n.dev.Up(); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *node) port(t *testing.T) string {
	s, err := n.dev.IpcGet()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(s, "\n") {
		if p, ok := strings.CutPrefix(l, "listen_port="); ok {
			return p
		}
	}
	t.Fatal("no listen_port")
	return ""
}

// connect makes a and b peers of each other over 127.0.0.1.
func connect(t *testing.T, a, b *node) {
	for _, p := range [][2]*node{{a, b}, {b, a}} {
		x, y := p[0], p[1]
		cfg := fmt.Sprintf("public_key=%x\nendpoint=127.0.0.1:%s\nallowed_ip=%s/32\n", y.pub, y.port(t), y.addr)
		if err := x.dev.IpcSet(cfg); err != nil {
			t.Fatal(err)
		}
	}
}

func newPair(t *testing.T) (a, b *node) {
	a, b = newNode(t, "10.7.0.1"), newNode(t, "10.7.0.2")
	connect(t, a, b)
	l, err := b.net.ListenUDPAddrPort(netip.AddrPortFrom(b.addr, 7))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() { // UDP echo on b:7
		buf := make([]byte, 1500)
		for {
			n, from, err := l.ReadFrom(buf)
			if err != nil {
				return
			}
			l.WriteTo(buf[:n], from)
		}
	}()
	return a, b
}

// echo sends one datagram from a to b's echo port through the tunnel and
// reports whether it came back within d.
func echo(t *testing.T, a, b *node, d time.Duration) bool {
	t.Helper()
	c, err := a.net.DialUDPAddrPort(netip.AddrPort{}, netip.AddrPortFrom(b.addr, 7))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := make([]byte, 16)
	rand.Read(msg)
	c.SetDeadline(time.Now().Add(d))
	if _, err := c.Write(msg); err != nil {
		return false
	}
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	return err == nil && string(buf[:n]) == string(msg)
}

func lastHS(t *testing.T, n *node, peer [32]byte) time.Time {
	st, err := GoDevice{n.dev}.Peer(peer)
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
	h1, h2 := lastHS(t, from, to.pub), lastHS(t, to, from.pub)
	a, b := from, to
	if from.addr != netip.MustParseAddr("10.7.0.1") {
		a, b = to, from
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		from.dev.LookupPeer(device.NoisePublicKey(to.pub)).ExpireCurrentKeypairs()
		ok := echo(t, a, b, min(200*time.Millisecond, time.Until(deadline)))
		for end := time.Now().Add(50 * time.Millisecond); ok && time.Now().Before(end); {
			if lastHS(t, from, to.pub).After(h1) && lastHS(t, to, from.pub).After(h2) {
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
	events []Event
}

func newSides(t *testing.T, mode wg.Mode, keyA, keyB [32]byte) (*clock, *side, *side) {
	a, b := newPair(t)
	c := &clock{}
	mk := func(n, peer *node, key [32]byte, name string) *side {
		s := &side{n: n}
		s.cfg = Config{Self: n.pub, Peer: peer.pub, Source: keysource.NewFile(key, name),
			Device: GoDevice{n.dev}, Mode: mode, StatePath: filepath.Join(t.TempDir(), name+".state"),
			StaleAfter: time.Minute, FailWindow: 10 * time.Second, MaxFailures: 3, Now: c.now,
			Events: func(e Event) { s.events = append(s.events, e) }}
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

// rotate forces n handshakes, alternating initiators, polling both
// rotators after each, and checks that both apply the same, new PSK.
func rotate(t *testing.T, a, b *side, n int) {
	t.Helper()
	seen := map[[32]byte]bool{a.pskHash(t): true}
	for i := range n {
		from, to := a, b
		if i%2 == 1 {
			from, to = b, a
		}
		if !handshake(t, from.n, to.n, 2*time.Second) {
			t.Fatalf("handshake %d failed", i)
		}
		a.poll(t)
		b.poll(t)
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
			pair := wg.PairID(a.n.pub, b.n.pub)
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
			want := expectedChain(t, key, a.n.pub, b.n.pub, mode, a.r.State().Epoch, n)
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
