package wgdev

import (
	"errors"
	"net/netip"
	"testing"
	"time"
)

func receive(c Channel, d time.Duration) ([]byte, bool) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if m, ok := c.Receive(); ok {
			return m, true
		}
	}
	return nil, false
}

func TestMux(t *testing.T) {
	a, b, err := NewLoopbackPair(netip.MustParseAddr("10.9.0.1"), netip.MustParseAddr("10.9.0.2"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer b.Close()
	ma, err := a.Mux(5000)
	if err != nil {
		t.Fatal(err)
	}
	defer ma.Close()
	mb, err := b.Mux(5000)
	if err != nil {
		t.Fatal(err)
	}
	toB := ma.Peer(netip.AddrPortFrom(b.Addr, 5000))
	fromA := mb.Peer(netip.AddrPortFrom(a.Addr, 5000))
	if ma.Peer(netip.AddrPortFrom(b.Addr, 5000)) != toB {
		t.Error("Peer returned a second channel for the same address")
	}
	if err := toB.Send([]byte("offer")); err != nil {
		t.Fatal(err)
	}
	if m, ok := receive(fromA, 3*time.Second); !ok || string(m) != "offer" {
		t.Fatalf("received %q, %v", m, ok)
	}

	// A datagram from another port of the peer's address is not the
	// peer's rotator: dropped.
	other, err := a.Mux(5001)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Peer(netip.AddrPortFrom(b.Addr, 5000)).Send([]byte("stranger")); err != nil {
		t.Fatal(err)
	}
	if m, ok := receive(fromA, 200*time.Millisecond); ok {
		t.Fatalf("datagram from another source delivered: %q", m)
	}

	// Replace keeps the channels working on the new socket.
	mb.mu.Lock()
	old := mb.conn
	mb.mu.Unlock()
	old.Close() // the reader stops; Send reports the failure
	<-mb.done
	if err := fromA.Send([]byte("x")); err == nil {
		t.Fatal("Send on a failed socket succeeded")
	}
	conn, err := b.Net.ListenUDPAddrPort(netip.AddrPortFrom(b.Addr, 5000))
	if err != nil {
		t.Fatal(err)
	}
	if err := mb.Replace(conn); err != nil {
		t.Fatal(err)
	}
	if err := fromA.Send([]byte("answer")); err != nil {
		t.Fatal(err)
	}
	if m, ok := receive(ma.Peer(netip.AddrPortFrom(b.Addr, 5000)), 3*time.Second); !ok || string(m) != "answer" {
		t.Fatalf("after Replace: received %q, %v", m, ok)
	}
	mb.Close()
	if err := fromA.Send([]byte("late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close: %v", err)
	}
}
