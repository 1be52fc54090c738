package wgdev

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// ListenTunnel opens the UDP socket of a [Mux] for a kernel (or TUN-based
// userspace) WireGuard interface: bound to local, this device's address
// and port inside the tunnel, and to the interface iface with
// SO_BINDTODEVICE, so that only datagrams that came through the tunnel
// reach it (a datagram spoofing the peer's tunnel address on another
// interface is not delivered; see Mux). Needs CAP_NET_RAW, which a daemon
// that configures WireGuard has anyway.
func ListenTunnel(iface string, local netip.AddrPort) (net.PacketConn, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) { serr = syscall.BindToDevice(int(fd), iface) }); err != nil {
			return err
		}
		if serr != nil {
			return fmt.Errorf("SO_BINDTODEVICE %s: %w", iface, serr)
		}
		return nil
	}}
	pc, err := lc.ListenPacket(context.Background(), "udp", local.String())
	if err != nil {
		return nil, fmt.Errorf("wgdev: listening on %v in %s: %w", local, iface, err)
	}
	return pc, nil
}
