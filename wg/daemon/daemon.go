package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"time"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11"
	"github.com/kexlab/kexlab/wg/keysource/tpm"
	"github.com/kexlab/kexlab/wg/rotator"
	"github.com/kexlab/kexlab/wg/wgdev"
)

// DefaultSourceTimeout is how long a key source may stay unusable before
// Run gives up (Config.SourceTimeout).
const DefaultSourceTimeout = 5 * time.Minute

// ErrSourceUnusable: the key source failed for longer than the source
// timeout; Run returns it so that the process exits non-zero and a
// supervisor (the systemd unit's Restart=on-failure) starts it again.
var ErrSourceUnusable = errors.New("wg daemon: key source unusable")

// wgDevice is what Run needs of the WireGuard interface.
type wgDevice interface {
	wgdev.Device
	PublicKey() ([32]byte, error)
	Close() error
}

// openDevice opens the interface (a variable for the in-process tests).
var openDevice = func(iface string) (wgDevice, error) { return wgdev.NewWGCtrl(iface) }

// Run rotates the PSKs of c's peers until ctx is done, writing one line
// per rotator event to log (repeated errors with a backoff, see
// errorLog) and each peer's status file in the state directory (see
// ReadStatus). It returns an error if it cannot start (the checks of
// preflight, the key source, the interface, a peer missing on the
// interface, a state file in another mode, the fresh-mode socket) or, once
// started, if the key source stays unusable for the source timeout
// (ErrSourceUnusable); other errors are logged and retried.
func Run(ctx context.Context, c *Config, log io.Writer) error {
	locks, notes, err := preflight(c, c.path)
	defer func() {
		for _, l := range locks {
			l.Release()
		}
	}()
	if err != nil {
		return err
	}
	raw, err := openKeySource(c)
	if err != nil {
		return err
	}
	src := newWatchedSource(raw)
	defer src.Close()
	dev, err := openDevice(c.Interface)
	if err != nil {
		return err
	}
	defer dev.Close()
	self := c.self
	if self == ([32]byte{}) {
		if self, err = dev.PublicKey(); err != nil {
			return err
		}
	}
	l := &logger{w: log}
	for _, n := range notes {
		l.printf("%s", n)
	}
	var mux *wgdev.Mux
	if c.mode == wg.Fresh {
		conn, err := wgdev.ListenTunnel(c.Interface, c.fresh)
		if err != nil {
			return err
		}
		mux = wgdev.NewMux(conn)
		defer mux.Close()
	}
	var rots []*rotator.Rotator
	defer func() {
		for _, r := range rots {
			r.Close()
		}
	}()
	for _, p := range c.Peers {
		pl := newPeerLog(l, c, p.pub)
		rc := rotator.Config{
			Self: self, Peer: p.pub, Source: src, Device: dev, Mode: c.mode, MaxFailures: c.MaxFailures,
			ResetState:   c.ResetState,
			StatePath:    filepath.Join(c.StateDir, fmt.Sprintf("%x.state", p.pub)),
			PollInterval: time.Duration(c.PollInterval), RetryInterval: time.Duration(c.RetryInterval),
			StaleAfter: time.Duration(c.StaleAfter), FailWindow: time.Duration(c.FailWindow),
			Events: pl.event,
		}
		if mux != nil {
			rc.Channel = mux.Peer(p.fresh)
		}
		r, err := rotator.New(rc)
		if err != nil {
			return fmt.Errorf("peer %s: %w", pl.name, err)
		}
		rots = append(rots, r)
	}
	l.printf("rotating %d peer(s) on %s, mode %v, key source %s, state in %s", len(rots), c.Interface, c.mode, raw.Name(), c.StateDir)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wait sync.WaitGroup
	for _, r := range rots {
		wait.Add(1)
		go func() {
			defer wait.Done()
			r.Run(ctx)
		}()
	}
	if mux != nil {
		wait.Add(1)
		go func() {
			defer wait.Done()
			watchSocket(ctx, c, mux, l)
		}()
	}
	wait.Add(1)
	go func() {
		defer wait.Done()
		if err := src.watch(ctx, c.sourceTimeout(), l); err != nil {
			cancel(err)
		}
	}()
	wait.Wait()
	if err := context.Cause(ctx); err != nil && errors.Is(err, ErrSourceUnusable) {
		return err
	}
	return nil
}

func (c *Config) sourceTimeout() time.Duration {
	if c.SourceTimeout > 0 {
		return time.Duration(c.SourceTimeout)
	}
	return DefaultSourceTimeout
}

// openKeySource opens c's key source (a variable for the in-process tests).
var openKeySource = openSource

func openSource(c *Config) (keysource.Source, error) {
	switch {
	case c.KeyFile != "":
		return keysource.OpenFile(c.KeyFile)
	case c.P11 != nil:
		return p11.Open(c.P11.p11())
	default:
		return tpm.OpenFileWith(c.TPM.Device, c.TPM.Blob, tpm.Options{AuthFile: c.TPM.AuthFile})
	}
}

// watchSocket reopens the fresh-mode socket when the interface it is
// bound to has been re-created (a new interface index: SO_BINDTODEVICE
// holds the old one) or the socket failed. Until the interface has its
// tunnel address again, opening fails and is retried.
func watchSocket(ctx context.Context, c *Config, mux *wgdev.Mux, l *logger) {
	index := func() int {
		if ifc, err := net.InterfaceByName(c.Interface); err == nil {
			return ifc.Index
		}
		return 0
	}
	bound := index()
	interval := time.Duration(c.PollInterval)
	if interval <= 0 {
		interval = rotator.DefaultPollInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := index()
		if now == 0 || now == bound && mux.Err() == nil {
			continue
		}
		conn, err := wgdev.ListenTunnel(c.Interface, c.fresh)
		if err != nil {
			continue
		}
		if err := mux.Replace(conn); err != nil {
			return
		}
		bound = now
		l.printf("fresh channel reopened on %s (interface index %d)", c.Interface, now)
	}
}

// logger writes whole lines from several goroutines.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s "+format+"\n", append([]any{time.Now().UTC().Format(time.RFC3339)}, args...)...)
}
