//go:build linux

package netlab

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	MaybeRunHelper()
	os.Exit(m.Run())
}

// TestLab: the two devices handshake through the veth pair (a ping
// through the tunnel), the device processes' counters are readable, a
// device can be re-created, and Close leaves nothing behind.
func TestLab(t *testing.T) {
	Need(t)
	l, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.StartDevices(); err != nil {
		t.Fatalf("%v\n%s", err, l.Logs())
	}
	if _, err := l.StartHelper("echo", l.B.NS, HelperEcho, AddrEnv+"="+l.B.Tunnel.String()+":7"); err != nil {
		t.Fatal(err)
	}
	if !l.Ping(l.A, 7) {
		t.Fatalf("no echo through the tunnel\n%s", l.Logs())
	}
	for _, s := range []*Side{l.A, l.B} {
		p, err := l.Peer(s)
		if err != nil || p.LastHandshakeTime.IsZero() {
			t.Errorf("%s: peer %+v, %v: no handshake", s.Iface, p, err)
		}
		st, err := l.Proc(s.Iface).Stats()
		if err != nil || st.Threads < 1 || st.RSS == 0 || st.Wakeups() == 0 || !st.CPUClock || st.CPU <= 0 {
			t.Errorf("%s: stats %+v, %v", s.Iface, st, err)
		}
	}
	// A re-created interface: a new device, no PSK, the same peer.
	l.Stop(l.A.Iface)
	if err := l.StartDevice(l.A); err != nil {
		t.Fatal(err)
	}
	if err := l.SetKeepalive(l.A, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := l.WaitFor("a handshake after re-creating the device", 10*time.Second, func() bool {
		p, err := l.Peer(l.A)
		return err == nil && !p.LastHandshakeTime.IsZero()
	}); err != nil {
		t.Fatalf("%v\n%s", err, l.Logs())
	}
	// A forced handshake: a's keepalives start a new one once its
	// keypairs have expired.
	p, err := l.Peer(l.A)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.ForceHandshake(l.A); err != nil {
		t.Fatal(err)
	}
	if err := l.WaitFor("a forced handshake", 15*time.Second, func() bool {
		q, err := l.Peer(l.A)
		return err == nil && q.LastHandshakeTime.After(p.LastHandshakeTime)
	}); err != nil {
		t.Fatalf("%v\n%s", err, l.Logs())
	}
	if _, err := l.StartHelper("echo", l.A.NS, HelperEcho); err == nil {
		t.Error("two processes named echo")
	}
	pid := l.Proc(l.B.Iface).Pid()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Side{l.A, l.B} {
		if _, err := os.Stat(filepath.Join("/var/run/netns", s.NS)); err == nil {
			t.Errorf("namespace %s left behind", s.NS)
		}
		if _, err := os.Stat(filepath.Join("/var/run/wireguard", s.Iface+".sock")); err == nil {
			t.Errorf("UAPI socket of %s left behind", s.Iface)
		}
	}
	if _, err := ReadStats(pid); err == nil {
		t.Errorf("device process %d still there", pid)
	}
	if !strings.Contains(l.Logs(), "[echo]") {
		t.Errorf("Logs lacks the echo helper:\n%s", l.Logs())
	}
}

// TestReadStats reads this process's counters: they grow with work.
func TestReadStats(t *testing.T) {
	a, err := ReadStats(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until this process's CPU clock has advanced 20 ms (on a loaded
	// machine that takes longer than 20 ms of wall time), sleeping now and
	// then so that there are wakeups to count.
	var b Stats
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		for spin := time.Now().Add(5 * time.Millisecond); time.Now().Before(spin); {
			runtime.Gosched()
		}
		time.Sleep(time.Millisecond)
		if b, err = ReadStats(os.Getpid()); err != nil {
			t.Fatal(err)
		}
		if b.CPU-a.CPU >= 20*time.Millisecond {
			break
		}
	}
	if !b.CPUClock || b.CPU-a.CPU < 20*time.Millisecond || b.Wakeups() <= a.Wakeups() || b.RSS == 0 || b.Threads < 1 {
		t.Errorf("before %+v, after %+v", a, b)
	}
	if d := b.CPU - b.TickCPU; d < -20*time.Millisecond || d > 20*time.Millisecond+b.CPU/10 {
		t.Errorf("CPU clock %v against ticks %v", b.CPU, b.TickCPU)
	}
	var c SwitchCounter
	c.Add(a)
	c.Add(Stats{PerThread: map[int]Switches{-1: {Voluntary: 5}}}) // a thread that then exits
	if sum := c.Add(b); sum.Voluntary != b.Voluntary+5 || sum.Involuntary != b.Involuntary {
		t.Errorf("SwitchCounter: %+v, want %d+5 and %d", sum, b.Voluntary, b.Involuntary)
	}
	if _, err := ReadStats(1 << 30); err == nil {
		t.Error("stats of a process that does not exist")
	}
}
