//go:build linux

package netlab

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/ipc"
	"golang.zx2c4.com/wireguard/tun"
)

// RunDevice is a userspace WireGuard interface named iface, as
// `wireguard-go -f iface` runs it: a TUN interface, the device, and its
// UAPI socket /var/run/wireguard/iface.sock, until SIGTERM or SIGINT.
// SIGUSR1 expires the current keypairs of every peer, so that the next
// packet sent starts a new handshake (Lab.ForceHandshake). It logs errors
// only (to standard error) and returns the exit status.
func RunDevice(iface string) int {
	if iface == "" {
		fmt.Fprintln(os.Stderr, "device: no interface name in", IfaceEnv)
		return 2
	}
	t, err := tun.CreateTUN(iface, device.DefaultMTU)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tun:", err)
		return 1
	}
	d := device.NewDevice(t, conn.NewDefaultBind(), device.NewLogger(device.LogLevelError, iface+": "))
	f, err := ipc.UAPIOpen(iface)
	if err != nil {
		fmt.Fprintln(os.Stderr, "uapi:", err)
		d.Close()
		return 1
	}
	l, err := ipc.UAPIListen(iface, f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "uapi listen:", err)
		d.Close()
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
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt, syscall.SIGUSR1)
	for s := range sig {
		if s != syscall.SIGUSR1 {
			break
		}
		expireKeypairs(d)
	}
	l.Close()
	d.Close()
	return 0
}

// expireKeypairs expires the current keypairs of every peer of d (the
// peers' public keys read from its UAPI dump): the next packet to a peer
// starts a handshake.
func expireKeypairs(d *device.Device) {
	dump, err := d.IpcGet()
	if err != nil {
		fmt.Fprintln(os.Stderr, "device: expiring keypairs:", err)
		return
	}
	for _, line := range strings.Split(dump, "\n") {
		h, ok := strings.CutPrefix(line, "public_key=")
		if !ok {
			continue
		}
		var pk device.NoisePublicKey
		if b, err := hex.DecodeString(h); err == nil && len(b) == len(pk) {
			copy(pk[:], b)
			if p := d.LookupPeer(pk); p != nil {
				p.ExpireCurrentKeypairs()
			}
		}
	}
}
