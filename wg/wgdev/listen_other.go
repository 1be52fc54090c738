//go:build !linux

package wgdev

import (
	"errors"
	"net"
	"net/netip"
)

// ListenTunnel needs SO_BINDTODEVICE, which only Linux has here: without
// it a datagram spoofing the peer's tunnel address could arrive on another
// interface. Elsewhere it returns an error.
func ListenTunnel(iface string, local netip.AddrPort) (net.PacketConn, error) {
	return nil, errors.New("wgdev: ListenTunnel needs Linux (SO_BINDTODEVICE)")
}
