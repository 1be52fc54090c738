//go:build linux

package daemon

// The daemon against real WireGuard interfaces: two network namespaces
// joined by a veth pair, in each a userspace WireGuard device (wireguard-go
// on a real TUN interface, serving the UAPI socket in /var/run/wireguard,
// as the wireguard-go command does) and a `kexlab wg run` daemon, all
// separate processes (this test binary re-executed). Traffic is real UDP
// through the kernel's routing into the tunnel. Needs root, /dev/net/tun
// and iproute2; KEXLAB_REQUIRE_NETNS=1 (set by make test) makes their
// absence a failure instead of a skip.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/ipc"
	"golang.zx2c4.com/wireguard/tun"
	"golang.zx2c4.com/wireguard/wgctrl"
	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
)

const helperEnv = "KEXLAB_WG_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "device":
		os.Exit(helperDevice(os.Getenv("KEXLAB_WG_IFACE")))
	case "daemon":
		os.Exit(helperDaemon(os.Getenv("KEXLAB_WG_CONFIG")))
	case "echo":
		os.Exit(helperEcho(os.Getenv("KEXLAB_WG_ADDR")))
	case "ping":
		os.Exit(helperPing(os.Getenv("KEXLAB_WG_ADDR")))
	}
	os.Exit(3)
}

// helperDevice is a userspace WireGuard interface, as `wireguard-go -f
// name` runs it, until SIGTERM.
func helperDevice(name string) int {
	t, err := tun.CreateTUN(name, device.DefaultMTU)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tun:", err)
		return 1
	}
	d := device.NewDevice(t, conn.NewDefaultBind(), device.NewLogger(device.LogLevelError, name+": "))
	f, err := ipc.UAPIOpen(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "uapi:", err)
		return 1
	}
	l, err := ipc.UAPIListen(name, f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "uapi listen:", err)
		return 1
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go d.IpcHandle(c)
		}
	}()
	// SIGUSR1 expires the current keypairs of every peer, so that the next
	// packet starts a new handshake (as NetstackDevice.ForceHandshake).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt, syscall.SIGUSR1)
	for s := range sig {
		if s != syscall.SIGUSR1 {
			break
		}
		dump, err := d.IpcGet()
		if err != nil {
			continue
		}
		for _, line := range strings.Split(dump, "\n") {
			if h, ok := strings.CutPrefix(line, "public_key="); ok {
				var pk device.NoisePublicKey
				if b, err := hex.DecodeString(h); err == nil && len(b) == len(pk) {
					copy(pk[:], b)
					if p := d.LookupPeer(pk); p != nil {
						p.ExpireCurrentKeypairs()
					}
				}
			}
		}
	}
	l.Close()
	d.Close()
	return 0
}

func helperDaemon(path string) int {
	c, err := Load(path)
	if err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		err = Run(ctx, c, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "daemon:", err)
		return 1
	}
	return 0
}

func helperEcho(addr string) int {
	c, err := net.ListenPacket("udp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	buf := make([]byte, 1500)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			return 1
		}
		c.WriteTo(buf[:n], from)
	}
}

// helperPing sends datagrams to an echo server until one comes back (the
// first packets wait for WireGuard's handshake).
func helperPing(addr string) int {
	c, err := net.Dial("udp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	buf := make([]byte, 64)
	for range 20 {
		c.Write([]byte("kexlab ping"))
		c.SetReadDeadline(time.Now().Add(250 * time.Millisecond))
		if n, err := c.Read(buf); err == nil && string(buf[:n]) == "kexlab ping" {
			return 0
		}
	}
	return 1
}

// netnsAvailable reports why the test cannot run here ("" if it can).
func netnsAvailable() string {
	if os.Geteuid() != 0 {
		return "not root"
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		return "no /dev/net/tun"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return "no ip (iproute2)"
	}
	return ""
}

type lab struct {
	t      *testing.T
	procs  sync.Map // name → *exec.Cmd
	logs   sync.Map // name → *bytes.Buffer (guarded by logMu)
	logMu  sync.Mutex
	client *wgctrl.Client
}

func (l *lab) ip(args ...string) {
	l.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		l.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// start runs this test binary as helper kind in namespace ns.
func (l *lab) start(name, ns, kind string, env ...string) {
	l.t.Helper()
	cmd := exec.Command("ip", "netns", "exec", ns, os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+kind), env...)
	buf := &lockedBuffer{mu: &l.logMu}
	cmd.Stdout, cmd.Stderr = buf, buf
	if err := cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	l.procs.Store(name, cmd)
	l.logs.Store(name, buf)
}

func (l *lab) stop(name string) {
	if v, ok := l.procs.LoadAndDelete(name); ok {
		cmd := v.(*exec.Cmd)
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
}

func (l *lab) log(name string) string {
	v, ok := l.logs.Load(name)
	if !ok {
		return ""
	}
	return v.(*lockedBuffer).String()
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor polls cond every 50 ms for up to d.
func (l *lab) waitFor(what string, d time.Duration, cond func() bool) {
	l.t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	l.t.Fatalf("timed out waiting for %s\n--- logs:\n%s", what, l.allLogs())
}

func (l *lab) allLogs() string {
	var s strings.Builder
	l.logs.Range(func(k, v any) bool {
		fmt.Fprintf(&s, "[%s]\n%s\n", k, v.(*lockedBuffer).String())
		return true
	})
	return s.String()
}

type side struct {
	ns, iface string
	priv      wgtypes.Key
	tunnel    netip.Addr
	underlay  string
	cfgPath   string
}

// device starts s's WireGuard device and configures it: key, port, the
// peer (without a PSK: the daemon sets it), tunnel address, up.
func (l *lab) device(s, peer *side) {
	l.t.Helper()
	l.start(s.iface, s.ns, "device", "KEXLAB_WG_IFACE="+s.iface)
	sock := filepath.Join("/var/run/wireguard", s.iface+".sock")
	l.waitFor("the UAPI socket of "+s.iface, 10*time.Second, func() bool { _, err := os.Stat(sock); return err == nil })
	port := 51820
	ep := &net.UDPAddr{IP: net.ParseIP(peer.underlay), Port: port}
	allowed := net.IPNet{IP: peer.tunnel.AsSlice(), Mask: net.CIDRMask(32, 32)}
	err := l.client.ConfigureDevice(s.iface, wgtypes.Config{PrivateKey: &s.priv, ListenPort: &port,
		Peers: []wgtypes.PeerConfig{{PublicKey: peer.priv.PublicKey(), Endpoint: ep, AllowedIPs: []net.IPNet{allowed}}}})
	if err != nil {
		l.t.Fatal(err)
	}
	l.ip("-n", s.ns, "addr", "add", s.tunnel.String()+"/24", "dev", s.iface)
	l.ip("-n", s.ns, "link", "set", s.iface, "up")
}

func (l *lab) psk(s *side) wgtypes.Key {
	l.t.Helper()
	d, err := l.client.Device(s.iface)
	if err != nil || len(d.Peers) != 1 {
		return wgtypes.Key{}
	}
	return d.Peers[0].PresharedKey
}

func (l *lab) ping(from, to *side) bool {
	cmd := exec.Command("ip", "netns", "exec", from.ns, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=ping", "KEXLAB_WG_ADDR="+netip.AddrPortFrom(to.tunnel, 7).String())
	return cmd.Run() == nil
}

// requireNetns skips t without root, /dev/net/tun or ip, or fails it when
// KEXLAB_REQUIRE_NETNS=1.
func requireNetns(t *testing.T) {
	t.Helper()
	if why := netnsAvailable(); why != "" {
		if os.Getenv("KEXLAB_REQUIRE_NETNS") == "1" {
			t.Fatalf("KEXLAB_REQUIRE_NETNS=1 but %s", why)
		}
		t.Skip(why)
	}
}

// setupLab starts two namespaces joined by a veth pair, a userspace
// WireGuard device in each, an echo server on b's tunnel address port 7
// and a daemon on each side in mode (key file keyPath shared, state in
// dir/IFACE), with the configuration fields of extra added.
func setupLab(t *testing.T, mode string, extra map[string]any) (l *lab, a, b *side, dir, keyPath string) {
	t.Helper()
	id := fmt.Sprintf("%d", os.Getpid()%100000)
	l = &lab{t: t}
	var err error
	if l.client, err = wgctrl.New(); err != nil {
		t.Fatal(err)
	}
	defer l.client.Close()
	dir = t.TempDir()
	keyPath = filepath.Join(dir, "psk.key")
	if err := keysource.CreateKeyFile(keyPath, nil); err != nil {
		t.Fatal(err)
	}
	var sides [2]*side
	for i, n := range []string{"a", "b"} {
		priv, err := ecdh.X25519().GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		sides[i] = &side{ns: "kx" + id + n, iface: "kxwg" + id + n, priv: wgtypes.Key(priv.Bytes()),
			tunnel:   netip.AddrFrom4([4]byte{10, 77, 0, byte(i + 1)}),
			underlay: fmt.Sprintf("192.168.241.%d", i+1)}
	}
	a, b = sides[0], sides[1]
	t.Cleanup(func() {
		for _, n := range []string{"daemon-a", "daemon-b", "echo", a.iface, b.iface} {
			l.stop(n)
		}
		for _, s := range sides {
			exec.Command("ip", "netns", "del", s.ns).Run()
		}
	})
	for _, s := range sides {
		l.ip("netns", "add", s.ns)
		l.ip("-n", s.ns, "link", "set", "lo", "up")
	}
	l.ip("link", "add", "kxva"+id, "type", "veth", "peer", "name", "kxvb"+id)
	for i, s := range sides {
		v := "kxv" + string(rune('a'+i)) + id
		l.ip("link", "set", v, "netns", s.ns)
		l.ip("-n", s.ns, "addr", "add", s.underlay+"/24", "dev", v)
		l.ip("-n", s.ns, "link", "set", v, "up")
	}
	for i, s := range sides {
		l.device(s, sides[1-i])
	}
	l.start("echo", b.ns, "echo", "KEXLAB_WG_ADDR="+netip.AddrPortFrom(b.tunnel, 7).String())

	// The daemons: in fresh mode the exchange runs over real sockets
	// bound to the WireGuard interfaces.
	for i, s := range sides {
		peer := sides[1-i]
		s.cfgPath = filepath.Join(dir, s.iface+".json")
		pub := peer.priv.PublicKey()
		cfg := map[string]any{
			"interface": s.iface, "mode": mode, "state_dir": filepath.Join(dir, s.iface), "key_file": keyPath,
			"lock_dir": filepath.Join(dir, "lock"), "peers": []any{base64.StdEncoding.EncodeToString(pub[:])},
			"poll_interval": "100ms", "retry_interval": "300ms",
		}
		if mode == "fresh" {
			cfg["fresh_listen"] = netip.AddrPortFrom(s.tunnel, 51821).String()
			cfg["peers"] = []any{map[string]string{"public_key": base64.StdEncoding.EncodeToString(pub[:]), "fresh_peer": netip.AddrPortFrom(peer.tunnel, 51821).String()}}
		}
		for k, v := range extra {
			cfg[k] = v
		}
		js, _ := json.Marshal(cfg)
		if err := os.WriteFile(s.cfgPath, js, 0o600); err != nil {
			t.Fatal(err)
		}
		l.start("daemon-"+string(rune('a'+i)), s.ns, "daemon", "KEXLAB_WG_CONFIG="+s.cfgPath)
	}
	return l, a, b, dir, keyPath
}

func TestDaemonRealInterfaces(t *testing.T) {
	requireNetns(t)
	l, a, b, dir, keyPath := setupLab(t, "fresh", nil)
	// 1. Both start fallen back on the timestamp PSK of this hour.
	src, err := keysource.OpenFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	pair := wg.PairID(a.priv.PublicKey(), b.priv.PublicKey())
	ts, err := wg.TimestampPSK(src, pair, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	l.waitFor("the timestamp PSK on both interfaces", 10*time.Second, func() bool {
		return l.psk(a) == wgtypes.Key(ts) && l.psk(b) == wgtypes.Key(ts)
	})

	// 2. Traffic starts a handshake; the daemons restart the chain and the
	// fresh exchange moves both to index 2 through the tunnel.
	if !l.ping(a, b) {
		t.Fatalf("no echo through the tunnel\n%s", l.allLogs())
	}
	settled := func(index uint64) func() bool {
		return func() bool {
			pa, pb := l.psk(a), l.psk(b)
			if pa != pb || pa == wgtypes.Key(ts) || pa == (wgtypes.Key{}) {
				return false
			}
			sa, err1 := wg.LoadState(filepath.Join(dir, a.iface, fmt.Sprintf("%x.state", [32]byte(b.priv.PublicKey()))))
			sb, err2 := wg.LoadState(filepath.Join(dir, b.iface, fmt.Sprintf("%x.state", [32]byte(a.priv.PublicKey()))))
			return err1 == nil && err2 == nil && sa.Index == index && sb.Index == index && sa.LastHash == (&[]wg.PSK{wg.PSK(pa)}[0]).Hash()
		}
	}
	l.waitFor("the fresh exchange after the first handshake", 10*time.Second, settled(2))
	first := l.psk(a)

	// 3. The interface of a is destroyed and re-created (a new interface
	// index, no PSK): daemon a restores the PSK and reopens its fresh
	// socket; the next handshake uses the fresh PSK and another exchange
	// follows.
	l.stop(a.iface)
	l.device(a, b)
	l.waitFor("the PSK restored on the new interface", 10*time.Second, func() bool { return l.psk(a) == first })
	l.waitFor("the fresh socket reopened", 10*time.Second, func() bool {
		return strings.Contains(l.log("daemon-a"), "fresh channel reopened")
	})
	if !l.ping(a, b) {
		t.Fatalf("no echo after re-creating the interface\n%s", l.allLogs())
	}
	l.waitFor("the fresh exchange after the second handshake", 10*time.Second, settled(3))
	if l.psk(a) == first {
		t.Fatal("the PSK did not change")
	}
	for _, n := range []string{"daemon-a", "daemon-b"} {
		out := l.log(n)
		for _, want := range []string{"resync", "applied"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s log lacks %q:\n%s", n, want, out)
			}
		}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			if k := fmt.Sprintf("%x", first[:]); strings.Contains(sc.Text(), k) {
				t.Errorf("%s logged a PSK: %s", n, sc.Text())
			}
		}
	}
	if !strings.Contains(l.log("daemon-a"), "restored") {
		t.Errorf("daemon-a did not report the restored PSK:\n%s", l.log("daemon-a"))
	}
}
