package wgdev

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/wgctrl"

	"github.com/kexlab/kexlab/wg"
)

// socketTempDir returns a new directory short enough for unix socket
// paths (t.TempDir can be long).
func socketTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wgdev")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// serveUAPI serves dev's UAPI on a unix socket at path, as wireguard-go's
// own UAPI listener does, until the test ends.
func serveUAPI(t *testing.T, dev *device.Device, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var wait sync.WaitGroup
	wait.Add(1)
	go func() {
		defer wait.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wait.Add(1)
			go func() {
				defer wait.Done()
				dev.IpcHandle(c)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		wait.Wait()
	})
}

// serveFake answers every connection to a socket at path with answer
// (after reading a request up to its blank line), or, if answer is nil,
// never answers.
func serveFake(t *testing.T, path string, answer []byte) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var req []byte
				b := make([]byte, 512)
				for !bytes.Contains(req, lfLF) {
					n, err := c.Read(b)
					req = append(req, b[:n]...)
					if err != nil {
						return
					}
				}
				if answer == nil {
					<-done
					return
				}
				c.Write(answer)
			}()
		}
	}()
	t.Cleanup(func() {
		close(done)
		l.Close()
	})
}

// ipcPeer returns the key=value lines of peer pub in dev's IpcGet dump.
func ipcPeer(t *testing.T, dev *device.Device, pub [32]byte) map[string]string {
	t.Helper()
	s, err := dev.IpcGet()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	for _, l := range strings.Split(s, "\n") {
		k, v, _ := strings.Cut(l, "=")
		if k == "public_key" {
			if m != nil {
				break
			}
			if v == hex.EncodeToString(pub[:]) {
				m = map[string]string{}
			}
			continue
		}
		if m != nil {
			m[k] = v
		}
	}
	return m
}

// statusOf is the PeerStatus that the dump lines of a peer describe.
func statusOf(t *testing.T, m map[string]string) PeerStatus {
	t.Helper()
	num := func(k string) uint64 {
		n, err := strconv.ParseUint(m[k], 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", k, m[k], err)
		}
		return n
	}
	var psk wg.PSK
	if _, err := hex.Decode(psk[:], []byte(m["preshared_key"])); err != nil {
		t.Fatal(err)
	}
	st := PeerStatus{TxBytes: num("tx_bytes"), RxBytes: num("rx_bytes"), PSKHash: psk.Hash()}
	if sec, nsec := num("last_handshake_time_sec"), num("last_handshake_time_nsec"); sec != 0 || nsec != 0 {
		st.LastHandshake = time.Unix(int64(sec), int64(nsec))
	}
	return st
}

func equalStatus(a, b PeerStatus) bool {
	return a.LastHandshake.Equal(b.LastHandshake) && a.TxBytes == b.TxBytes && a.RxBytes == b.RxBytes &&
		a.PSKHash == b.PSKHash
}

// pairWithUAPI starts a loopback pair, runs one ping through it (so the
// counters and the handshake time are not zero), and serves a's UAPI at
// dir/wgt0.sock.
func pairWithUAPI(t *testing.T, dir string) (a, b *NetstackDevice) {
	t.Helper()
	a, b, err := NewLoopbackPair(netip.MustParseAddr("10.9.1.1"), netip.MustParseAddr("10.9.1.2"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	stop, err := b.ServeEcho(7)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := a.Ping(netip.AddrPortFrom(b.Addr, 7), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	serveUAPI(t, a.Dev, filepath.Join(dir, "wgt0.sock"))
	return a, b
}

func randomKey(t *testing.T) (k [32]byte) {
	t.Helper()
	if _, err := rand.Read(k[:]); err != nil {
		t.Fatal(err)
	}
	return k
}

// checkWiped fails if any byte of b is not zero.
func checkWiped(t *testing.T, what string, b []byte) {
	t.Helper()
	for i, c := range b {
		if c != 0 {
			t.Errorf("%s: byte %d of %d not cleared", what, i, len(b))
			return
		}
	}
}

func TestUAPIDevice(t *testing.T) {
	dir := socketTempDir(t)
	a, b := pairWithUAPI(t, dir)
	u := NewUAPI(filepath.Join(dir, "wgt0.sock"))

	// Peer reports what IpcGetOperation reports (read again if traffic
	// moved the counters in between), as does GoDevice.Peer.
	var st, want PeerStatus
	for try := 0; ; try++ {
		var err error
		if st, err = u.Peer(b.Pub); err != nil {
			t.Fatal(err)
		}
		want = statusOf(t, ipcPeer(t, a.Dev, b.Pub))
		if equalStatus(st, want) || try == 5 {
			break
		}
	}
	if !equalStatus(st, want) {
		t.Fatalf("Peer = %+v, IpcGet says %+v", st, want)
	}
	if st.LastHandshake.IsZero() || st.TxBytes == 0 || st.RxBytes == 0 {
		t.Errorf("Peer after a ping = %+v; want a handshake and traffic", st)
	}
	if zero := (wg.PSK{}); st.PSKHash != zero.Hash() {
		t.Errorf("PSKHash of a peer without a PSK = %x, want the hash of the zero key", st.PSKHash)
	}
	if gs, err := a.Peer(b.Pub); err != nil || !equalStatus(gs, st) {
		t.Errorf("GoDevice.Peer = %+v, %v; want %+v", gs, err, st)
	}
	u.mu.Lock()
	if len(u.buf.b) == 0 {
		t.Error("UAPI kept no buffer")
	}
	checkWiped(t, "UAPI buffer after Peer", u.buf.b)
	u.mu.Unlock()

	// SetPSK changes the PSK, and only that.
	psk := wg.PSK(randomKey(t))
	before := ipcPeer(t, a.Dev, b.Pub)
	if err := u.SetPSK(b.Pub, &psk); err != nil {
		t.Fatal(err)
	}
	after := ipcPeer(t, a.Dev, b.Pub)
	if after["preshared_key"] != hex.EncodeToString(psk[:]) {
		t.Errorf("after SetPSK the device's PSK is not the one set")
	}
	if after["endpoint"] != before["endpoint"] || after["allowed_ip"] != before["allowed_ip"] {
		t.Errorf("SetPSK changed more than the PSK: %v -> %v", before, after)
	}
	if st, err := u.Peer(b.Pub); err != nil || st.PSKHash != psk.Hash() {
		t.Errorf("Peer after SetPSK: %x, %v; want %x", st.PSKHash, err, psk.Hash())
	}
	u.mu.Lock()
	checkWiped(t, "UAPI buffer after SetPSK", u.buf.b)
	u.mu.Unlock()

	// An unknown peer is not created: ErrNoPeer.
	stranger := randomKey(t)
	if err := u.SetPSK(stranger, &psk); !errors.Is(err, ErrNoPeer) {
		t.Errorf("SetPSK of an unknown peer: %v, want ErrNoPeer", err)
	}
	if m := ipcPeer(t, a.Dev, stranger); m != nil {
		t.Errorf("SetPSK created the unknown peer: %v", m)
	}
	if _, err := u.Peer(stranger); !errors.Is(err, ErrNoPeer) {
		t.Errorf("Peer of an unknown peer: %v, want ErrNoPeer", err)
	}
	if _, err := a.Peer(stranger); !errors.Is(err, ErrNoPeer) {
		t.Errorf("GoDevice.Peer of an unknown peer: %v, want ErrNoPeer", err)
	}

	if pub, err := u.PublicKey(); err != nil || pub != a.Pub {
		t.Errorf("PublicKey = %x, %v; want %x", pub, err, a.Pub)
	}
	u.mu.Lock()
	checkWiped(t, "UAPI buffer after PublicKey", u.buf.b)
	u.mu.Unlock()
}

// TestBuffersWiped checks every array the UAPI and GoDevice buffers use,
// grown from a tiny size so that each step of growth is seen.
func TestBuffersWiped(t *testing.T) {
	dir := socketTempDir(t)
	a, b := pairWithUAPI(t, dir)
	u := NewUAPI(filepath.Join(dir, "wgt0.sock"))
	saved := initialBuf
	initialBuf = 16
	var seen int
	wipeHook = func(buf []byte) {
		seen++
		checkWiped(t, "wiped buffer", buf)
	}
	t.Cleanup(func() { initialBuf, wipeHook = saved, nil })

	psk := wg.PSK(randomKey(t))
	if err := u.SetPSK(b.Pub, &psk); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Peer(b.Pub); err != nil {
		t.Fatal(err)
	}
	if _, err := u.PublicKey(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Peer(b.Pub); err != nil {
		t.Fatal(err)
	}
	if err := a.SetPSK(b.Pub, &psk); err != nil {
		t.Fatal(err)
	}
	// 16 bytes grow at least 5 times to hold a dump of some 600 bytes.
	if seen < 10 {
		t.Errorf("only %d buffers wiped", seen)
	}
}

func TestUAPIErrors(t *testing.T) {
	dir := socketTempDir(t)
	uapi := func(name string) *UAPI {
		u := NewUAPI(filepath.Join(dir, name))
		u.timeout = 500 * time.Millisecond
		return u
	}
	pub := randomKey(t)
	psk := wg.PSK(randomKey(t))

	// No socket; a socket nobody listens on (left by a process gone).
	if _, err := uapi("none.sock").Peer(pub); !errors.Is(err, ErrNoInterface) {
		t.Errorf("missing socket: %v", err)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "stale.sock"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if err := uapi("stale.sock").SetPSK(pub, &psk); !errors.Is(err, ErrNoInterface) {
		t.Errorf("stale socket: %v", err)
	}

	long := bytes.Repeat([]byte("listen_port=1\n"), MaxUAPIAnswer/14+1)
	for _, c := range []struct {
		name   string
		answer string
		want   error
	}{
		{"errno", "errno=-22\n\n", &ErrnoError{}},
		{"no-errno", "listen_port=1\n\n", ErrUAPI},
		{"truncated", "errno=0\n", ErrUAPI},
		{"bad-dump", "private_key=zz\nerrno=0\n\n", ErrUAPI},
		{"overlong", string(long) + "errno=0\n\n", ErrAnswerTooLarge},
		{"never", "", os.ErrDeadlineExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			var answer []byte
			if c.answer != "" {
				answer = []byte(c.answer)
			}
			serveFake(t, filepath.Join(dir, c.name+".sock"), answer)
			u := uapi(c.name + ".sock")
			_, err := u.Peer(pub)
			var en *ErrnoError
			switch {
			case c.name == "errno":
				if !errors.As(err, &en) || en.Errno != -22 || en.Op != "get" {
					t.Errorf("Peer: %v, want ErrnoError -22", err)
				}
			case !errors.Is(err, c.want):
				t.Errorf("Peer: %v, want %v", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
			if err := u.SetPSK(pub, &psk); err == nil {
				t.Error("SetPSK succeeded")
			} else if strings.Contains(err.Error(), hex.EncodeToString(psk[:4])) {
				t.Errorf("error shows the PSK: %v", err)
			}
			u.mu.Lock()
			checkWiped(t, "buffer after an error", u.buf.b)
			u.mu.Unlock()
		})
	}

	// A set answered with more than errno.
	serveFake(t, filepath.Join(dir, "chatty.sock"), []byte("listen_port=1\nerrno=0\n\n"))
	if err := uapi("chatty.sock").SetPSK(pub, &psk); !errors.Is(err, ErrUAPI) {
		t.Errorf("set answered with a dump: %v", err)
	}
}

func TestWGCtrl(t *testing.T) {
	dir := socketTempDir(t)
	saved := socketDir
	socketDir = dir
	t.Cleanup(func() { socketDir = saved })
	a, b := pairWithUAPI(t, dir)

	w, err := NewWGCtrl("wgt0")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if pub, err := w.PublicKey(); err != nil || pub != a.Pub {
		t.Errorf("PublicKey = %x, %v; want %x", pub, err, a.Pub)
	}
	psk := wg.PSK(randomKey(t))
	if err := w.SetPSK(b.Pub, &psk); err != nil {
		t.Fatal(err)
	}
	if st, err := w.Peer(b.Pub); err != nil || st.PSKHash != psk.Hash() {
		t.Errorf("Peer after SetPSK: %x, %v; want %x", st.PSKHash, err, psk.Hash())
	}
	if err := w.SetPSK(randomKey(t), &psk); !errors.Is(err, ErrNoPeer) {
		t.Errorf("SetPSK of an unknown peer: %v", err)
	}
	w.mu.Lock()
	if w.client != nil {
		t.Error("the UAPI path opened wgctrl")
	}
	w.mu.Unlock()

	for _, name := range []string{"", "..", "a/b"} {
		if _, err := NewWGCtrl(name); err == nil || errors.Is(err, ErrNoInterface) {
			t.Errorf("NewWGCtrl(%q): %v, want an invalid-name error", name, err)
		}
	}
}

// TestWGCtrlNoInterface: with no UAPI socket and no kernel interface of
// the name, NewWGCtrl fails with ErrNoInterface, in one line. (The kernel
// path itself cannot be tested here: no wireguard module.)
func TestWGCtrlNoInterface(t *testing.T) {
	if c, err := wgctrl.New(); err != nil {
		t.Skipf("wgctrl (netlink) not available: %v", err)
	} else {
		c.Close()
	}
	dir := socketTempDir(t)
	saved := socketDir
	socketDir = dir
	t.Cleanup(func() { socketDir = saved })
	_, err := NewWGCtrl("kexlabnone0")
	if !errors.Is(err, ErrNoInterface) {
		t.Fatalf("NewWGCtrl of a missing interface: %v, want ErrNoInterface", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error of more than one line: %q", err)
	}
}

// TestSecretBufLimit: the buffer refuses to grow past MaxUAPIAnswer and
// stays usable.
func TestSecretBufLimit(t *testing.T) {
	var s secretBuf
	if _, err := s.Write(make([]byte, MaxUAPIAnswer)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write([]byte{1}); !errors.Is(err, ErrAnswerTooLarge) {
		t.Fatalf("write past the limit: %v", err)
	}
	s.wipe()
	if _, err := s.readAnswer(strings.NewReader("errno=0\n\nrest")); err != nil {
		t.Fatal(err)
	}
	if ans, _ := s.readAnswer(io.MultiReader(strings.NewReader("a=b\n"), strings.NewReader("\nx"))); string(ans) != "a=b\n\n" {
		t.Errorf("answer split across reads: %q", ans)
	}
}
