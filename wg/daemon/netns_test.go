//go:build linux

package daemon

// The daemon against real WireGuard interfaces, in the two-namespace lab
// of package wg/netlab: two network namespaces joined by a veth pair, in
// each a userspace WireGuard device (wireguard-go on a real TUN interface,
// serving the UAPI socket in /var/run/wireguard, as the wireguard-go
// command does) and a `kexlab wg run` daemon, all separate processes (this
// test binary re-executed). Traffic is real UDP through the kernel's
// routing into the tunnel. Needs root, /dev/net/tun and iproute2;
// KEXLAB_REQUIRE_NETNS=1 (set by make test) makes their absence a failure
// instead of a skip.

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/netlab"
)

// helperDaemon is this test binary's own helper kind (beside netlab's): a
// daemon (Run) on the configuration file that configEnv names.
const (
	helperDaemon = "daemon"
	configEnv    = "KEXLAB_WG_CONFIG"
)

func TestMain(m *testing.M) {
	netlab.MaybeRunHelper() // the lab's devices, echo server and ping
	switch kind := os.Getenv(netlab.HelperEnv); kind {
	case "":
		os.Exit(m.Run())
	case helperDaemon:
		os.Exit(runDaemon(os.Getenv(configEnv)))
	default:
		fmt.Fprintln(os.Stderr, "unknown helper kind", kind)
		os.Exit(3)
	}
}

// runDaemon runs the daemon on the configuration file path until SIGTERM.
func runDaemon(path string) int {
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

// echoPort is the port of the echo server on b's tunnel address.
const echoPort = 7

// daemonLab is a netlab.Lab with a daemon on each side (the processes
// daemon-a and daemon-b); its helpers fail the test.
type daemonLab struct {
	*netlab.Lab
	t            *testing.T
	dir, keyPath string // the test's directory, the shared key file in it
}

// waitFor polls cond every 50 ms for up to d; it fails the test, with
// every process's log, if cond did not hold in time.
func (l *daemonLab) waitFor(what string, d time.Duration, cond func() bool) {
	l.t.Helper()
	if err := l.WaitFor(what, d, cond); err != nil {
		l.t.Fatalf("%v\n--- logs:\n%s", err, l.Logs())
	}
}

// proc is the running process name.
func (l *daemonLab) proc(name string) *netlab.Proc {
	l.t.Helper()
	p := l.Proc(name)
	if p == nil {
		l.t.Fatalf("no process %s", name)
	}
	return p
}

// ping reports whether a datagram from a came back from the echo server
// on b through the tunnel.
func (l *daemonLab) ping() bool { return l.Ping(l.A, echoPort) }

// recreate destroys s's WireGuard interface and creates it again (a new
// interface index, no PSK).
func (l *daemonLab) recreate(s *netlab.Side) {
	l.t.Helper()
	l.Stop(s.Iface)
	if err := l.StartDevice(s); err != nil {
		l.t.Fatalf("%v\n--- logs:\n%s", err, l.Logs())
	}
}

// setupLab starts the lab (netlab.New and its two devices), an echo
// server on b's tunnel address port echoPort and a daemon on each side in
// mode (key file keyPath shared, state in dir/IFACE, created by the
// daemon), with the configuration fields of extra added. The lab is
// closed when the test ends.
func setupLab(t *testing.T, mode string, extra map[string]any) *daemonLab {
	t.Helper()
	l := &daemonLab{t: t, dir: t.TempDir()} // removed after the lab is closed
	l.keyPath = filepath.Join(l.dir, "psk.key")
	if err := keysource.CreateKeyFile(l.keyPath, nil); err != nil {
		t.Fatal(err)
	}
	var err error
	if l.Lab, err = netlab.New(netlab.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.StartDevices(); err != nil {
		t.Fatalf("%v\n--- logs:\n%s", err, l.Logs())
	}
	if _, err := l.StartHelper("echo", l.B.NS, netlab.HelperEcho,
		netlab.AddrEnv+"="+netip.AddrPortFrom(l.B.Tunnel, echoPort).String()); err != nil {
		t.Fatal(err)
	}

	// The daemons: in fresh mode the exchange runs over real sockets
	// bound to the WireGuard interfaces.
	for _, s := range []*netlab.Side{l.A, l.B} {
		peer := l.Other(s)
		pub := peer.Public()
		cfg := map[string]any{
			"interface": s.Iface, "mode": mode, "state_dir": filepath.Join(l.dir, s.Iface), "key_file": l.keyPath,
			"lock_dir": filepath.Join(l.dir, "lock"), "peers": []any{base64.StdEncoding.EncodeToString(pub[:])},
			"poll_interval": "100ms", "retry_interval": "300ms",
		}
		if mode == "fresh" {
			cfg["fresh_listen"] = netip.AddrPortFrom(s.Tunnel, 51821).String()
			cfg["peers"] = []any{map[string]string{"public_key": base64.StdEncoding.EncodeToString(pub[:]), "fresh_peer": netip.AddrPortFrom(peer.Tunnel, 51821).String()}}
		}
		for k, v := range extra {
			cfg[k] = v
		}
		js, _ := json.Marshal(cfg)
		path := filepath.Join(l.dir, s.Iface+".json")
		if err := os.WriteFile(path, js, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := l.StartHelper("daemon-"+s.Name, s.NS, helperDaemon, configEnv+"="+path); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func TestDaemonRealInterfaces(t *testing.T) {
	netlab.Need(t)
	l := setupLab(t, "fresh", nil)
	a, b := l.A, l.B
	// 1. Both start fallen back on the timestamp PSK of this hour.
	src, err := keysource.OpenFile(l.keyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	pair := wg.PairID(a.Public(), b.Public())
	ts, err := wg.TimestampPSK(src, pair, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	l.waitFor("the timestamp PSK on both interfaces", 10*time.Second, func() bool {
		return l.PSK(a) == wgtypes.Key(ts) && l.PSK(b) == wgtypes.Key(ts)
	})

	// 2. Traffic starts a handshake; the daemons restart the chain and the
	// fresh exchange moves both to index 2 through the tunnel.
	if !l.ping() {
		t.Fatalf("no echo through the tunnel\n%s", l.Logs())
	}
	settled := func(index uint64) func() bool {
		return func() bool {
			pa, pb := l.PSK(a), l.PSK(b)
			if pa != pb || pa == wgtypes.Key(ts) || pa == (wgtypes.Key{}) {
				return false
			}
			sa, err1 := wg.LoadState(filepath.Join(l.dir, a.Iface, fmt.Sprintf("%x.state", [32]byte(b.Public()))))
			sb, err2 := wg.LoadState(filepath.Join(l.dir, b.Iface, fmt.Sprintf("%x.state", [32]byte(a.Public()))))
			return err1 == nil && err2 == nil && sa.Index == index && sb.Index == index && sa.LastHash == (&[]wg.PSK{wg.PSK(pa)}[0]).Hash()
		}
	}
	l.waitFor("the fresh exchange after the first handshake", 10*time.Second, settled(2))
	first := l.PSK(a)

	// 3. The interface of a is destroyed and re-created (a new interface
	// index, no PSK): daemon a restores the PSK and reopens its fresh
	// socket; the next handshake uses the fresh PSK and another exchange
	// follows.
	l.recreate(a)
	l.waitFor("the PSK restored on the new interface", 10*time.Second, func() bool { return l.PSK(a) == first })
	l.waitFor("the fresh socket reopened", 10*time.Second, func() bool {
		return strings.Contains(l.Log("daemon-a"), "fresh channel reopened")
	})
	if !l.ping() {
		t.Fatalf("no echo after re-creating the interface\n%s", l.Logs())
	}
	l.waitFor("the fresh exchange after the second handshake", 10*time.Second, settled(3))
	if l.PSK(a) == first {
		t.Fatal("the PSK did not change")
	}
	for _, n := range []string{"daemon-a", "daemon-b"} {
		out := l.Log(n)
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
	if !strings.Contains(l.Log("daemon-a"), "restored") {
		t.Errorf("daemon-a did not report the restored PSK:\n%s", l.Log("daemon-a"))
	}
}
