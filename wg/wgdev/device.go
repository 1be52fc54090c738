// Package wgdev is how the PSK rotator (package wg/rotator) reaches
// WireGuard: a [Device] reads one peer's status and sets its pre-shared
// key with an update-only peer configuration, over wgctrl (the kernel
// module's netlink interface, or the UAPI socket of a userspace
// implementation such as wireguard-go) or an in-process wireguard-go
// device; [Mux] carries the fresh mode's messages between the two peers'
// rotators through the tunnel itself.
package wgdev

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/wgctrl"
	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"

	"github.com/kexlab/kexlab/wg"
)

// ErrNoPeer: the device has no peer with the given public key.
var ErrNoPeer = errors.New("wgdev: peer not found on the device")

// PeerStatus is what a Rotator reads about one peer of a WireGuard device.
type PeerStatus struct {
	// LastHandshake is the time of the last completed handshake (zero if
	// none).
	LastHandshake time.Time
	// TxBytes and RxBytes count every packet sent to and received from the
	// peer, handshake messages included (as both the kernel and
	// wireguard-go count them); the Rotator uses their growth as the sign
	// that traffic, and so a handshake, is being attempted.
	TxBytes, RxBytes uint64
	// PSKHash is wg.PSK.Hash of the device's current pre-shared key, so a
	// restarted Rotator can tell whether the device already has its PSK.
	PSKHash [32]byte
}

// Device is a WireGuard device as a Rotator sees it. SetPSK must change
// only the pre-shared key of the existing peer pub (an update-only peer
// set), never add, remove or replace peers; it must not keep psk, which
// the caller zeroes.
//
// Implementations: [WGCtrl], [GoDevice] (and [NetstackDevice]).
type Device interface {
	Peer(pub [32]byte) (PeerStatus, error)
	SetPSK(pub [32]byte, psk *wg.PSK) error
}

// WGCtrl is a kernel or userspace (UAPI socket) WireGuard interface
// reached through wgctrl.
type WGCtrl struct {
	client *wgctrl.Client
	iface  string
}

// NewWGCtrl opens interface iface through wgctrl (netlink for the kernel
// module, the UAPI socket for userspace implementations).
func NewWGCtrl(iface string) (*WGCtrl, error) {
	c, err := wgctrl.New()
	if err != nil {
		return nil, fmt.Errorf("wgdev: wgctrl: %w", err)
	}
	if _, err := c.Device(iface); err != nil {
		c.Close()
		return nil, fmt.Errorf("wgdev: wgctrl device %q: %w", iface, err)
	}
	return &WGCtrl{client: c, iface: iface}, nil
}

// PublicKey returns the interface's public key.
func (w *WGCtrl) PublicKey() ([32]byte, error) {
	d, err := w.client.Device(w.iface)
	if err != nil {
		return [32]byte{}, fmt.Errorf("wgdev: wgctrl device %q: %w", w.iface, err)
	}
	clear(d.PrivateKey[:])
	for i := range d.Peers {
		clear(d.Peers[i].PresharedKey[:])
	}
	return d.PublicKey, nil
}

// Close closes the wgctrl client; the interface is left as it is.
func (w *WGCtrl) Close() error { return w.client.Close() }

// Peer implements Device.
func (w *WGCtrl) Peer(pub [32]byte) (PeerStatus, error) {
	d, err := w.client.Device(w.iface)
	if err != nil {
		return PeerStatus{}, fmt.Errorf("wgdev: wgctrl device %q: %w", w.iface, err)
	}
	var st PeerStatus
	found := false
	for i := range d.Peers {
		p := &d.Peers[i]
		if p.PublicKey == wgtypes.Key(pub) {
			psk := wg.PSK(p.PresharedKey)
			st = PeerStatus{LastHandshake: p.LastHandshakeTime,
				TxBytes: uint64(max(p.TransmitBytes, 0)), RxBytes: uint64(max(p.ReceiveBytes, 0)),
				PSKHash: psk.Hash()}
			psk.Zero()
			found = true
		}
		clear(p.PresharedKey[:])
	}
	if !found {
		return PeerStatus{}, fmt.Errorf("%w: %x on %s", ErrNoPeer, pub[:4], w.iface)
	}
	return st, nil
}

// SetPSK implements Device with an update-only peer configuration:
// ReplacePeers is false and the peer entry has UpdateOnly set, so the
// kernel changes the key of an existing peer and nothing else.
func (w *WGCtrl) SetPSK(pub [32]byte, psk *wg.PSK) error {
	k := wgtypes.Key(*psk)
	defer clear(k[:])
	cfg := wgtypes.Config{ReplacePeers: false, Peers: []wgtypes.PeerConfig{{
		PublicKey: wgtypes.Key(pub), UpdateOnly: true, PresharedKey: &k,
	}}}
	if err := w.client.ConfigureDevice(w.iface, cfg); err != nil {
		return fmt.Errorf("wgdev: setting the PSK on %s: %w", w.iface, err)
	}
	return nil
}

// GoDevice is an in-process wireguard-go device, configured through its
// UAPI text protocol (IpcGetOperation/IpcSetOperation) in buffers that
// are cleared after use.
type GoDevice struct{ Dev *device.Device }

// Peer implements Device by parsing the device's UAPI dump.
func (g GoDevice) Peer(pub [32]byte) (PeerStatus, error) {
	var buf bytes.Buffer
	defer func() { clear(buf.Bytes()[:buf.Cap()]) }()
	if err := g.Dev.IpcGetOperation(&buf); err != nil {
		return PeerStatus{}, fmt.Errorf("wgdev: wireguard-go IpcGet: %w", err)
	}
	want := "public_key=" + hex.EncodeToString(pub[:])
	var st PeerStatus
	var sec, nsec int64
	in, found := false, false
	sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("public_key=")) {
			in = string(line) == want
			found = found || in
			continue
		}
		if !in {
			continue
		}
		k, v, _ := strings.Cut(string(line), "=")
		switch k {
		case "preshared_key":
			var psk wg.PSK
			if n, err := hex.Decode(psk[:], line[len(k)+1:]); err != nil || n != 32 {
				return PeerStatus{}, fmt.Errorf("wgdev: wireguard-go IpcGet: bad preshared_key")
			}
			st.PSKHash = psk.Hash()
			psk.Zero()
		case "last_handshake_time_sec":
			sec, _ = strconv.ParseInt(v, 10, 64)
		case "last_handshake_time_nsec":
			nsec, _ = strconv.ParseInt(v, 10, 64)
		case "tx_bytes":
			st.TxBytes, _ = strconv.ParseUint(v, 10, 64)
		case "rx_bytes":
			st.RxBytes, _ = strconv.ParseUint(v, 10, 64)
		}
	}
	if !found {
		return PeerStatus{}, fmt.Errorf("%w: %x", ErrNoPeer, pub[:4])
	}
	if sec != 0 || nsec != 0 {
		st.LastHandshake = time.Unix(sec, nsec)
	}
	return st, nil
}

// SetPSK implements Device with
//
//	public_key=<hex>\nupdate_only=true\npreshared_key=<hex>\n
//
// which changes the key of an existing peer only (update_only refuses to
// create it).
func (g GoDevice) SetPSK(pub [32]byte, psk *wg.PSK) error {
	b := make([]byte, 0, 200)
	b = append(b, "public_key="...)
	b = hex.AppendEncode(b, pub[:])
	b = append(b, "\nupdate_only=true\npreshared_key="...)
	b = hex.AppendEncode(b, psk[:])
	b = append(b, '\n')
	err := g.Dev.IpcSetOperation(bytes.NewReader(b))
	clear(b)
	if err != nil {
		return fmt.Errorf("wgdev: wireguard-go IpcSet: %w", err)
	}
	return nil
}
