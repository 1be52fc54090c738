//go:build linux

package netlab

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/ipc"
	"golang.zx2c4.com/wireguard/tun"
)

// RunDevice is a userspace WireGuard interface named iface, as
// `wireguard-go -f iface` runs it: a TUN interface, the device, and its
// UAPI socket /var/run/wireguard/iface.sock, until SIGTERM or SIGINT. It
// logs errors only (to standard error) and returns the exit status.
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
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	l.Close()
	d.Close()
	return 0
}
