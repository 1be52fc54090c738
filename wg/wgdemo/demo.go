// Package wgdemo is `kexlab wg demo`: two in-process WireGuard peers
// (wireguard-go on gVisor netstack TUNs, their UDP sockets on 127.0.0.1)
// sharing a file key, each with a PSK rotator (package wg/rotator). It
// forces handshakes, alternating the initiator, prints every rotator event
// and sends a datagram through the tunnel after each handshake. No
// privileges or kernel WireGuard are needed.
package wgdemo

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/rotator"
	"github.com/kexlab/kexlab/wg/wgdev"
)

// Ports inside the tunnel: the echo server on peer B and the fresh-mode
// channel on both peers.
const (
	EchoPort  = 7
	FreshPort = 51821
)

// Run performs n rotations in mode, writing a line per event and per
// handshake to out. The key file and states live in a temporary directory
// removed at the end.
func Run(mode wg.Mode, n int, out io.Writer) error {
	dir, err := os.MkdirTemp("", "kexlab-wg-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	keyPath := filepath.Join(dir, "psk.key")
	if err := keysource.CreateKeyFile(keyPath, nil); err != nil {
		return err
	}
	fmt.Fprintf(out, "key file %s (both peers share it)\n", keyPath)
	a, b, err := wgdev.NewLoopbackPair(netip.MustParseAddr("10.7.0.1"), netip.MustParseAddr("10.7.0.2"))
	if err != nil {
		return err
	}
	defer a.Close()
	defer b.Close()
	devs := [2]*wgdev.NetstackDevice{a, b}
	fmt.Fprintf(out, "peer A %s udp 127.0.0.1:%d, peer B %s udp 127.0.0.1:%d, mode %v\n", a.Addr, a.Port, b.Addr, b.Port, mode)
	stop, err := b.ServeEcho(EchoPort)
	if err != nil {
		return err
	}
	defer stop()
	var rots [2]*rotator.Rotator
	for i, d := range devs {
		peer := devs[1-i]
		src, err := keysource.OpenFile(keyPath)
		if err != nil {
			return err
		}
		defer src.Close()
		mux, err := d.Mux(FreshPort)
		if err != nil {
			return err
		}
		defer mux.Close()
		name := string(rune('A' + i))
		rots[i], err = rotator.New(rotator.Config{
			Self: d.Pub, Peer: peer.Pub, Source: src, Device: d, Mode: mode,
			Channel:       mux.Peer(netip.AddrPortFrom(peer.Addr, FreshPort)),
			RetryInterval: 100 * time.Millisecond,
			StatePath:     filepath.Join(dir, name+".state"),
			Events:        func(e rotator.Event) { fmt.Fprintf(out, "  %s: %v\n", name, e) },
		})
		if err != nil {
			return err
		}
		defer rots[i].Close()
	}
	for k := 0; k <= n; k++ {
		from := k % 2
		time.Sleep(20 * time.Millisecond) // initiations need distinct TAI64N timestamps
		devs[from].ForceHandshake(devs[1-from].Pub)
		before := rots[0].State()
		start := time.Now()
		if err := a.Ping(netip.AddrPortFrom(b.Addr, EchoPort), 3*time.Second); err != nil {
			return fmt.Errorf("after handshake %d: %w", k, err)
		}
		fmt.Fprintf(out, "handshake %d (initiated by %c), echo through the tunnel in %v\n",
			k, 'A'+from, time.Since(start).Round(time.Microsecond))
		if err := settle(rots, before, 3*time.Second); err != nil {
			return fmt.Errorf("after handshake %d: %w", k, err)
		}
	}
	return nil
}

// settle polls both rotators until they have handled the handshake: they
// agree on a position other than before (timestamp mode: one poll each).
func settle(rots [2]*rotator.Rotator, before wg.State, d time.Duration) error {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		for _, r := range rots {
			if err := r.Poll(); err != nil {
				return err
			}
		}
		s0, s1 := rots[0].State(), rots[1].State()
		if s0.Mode == wg.Timestamp || s0 == s1 && s0 != before && !s0.FallenBack && (s0.Mode != wg.Fresh || s0.Index >= 2) {
			return nil
		}
	}
	return fmt.Errorf("the rotators did not agree within %v: %+v / %+v", d, rots[0].State(), rots[1].State())
}
