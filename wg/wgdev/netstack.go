package rotator

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/tun/netstack"
)

// NetstackDevice is an in-process wireguard-go device whose TUN is a gVisor
// netstack (no kernel interface, no privileges) and whose UDP socket is
// bound by conn.NewDefaultBind: the peers of `kexlab wg demo`.
type NetstackDevice struct {
	GoDevice
	Net  *netstack.Net
	Addr netip.Addr
	Port int
}

// NewNetstackDevice starts a device with private key priv, tunnel address
// addr and a UDP listen port (0: any).
func NewNetstackDevice(priv [32]byte, addr netip.Addr, port int) (*NetstackDevice, error) {
	tun, tnet, err := netstack.CreateNetTUN([]netip.Addr{addr}, nil, 1420)
	if err != nil {
		return nil, err
	}
	d := device.NewDevice(tun, conn.NewDefaultBind(), device.NewLogger(device.LogLevelSilent, ""))
	cfg := []byte("private_key=" + hex.EncodeToString(priv[:]) + "\nlisten_port=" + strconv.Itoa(port) + "\n")
	err = d.IpcSetOperation(bytes.NewReader(cfg))
	clear(cfg)
	if err == nil {
		err = d.Up()
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	nd := &NetstackDevice{GoDevice: GoDevice{d}, Net: tnet, Addr: addr}
	s, err := d.IpcGet()
	if err != nil {
		d.Close()
		return nil, err
	}
	for _, l := range strings.Split(s, "\n") {
		if p, ok := strings.CutPrefix(l, "listen_port="); ok {
			nd.Port, _ = strconv.Atoi(p)
		}
	}
	return nd, nil
}

// AddPeer adds the peer pub, reachable at endpoint, with tunnel address
// allowed/32.
func (n *NetstackDevice) AddPeer(pub [32]byte, endpoint netip.AddrPort, allowed netip.Addr) error {
	return n.Dev.IpcSet(fmt.Sprintf("public_key=%x\nendpoint=%s\nallowed_ip=%s/32\n", pub, endpoint, allowed))
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

// BenchUpdate returns one PSK update of mode m as the rotator performs it
// after a handshake (compute the next PSK, apply it to d), for `kexlab wg
// bench`; the chain starts at epoch 0 and state is kept in memory.
func BenchUpdate(src keysource.Source, m wg.Mode, self, peer [32]byte, d Device) (func() error, error) {
	pair := wg.PairID(self, peer)
	st := wg.NewState(m)
	var cur wg.PSK
	if m != wg.Timestamp {
		var err error
		if cur, err = wg.StartChain(src, pair, &st, 0); err != nil {
			return nil, err
		}
	}
	return func() error {
		var next wg.PSK
		var err error
		switch m {
		case wg.Timestamp:
			next, err = wg.TimestampPSK(src, pair, time.Now())
		case wg.HashRatchet:
			if st.Index >= wg.MaxHashRatchetIndex {
				st = wg.NewState(m)
				cur, err = wg.StartChain(src, pair, &st, st.Epoch+1)
			}
			if err == nil {
				next, err = wg.HashStep(&cur, &st)
			}
		default:
			next, err = wg.Step(src, pair, &st, nil)
		}
		if err != nil {
			return err
		}
		cur.Zero()
		cur = next
		return d.SetPSK(peer, &cur)
	}, nil
}
