//go:build linux

package wgsoak

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/daemon"
	"github.com/kexlab/kexlab/wg/netlab"
)

// freshPort is the daemons' fresh-mode port inside the tunnel.
const freshPort = 51821

// Run runs the soak: the idle pair, then every combination (sources in
// order, each with every mode) in a lab of its own, each for
// cfg.Duration after its warm-up. It needs what a netlab.Lab needs (root,
// /dev/net/tun, ip). It stops early, cleaning up, when ctx is done.
func Run(ctx context.Context, cfg Config) (*bench.SoakResult, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if why := netlab.Available(); why != "" {
		return nil, fmt.Errorf("%w: %s", netlab.ErrUnavailable, why)
	}
	if cfg.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Exe = exe
	}
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "kexlab-soak-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		cfg.Dir = dir
	}
	n := Intervals(cfg.Duration, cfg.Sample)
	res := &bench.SoakResult{Format: bench.SoakFormat, Label: cfg.Label, Machine: bench.DescribeMachine(),
		Seconds: cfg.Duration.Seconds(), SampleSeconds: (cfg.Duration / time.Duration(n)).Seconds(),
		KeepaliveSeconds: cfg.Keepalive.Seconds(),
		Order:            "sequential: each combination in a new lab for the whole window; the idle pair throughout, sampled at the same instants"}
	opt := netlab.Options{Exe: cfg.Exe, Env: cfg.Env}
	idle, err := netlab.New(opt)
	if err != nil {
		return nil, err
	}
	defer idle.Close()
	if err := startIdle(ctx, cfg, idle); err != nil {
		return nil, err
	}
	for _, src := range cfg.Sources {
		for _, m := range cfg.Modes {
			c, err := runCombo(ctx, cfg, opt, idle, src, m)
			if err != nil {
				return nil, fmt.Errorf("%v %s: %w", m, src.Kind, err)
			}
			res.Combos = append(res.Combos, c)
		}
	}
	return res, nil
}

// startIdle starts the baseline devices and waits for their first
// handshake.
func startIdle(ctx context.Context, cfg Config, l *netlab.Lab) error {
	if err := l.StartDevices(); err != nil {
		return fmt.Errorf("the idle pair: %w", err)
	}
	if err := l.SetKeepalive(l.A, cfg.Keepalive); err != nil {
		return err
	}
	return wait(ctx, l, "the idle pair's first handshake", cfg.WarmupTimeout, func() (bool, error) {
		p, err := l.Peer(l.A)
		return err == nil && !p.LastHandshakeTime.IsZero(), nil
	})
}

// wait polls cond every 50 ms for up to d, or until ctx is done; a
// process of l that exits ends it with an error.
func wait(ctx context.Context, l *netlab.Lab, what string, d time.Duration, cond func() (bool, error)) error {
	end := time.Now().Add(d)
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if err := exited(l); err != nil {
			return err
		}
		if time.Now().After(end) {
			return fmt.Errorf("timed out after %v waiting for %s\n%s", d, what, tail(l.Logs()))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// exited reports a process of l that has exited.
func exited(l *netlab.Lab) error {
	for _, s := range []*netlab.Side{l.A, l.B} {
		for _, name := range []string{s.Iface, "daemon-" + s.Name} {
			if p := l.Proc(name); p != nil && p.Exited() {
				return fmt.Errorf("%s exited (%v)\n%s", name, p.Err(), tail(l.Logs()))
			}
		}
	}
	return nil
}

// tail is the end of a log, for an error message.
func tail(s string) string {
	const max = 4000
	if len(s) > max {
		s = "…" + s[len(s)-max:]
	}
	return strings.TrimSpace(s)
}

// statePath is where side s's daemon keeps its state for its peer.
func statePath(dir string, peer wgtypes.Key) string {
	return filepath.Join(dir, fmt.Sprintf("%x.state", peer[:]))
}

// startDaemon writes side s's configuration and starts its daemon.
func startDaemon(cfg Config, l *netlab.Lab, s *netlab.Side, src Source, m wg.Mode, dir string) error {
	peer := l.Other(s)
	pub := peer.Public()
	c := daemon.Config{Interface: s.Iface, Mode: m.String(), StateDir: filepath.Join(dir, "state-"+s.Name),
		Peers:   []daemon.Peer{{PublicKey: base64.StdEncoding.EncodeToString(pub[:])}},
		KeyFile: src.KeyFile, P11: src.PKCS11, TPM: src.TPM}
	if s == l.B && src.TPMB != nil {
		c.TPM = src.TPMB
	}
	if m == wg.Fresh {
		c.FreshListen = netip.AddrPortFrom(s.Tunnel, freshPort).String()
		c.Peers[0].FreshPeer = netip.AddrPortFrom(peer.Tunnel, freshPort).String()
	}
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		return err
	}
	js, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "daemon-"+s.Name+".json")
	if err := os.WriteFile(path, js, 0o600); err != nil {
		return err
	}
	_, err = l.Start("daemon-"+s.Name, s.NS, []string{cfg.Exe, "wg", "run", "-config", path})
	return err
}

// runCombo measures one combination in a new lab beside the idle pair.
func runCombo(ctx context.Context, cfg Config, opt netlab.Options, idle *netlab.Lab, src Source, m wg.Mode) (bench.SoakCombo, error) {
	c := bench.SoakCombo{Mode: m.String(), Source: src.Kind, SourceName: src.Name}
	start := time.Now()
	l, err := netlab.New(opt)
	if err != nil {
		return c, err
	}
	defer l.Close()
	if err := l.StartDevices(); err != nil {
		return c, err
	}
	dir := filepath.Join(cfg.Dir, src.Kind+"-"+m.String())
	if err := os.RemoveAll(dir); err != nil { // the states of an earlier run
		return c, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return c, err
	}
	defer func() {
		os.WriteFile(filepath.Join(dir, "logs.txt"), []byte(l.Logs()), 0o600)
	}()
	// 1. Each daemon has applied its first (timestamp) PSK. The second
	// starts after the first is up: SoftHSM2 can miss a token that
	// another process is opening at the same moment.
	for _, s := range []*netlab.Side{l.A, l.B} {
		if err := startDaemon(cfg, l, s, src, m, dir); err != nil {
			return c, err
		}
		if err := wait(ctx, l, "the first PSK of daemon "+s.Name, cfg.WarmupTimeout, func() (bool, error) {
			return l.PSK(s) != (wgtypes.Key{}), nil
		}); err != nil {
			return c, err
		}
	}
	// 2. The keepalive starts the first handshake; the warm-up ends when
	// both sides have rotated after it and agree.
	if err := l.SetKeepalive(l.A, cfg.Keepalive); err != nil {
		return c, err
	}
	var lastHS time.Time
	if err := wait(ctx, l, "the first handshake and rotation", cfg.WarmupTimeout, func() (bool, error) {
		pa, err1 := l.Peer(l.A)
		pb, err2 := l.Peer(l.B)
		if err1 != nil || err2 != nil || pa.LastHandshakeTime.IsZero() || pb.LastHandshakeTime.IsZero() {
			return false, nil
		}
		if !pa.LastHandshakeTime.Equal(lastHS) {
			lastHS = pa.LastHandshakeTime
			c.WarmupHandshakes++
		}
		if pa.PresharedKey != pb.PresharedKey {
			return false, nil
		}
		sa, err1 := wg.LoadState(statePath(filepath.Join(dir, "state-a"), l.B.Public()))
		sb, err2 := wg.LoadState(statePath(filepath.Join(dir, "state-b"), l.A.Public()))
		if err1 != nil || err2 != nil || sa.FallenBack || sb.FallenBack {
			return false, nil
		}
		return m != wg.Fresh || (sa.Index >= 2 && sb.Index >= 2 && sa.Index == sb.Index), nil
	}); err != nil {
		return c, err
	}
	c.WarmupSeconds = time.Since(start).Seconds()
	return c, measure(ctx, cfg, l, idle, &c, lastHS)
}

// measured is one measured process.
type measured struct {
	role, side string
	proc       *netlab.Proc
	sw         netlab.SwitchCounter
	out        *bench.SoakProcess
}

// measure samples the combination's and the idle pair's processes over
// the window.
func measure(ctx context.Context, cfg Config, l, idle *netlab.Lab, c *bench.SoakCombo, lastHS time.Time) error {
	var ms []*measured
	for _, s := range []*netlab.Side{l.A, l.B} {
		ms = append(ms, &measured{role: bench.SoakDaemon, side: s.Name, proc: l.Proc("daemon-" + s.Name)},
			&measured{role: bench.SoakDevice, side: s.Name, proc: l.Proc(s.Iface)})
	}
	for _, s := range []*netlab.Side{idle.A, idle.B} {
		ms = append(ms, &measured{role: bench.SoakIdle, side: s.Name, proc: idle.Proc(s.Iface)})
	}
	c.Processes = make([]bench.SoakProcess, len(ms))
	for i, m := range ms {
		if m.proc == nil {
			return fmt.Errorf("no %s process on side %s", m.role, m.side)
		}
		c.Processes[i] = bench.SoakProcess{Role: m.role, Side: m.side}
		m.out = &c.Processes[i]
	}
	n := Intervals(cfg.Duration, cfg.Sample)
	step := cfg.Duration / time.Duration(n)
	t0 := time.Now()
	c.Started = t0.UTC()
	for k := 0; k <= n; k++ {
		if k > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Until(t0.Add(time.Duration(k) * step))):
			}
		}
		t := time.Since(t0).Seconds()
		for _, m := range ms {
			st, err := m.proc.Stats()
			if err != nil || m.proc.Exited() {
				return fmt.Errorf("%s %s: %v\n%s", m.role, m.side, err, tail(l.Logs()))
			}
			sw := m.sw.Add(st)
			m.out.Samples = append(m.out.Samples, bench.SoakSample{T: t, CPUSeconds: st.CPU.Seconds(),
				TickCPUSeconds: st.TickCPU.Seconds(), Voluntary: float64(sw.Voluntary),
				Involuntary: float64(sw.Involuntary), RSSBytes: float64(st.RSS)})
		}
		if p, err := l.Peer(l.A); err == nil && !p.LastHandshakeTime.Equal(lastHS) {
			lastHS = p.LastHandshakeTime
			if k > 0 {
				c.Handshakes++
			} else {
				c.WarmupHandshakes++
			}
		}
		if cfg.Progress != nil && k > 0 {
			fmt.Fprintf(cfg.Progress, "soak %s %s: %d/%d intervals, %v, %d handshakes\n",
				c.Mode, c.Source, k, n, time.Since(t0).Round(time.Second), c.Handshakes)
		}
	}
	return nil
}
