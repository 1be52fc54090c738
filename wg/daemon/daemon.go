package daemon

import (
	"context"
	"encoding/base64"
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

// Run rotates the PSKs of c's peers until ctx is done, writing one line
// per rotator event to log. It returns an error if it cannot start (key
// source, interface, a peer missing on the interface, the fresh-mode
// socket); once started, errors are logged and retried.
func Run(ctx context.Context, c *Config, log io.Writer) error {
	src, err := openSource(c)
	if err != nil {
		return err
	}
	defer src.Close()
	dev, err := wgdev.NewWGCtrl(c.Interface)
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
		name := base64.StdEncoding.EncodeToString(p.pub[:])[:8]
		rc := rotator.Config{
			Self: self, Peer: p.pub, Source: src, Device: dev, Mode: c.mode, MaxFailures: c.MaxFailures,
			StatePath:    filepath.Join(c.StateDir, fmt.Sprintf("%x.state", p.pub)),
			PollInterval: time.Duration(c.PollInterval), RetryInterval: time.Duration(c.RetryInterval),
			StaleAfter: time.Duration(c.StaleAfter), FailWindow: time.Duration(c.FailWindow),
			Events: func(e rotator.Event) { l.printf("%s: %v", name, e) },
		}
		if mux != nil {
			rc.Channel = mux.Peer(p.fresh)
		}
		r, err := rotator.New(rc)
		if err != nil {
			return fmt.Errorf("peer %s: %w", name, err)
		}
		rots = append(rots, r)
	}
	l.printf("rotating %d peer(s) on %s, mode %v", len(rots), c.Interface, c.mode)
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
	wait.Wait()
	return nil
}

func openSource(c *Config) (keysource.Source, error) {
	switch {
	case c.KeyFile != "":
		return keysource.OpenFile(c.KeyFile)
	case c.P11 != nil:
		return p11.Open(c.P11.p11())
	default:
		return tpm.OpenFile(c.TPM.Device, c.TPM.Blob)
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
