package main

import (
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/rotator"
)

func cmdWGDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg demo", stderr)
	n := fs.Int("n", 5, "number of rotations")
	modeName := fs.String("mode", "hardware-ratchet", "mode: timestamp, hash-ratchet, hardware-ratchet")
	if err := parse(fs, args); err != nil {
		return err
	}
	mode, err := wg.ParseMode(*modeName)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	dir, err := os.MkdirTemp("", "kexlab-wg-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	keyPath := filepath.Join(dir, "psk.key")
	if err := keysource.CreateKeyFile(keyPath, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "key file %s (both peers share it)\n", keyPath)
	var devs [2]*rotator.NetstackDevice
	var pubs [2][32]byte
	for i := range devs {
		priv, err := ecdh.X25519().GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		copy(pubs[i][:], priv.PublicKey().Bytes())
		addr := netip.AddrFrom4([4]byte{10, 7, 0, byte(i + 1)})
		if devs[i], err = rotator.NewNetstackDevice([32]byte(priv.Bytes()), addr, 0); err != nil {
			return err
		}
		defer devs[i].Close()
	}
	lo := netip.MustParseAddr("127.0.0.1")
	for i, j := range []int{1, 0} {
		if err := devs[i].AddPeer(pubs[j], netip.AddrPortFrom(lo, uint16(devs[j].Port)), devs[j].Addr); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "peer A %s udp 127.0.0.1:%d, peer B %s udp 127.0.0.1:%d, mode %v\n",
		devs[0].Addr, devs[0].Port, devs[1].Addr, devs[1].Port, mode)
	stop, err := demoEcho(devs[1])
	if err != nil {
		return err
	}
	defer stop()
	var rots [2]*rotator.Rotator
	for i, j := range []int{1, 0} {
		src, err := keysource.OpenFile(keyPath)
		if err != nil {
			return err
		}
		defer src.Close()
		name := string(rune('A' + i))
		rots[i], err = rotator.New(rotator.Config{
			Self: pubs[i], Peer: pubs[j], Source: src, Device: devs[i].GoDevice, Mode: mode,
			StatePath: filepath.Join(dir, name+".state"),
			Events:    func(e rotator.Event) { fmt.Fprintf(stdout, "  %s: %v\n", name, e) },
		})
		if err != nil {
			return err
		}
		defer rots[i].Close()
	}
	for k := 0; k <= *n; k++ {
		from := k % 2
		time.Sleep(20 * time.Millisecond) // initiations need distinct TAI64N timestamps
		devs[from].ForceHandshake(pubs[1-from])
		start := time.Now()
		if err := demoPing(devs[0], devs[1].Addr); err != nil {
			return fmt.Errorf("echo after handshake %d: %w", k, err)
		}
		fmt.Fprintf(stdout, "handshake %d (initiated by %c), echo through the tunnel in %v\n",
			k, 'A'+from, time.Since(start).Round(time.Microsecond))
		for i := range rots {
			if err := pollUntilHandshake(rots[i], devs[i], pubs[1-i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// pollUntilHandshake polls r until it has handled the device's latest
// handshake (the responder sees it when the first data packet arrives).
func pollUntilHandshake(r *rotator.Rotator, d *rotator.NetstackDevice, peer [32]byte) error {
	want := r.State()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		if err := r.Poll(); err != nil {
			return err
		}
		if r.State() != want {
			return nil
		}
		if want.Mode == wg.Timestamp {
			return nil
		}
	}
	return fmt.Errorf("no handshake seen")
}

func demoEcho(d *rotator.NetstackDevice) (func(), error) {
	l, err := d.Net.ListenUDPAddrPort(netip.AddrPortFrom(d.Addr, 7))
	if err != nil {
		return nil, err
	}
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := l.ReadFrom(buf)
			if err != nil {
				return
			}
			l.WriteTo(buf[:n], from)
		}
	}()
	return func() { l.Close() }, nil
}

func demoPing(d *rotator.NetstackDevice, to netip.Addr) error {
	c, err := d.Net.DialUDPAddrPort(netip.AddrPort{}, netip.AddrPortFrom(to, 7))
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	msg := []byte("kexlab wg demo ping")
	if _, err := c.Write(msg); err != nil {
		return err
	}
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != string(msg) {
		return fmt.Errorf("echo mismatch")
	}
	return nil
}
