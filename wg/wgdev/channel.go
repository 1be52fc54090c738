package wgdev

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
)

// Channel carries fresh-mode messages (wg.Offer and wg.Answer messages)
// between the rotators of two peers. Delivery is best effort, like the
// datagrams underneath: the rotator retries.
type Channel interface {
	// Send sends one message to the peer's rotator.
	Send(msg []byte) error
	// Receive returns the next message that has arrived from the peer, or
	// ok = false at once if none has. It never blocks.
	Receive() (msg []byte, ok bool)
}

// Mux shares one UDP socket inside the tunnel among the rotators of a
// device's peers: [Mux.Peer] returns the Channel to one peer's rotator,
// identified by its address and port inside the tunnel.
//
// The socket must be bound to this device's own tunnel address (and, for a
// kernel interface, to the interface itself: [ListenTunnel]). Then a
// datagram whose source is the peer's tunnel address was sent by the peer:
// WireGuard's cryptokey routing accepts a packet from the tunnel only if
// its source address is in the allowed IPs of the peer whose keys
// authenticated it. Datagrams from any other source are dropped. The
// channel is thereby authenticated and encrypted by the tunnel; the
// messages carry no protection of their own. A packet spoofing the peer's
// tunnel address that arrives on another interface is kept out by the
// interface binding (a netstack device has no other interfaces).
type Mux struct {
	mu     sync.Mutex
	conn   net.PacketConn
	peers  map[netip.AddrPort]*peerChan
	done   chan struct{} // closed when the current conn's reader stops
	closed bool
	err    error
}

// peerQueue is the number of messages kept per peer; more are dropped
// (the exchange has at most one message in flight each way, plus
// retries).
const peerQueue = 8

// maxDatagram bounds a received message (the largest, an Offer, is 1206
// bytes).
const maxDatagram = 2048

// ErrClosed: the Mux was closed.
var ErrClosed = errors.New("wgdev: channel closed")

// NewMux starts reading conn. Close closes it.
func NewMux(conn net.PacketConn) *Mux {
	m := &Mux{peers: make(map[netip.AddrPort]*peerChan)}
	m.start(conn)
	return m
}

func (m *Mux) start(conn net.PacketConn) {
	m.conn, m.err, m.done = conn, nil, make(chan struct{})
	go m.read(conn, m.done)
}

// Replace closes the socket and continues on conn, keeping the peers'
// channels (after the interface the socket was bound to was re-created;
// see ListenTunnel). Messages in flight are lost.
func (m *Mux) Replace(conn net.PacketConn) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		conn.Close()
		return ErrClosed
	}
	old, done := m.conn, m.done
	m.mu.Unlock()
	old.Close()
	<-done
	m.mu.Lock()
	defer m.mu.Unlock()
	m.start(conn)
	return nil
}

func (m *Mux) read(conn net.PacketConn, done chan struct{}) {
	defer close(done)
	buf := make([]byte, maxDatagram)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			m.mu.Lock()
			if m.conn == conn {
				m.err = err
			}
			m.mu.Unlock()
			return
		}
		ap, ok := addrPort(from)
		if !ok {
			continue
		}
		m.mu.Lock()
		p := m.peers[ap]
		m.mu.Unlock()
		if p == nil {
			continue
		}
		select {
		case p.in <- append([]byte(nil), buf[:n]...):
		default: // queue full: dropped, as the network may drop it
		}
	}
}

func addrPort(a net.Addr) (netip.AddrPort, bool) {
	u, ok := a.(*net.UDPAddr)
	if !ok {
		return netip.AddrPort{}, false
	}
	ap := u.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}

// Peer returns the channel to the rotator at addr inside the tunnel. Each
// address has one channel; a second call returns the same one.
func (m *Mux) Peer(addr netip.AddrPort) Channel {
	addr = netip.AddrPortFrom(addr.Addr().Unmap(), addr.Port())
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.peers[addr]
	if p == nil {
		p = &peerChan{m: m, to: net.UDPAddrFromAddrPort(addr), in: make(chan []byte, peerQueue)}
		m.peers[addr] = p
	}
	return p
}

// Err reports why the socket stopped working (nil while it works).
func (m *Mux) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Close closes the socket and waits for the reader to stop.
func (m *Mux) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	conn, done := m.conn, m.done
	m.mu.Unlock()
	err := conn.Close()
	<-done
	return err
}

type peerChan struct {
	m  *Mux
	to *net.UDPAddr
	in chan []byte
}

func (p *peerChan) Send(msg []byte) error {
	p.m.mu.Lock()
	conn, closed, rerr := p.m.conn, p.m.closed, p.m.err
	p.m.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case rerr != nil:
		return fmt.Errorf("wgdev: channel socket failed: %w", rerr)
	}
	if _, err := conn.WriteTo(msg, p.to); err != nil {
		return fmt.Errorf("wgdev: sending to %v: %w", p.to, err)
	}
	return nil
}

func (p *peerChan) Receive() ([]byte, bool) {
	select {
	case b := <-p.in:
		return b, true
	default:
		return nil, false
	}
}
