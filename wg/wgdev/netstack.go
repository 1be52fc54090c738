package wgdev

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/tun/netstack"
)

// NetstackDevice is an in-process wireguard-go device whose TUN is a gVisor
// netstack (no kernel interface, no privileges) and whose UDP socket is
// bound by conn.NewDefaultBind on all addresses: the peers of `kexlab wg
// demo` and of the rotator's tests.
type NetstackDevice struct {
	GoDevice
	Net *netstack.Net
	// Pub is the device's public key, Addr its address inside the tunnel,
	// Port its UDP listen port.
	Pub  [32]byte
	Addr netip.Addr
	Port int
}

// NewNetstackDevice starts a device with a new random private key, tunnel
// address addr and a UDP listen port (0: any free port). The private key
// passes through arrays and a buffer that are cleared; wireguard-go keeps
// its own copies (see GoDevice).
func NewNetstackDevice(addr netip.Addr, port int) (*NetstackDevice, error) {
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("wgdev: invalid port %d", port)
	}
	var priv [32]byte
	defer clear(priv[:])
	if _, err := rand.Read(priv[:]); err != nil {
		return nil, err
	}
	tun, tnet, err := netstack.CreateNetTUN([]netip.Addr{addr}, nil, 1420)
	if err != nil {
		return nil, err
	}
	d := device.NewDevice(tun, conn.NewDefaultBind(), device.NewLogger(device.LogLevelSilent, ""))
	var cfg secretBuf
	_, err = cfg.Write([]byte("private_key="))
	if err == nil {
		err = cfg.writeHex(&priv)
	}
	if err == nil {
		_, err = cfg.Write([]byte("\nlisten_port=" + strconv.Itoa(port) + "\n"))
	}
	if err == nil {
		err = d.IpcSetOperation(bytes.NewReader(cfg.bytes()))
	}
	cfg.wipe()
	if err == nil {
		err = d.Up()
	}
	nd := &NetstackDevice{GoDevice: GoDevice{d}, Net: tnet, Addr: addr, Pub: publicKey(&priv)}
	var st dump
	if err == nil {
		err = nd.get(&st)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	nd.Port = int(st.listenPort)
	return nd, nil
}

// AddPeer adds the peer pub, reachable at endpoint, with tunnel address
// allowed/32.
func (n *NetstackDevice) AddPeer(pub [32]byte, endpoint netip.AddrPort, allowed netip.Addr) error {
	return n.Dev.IpcSet(fmt.Sprintf("public_key=%x\nendpoint=%s\nallowed_ip=%s/32\n", pub, endpoint, allowed))
}

// NewLoopbackPair starts two devices with tunnel addresses a and b that
// are each other's peer, their UDP sockets talking over 127.0.0.1.
func NewLoopbackPair(a, b netip.Addr) (*NetstackDevice, *NetstackDevice, error) {
	x, err := NewNetstackDevice(a, 0)
	if err != nil {
		return nil, nil, err
	}
	y, err := NewNetstackDevice(b, 0)
	if err != nil {
		x.Close()
		return nil, nil, err
	}
	lo := netip.MustParseAddr("127.0.0.1")
	err = x.AddPeer(y.Pub, netip.AddrPortFrom(lo, uint16(y.Port)), y.Addr)
	if err == nil {
		err = y.AddPeer(x.Pub, netip.AddrPortFrom(lo, uint16(x.Port)), x.Addr)
	}
	if err != nil {
		x.Close()
		y.Close()
		return nil, nil, err
	}
	return x, y, nil
}

// Mux opens a [Mux] on UDP port inside the tunnel, at n.Addr.
func (n *NetstackDevice) Mux(port uint16) (*Mux, error) {
	c, err := n.Net.ListenUDPAddrPort(netip.AddrPortFrom(n.Addr, port))
	if err != nil {
		return nil, fmt.Errorf("wgdev: netstack listen: %w", err)
	}
	return NewMux(c), nil
}

// ServeEcho answers every datagram to UDP port inside the tunnel with its
// own content, until stop is called.
func (n *NetstackDevice) ServeEcho(port uint16) (stop func(), err error) {
	l, err := n.Net.ListenUDPAddrPort(netip.AddrPortFrom(n.Addr, port))
	if err != nil {
		return nil, err
	}
	go func() {
		buf := make([]byte, 1500)
		for {
			k, from, err := l.ReadFrom(buf)
			if err != nil {
				return
			}
			l.WriteTo(buf[:k], from)
		}
	}()
	return func() { l.Close() }, nil
}

// ErrNoEcho: Ping got no reply, or a wrong one, in time.
var ErrNoEcho = errors.New("wgdev: no echo through the tunnel")

// Ping sends one random 16-byte datagram through the tunnel to an echo
// server at to (ServeEcho) and waits up to timeout for it to come back.
func (n *NetstackDevice) Ping(to netip.AddrPort, timeout time.Duration) error {
	c, err := n.Net.DialUDPAddrPort(netip.AddrPort{}, to)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	msg := make([]byte, 16)
	rand.Read(msg)
	if _, err := c.Write(msg); err != nil {
		return fmt.Errorf("%w: %v", ErrNoEcho, err)
	}
	buf := make([]byte, 64)
	k, err := c.Read(buf)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoEcho, err)
	}
	if !bytes.Equal(buf[:k], msg) {
		return fmt.Errorf("%w: wrong reply", ErrNoEcho)
	}
	return nil
}

// ForceHandshake makes the next packet to peer start a new handshake:
// ExpireCurrentKeypairs marks the current sending keys used up and clears
// the 5 s rate limit on initiations (RekeyTimeout). Initiations less than
// 2^24 ns apart are rejected by the responder as replays (their TAI64N
// timestamps are rounded), so callers space them.
func (n *NetstackDevice) ForceHandshake(peer [32]byte) {
	if p := n.Dev.LookupPeer(device.NoisePublicKey(peer)); p != nil {
		p.ExpireCurrentKeypairs()
	}
}

// Close shuts the device down.
func (n *NetstackDevice) Close() { n.Dev.Close() }
