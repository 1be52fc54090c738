package daemon

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/wgdev"
)

// lineBuffer collects the daemon's log.
type lineBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lineBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lineBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lineBuffer) count(sub string) int { return strings.Count(l.String(), sub) }

// vanishingDevice is an in-process wireguard-go device whose interface
// can be made to disappear (Peer fails as for a deleted interface).
type vanishingDevice struct {
	*wgdev.NetstackDevice
	gone atomic.Bool
}

func (v *vanishingDevice) Peer(pub [32]byte) (wgdev.PeerStatus, error) {
	if v.gone.Load() {
		return wgdev.PeerStatus{}, errors.New("wgdev: interface kxtest: no such device")
	}
	return v.NetstackDevice.Peer(pub)
}
func (v *vanishingDevice) PublicKey() ([32]byte, error) { return v.Pub, nil }
func (v *vanishingDevice) Close() error                 { return nil }

// flakySource is a key file source that can be made to fail.
type flakySource struct {
	keysource.Source
	broken atomic.Bool
}

func (f *flakySource) Derive(in []byte) ([32]byte, error) {
	if f.broken.Load() {
		return [32]byte{}, errors.New("broken pipe")
	}
	return f.Source.Derive(in)
}

type inProcess struct {
	cfg  *Config
	dev  *vanishingDevice
	src  *flakySource
	log  *lineBuffer
	done chan struct{} // closed when Run returned err
	err  error
	stop context.CancelFunc
}

// startInProcess runs the daemon for one side of an in-process pair (the
// device and the key source injected), with short intervals.
func startInProcess(t *testing.T, extra string) *inProcess {
	t.Helper()
	a, b, err := wgdev.NewLoopbackPair(netip.MustParseAddr("10.9.0.1"), netip.MustParseAddr("10.9.0.2"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	dir := t.TempDir()
	js := fmt.Sprintf(`{"interface": "kxtest%d", "mode": "hardware-ratchet", "state_dir": %q, "lock_dir": %q,
		"key_file": "/unused", "peers": [%q], "poll_interval": "20ms"%s}`,
		os.Getpid(), filepath.Join(dir, "state"), filepath.Join(dir, "lock"), base64.StdEncoding.EncodeToString(b.Pub[:]), extra)
	cfg, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	p := &inProcess{cfg: cfg, dev: &vanishingDevice{NetstackDevice: a}, log: &lineBuffer{}, done: make(chan struct{}),
		src: &flakySource{Source: keysource.NewFile([32]byte{1}, "test-key")}}
	od, ok := openDevice, openKeySource
	openDevice = func(string) (wgDevice, error) { return p.dev, nil }
	openKeySource = func(*Config) (keysource.Source, error) { return p.src, nil }
	t.Cleanup(func() { openDevice, openKeySource = od, ok })
	ctx, stop := context.WithCancel(context.Background())
	p.stop = stop
	go func() { p.err = Run(ctx, cfg, p.log); close(p.done) }()
	t.Cleanup(func() {
		stop()
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
	})
	p.waitLog(t, "rotating 1 peer(s)")
	return p
}

func (p *inProcess) waitLog(t *testing.T, sub string) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(p.log.String(), sub) {
			return
		}
	}
	t.Fatalf("log lacks %q:\n%s", sub, p.log)
}

// A deleted interface is one log line, not one per poll, and its return
// is logged; the status file says the same.
func TestRunMissingInterface(t *testing.T) {
	p := startInProcess(t, "")
	p.dev.gone.Store(true)
	time.Sleep(time.Second) // 50 polls
	p.dev.gone.Store(false)
	p.waitLog(t, "recovered")
	if n := p.log.count("no such device"); n != 1 {
		t.Fatalf("%d error lines for 50 failed polls (want 1):\n%s", n, p.log)
	}
	if !strings.Contains(p.log.String(), "recovered mode=hardware-ratchet") || !strings.Contains(p.log.String(), "failed poll(s)") {
		t.Fatalf("no recovery line:\n%s", p.log)
	}
	sts, err := ReadStatus(p.cfg.StateDir)
	if err != nil || len(sts) != 1 || sts[0].Problem != "" || !strings.Contains(sts[0].LastEvent, "recovered") ||
		sts[0].Mode != "hardware-ratchet" || !sts[0].FallenBack || sts[0].PID != os.Getpid() {
		t.Fatalf("status %+v, %v", sts, err)
	}
}

// A key source that stays unusable makes Run return ErrSourceUnusable
// (the process exits non-zero); one that recovers in time does not.
func TestRunSourceUnusable(t *testing.T) {
	p := startInProcess(t, `, "source_timeout": "400ms"`)
	p.src.broken.Store(true)
	p.waitLog(t, "failing since")
	p.src.broken.Store(false)
	p.waitLog(t, "usable again")
	p.src.broken.Store(true)
	select {
	case <-p.done:
		if err := p.err; !errors.Is(err, ErrSourceUnusable) || !strings.Contains(err.Error(), "broken pipe") {
			t.Fatalf("Run returned %v", p.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("Run did not give up on a broken key source:\n%s", p.log)
	}
}

// A second daemon on the same interface refuses to start, naming the
// first one's pid.
func TestRunSecondDaemon(t *testing.T) {
	p := startInProcess(t, "")
	err := Run(context.Background(), p.cfg, &lineBuffer{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) ||
		!strings.Contains(err.Error(), p.cfg.Interface) {
		t.Fatalf("second daemon: %v", err)
	}
	// The first daemon's status is intact: the second one wrote nothing.
	sts, err := ReadStatus(p.cfg.StateDir)
	if err != nil || len(sts) != 1 || sts[0].Mode != "hardware-ratchet" || sts[0].PID != os.Getpid() {
		t.Fatalf("status after the refused start: %+v, %v", sts, err)
	}
}
