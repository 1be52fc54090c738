// Package wgdev is how the PSK rotator (package wg/rotator) reaches
// WireGuard: a [Device] reads one peer's status and sets its pre-shared
// key with an update-only peer configuration, through the UAPI socket of
// a userspace implementation such as wireguard-go ([UAPI], our own client
// of the text protocol, so that the keys in its text are cleared), the
// kernel module's netlink interface (wgctrl), or an in-process
// wireguard-go device; [Mux] carries the fresh mode's messages between
// the two peers' rotators through the tunnel itself.
//
// Public keys are computed with circl's X25519 (github.com/cloudflare/
// circl/dh/x25519), which works in fixed arrays the caller can clear;
// crypto/ecdh keeps a copy of the private key that cannot be.
package wgdev

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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
// Implementations: [WGCtrl], [UAPI], [GoDevice] (and [NetstackDevice]).
type Device interface {
	Peer(pub [32]byte) (PeerStatus, error)
	SetPSK(pub [32]byte, psk *wg.PSK) error
}

// WGCtrl is a WireGuard interface named iface, reached through the UAPI
// socket of a userspace implementation when one answers
// (<socketDir>/IFACE.sock, by default /var/run/wireguard/IFACE.sock: see
// [UAPI]), else through the kernel module's netlink interface by way of
// wgctrl. The choice is made at each operation, so the interface may be
// re-created by another implementation under the same name. A missing
// interface is reported as [ErrNoInterface], at NewWGCtrl and at any
// later operation.
//
// The UAPI path keeps no copy of a key (see UAPI). The kernel path clears
// every copy it can reach: the private key and every peer's PSK in each
// wgtypes.Device that wgctrl returns, and the key it passes to
// ConfigureDevice. These copies remain on the kernel path, in heap memory
// this package cannot reach until the garbage collector reuses it:
//   - reading the device (each Peer, PublicKey, NewWGCtrl, and the check
//     after SetPSK): github.com/mdlayher/netlink's receive buffers
//     (conn.Receive allocates one per recvmsg, and the messages' Data
//     alias it), each holding the interface's private key and every
//     peer's PSK in binary form; wgctrl's parseKey copies each key through
//     a wgtypes.Key value on the way into the Device we clear;
//   - setting the PSK: the netlink attribute and message encodings
//     (netlink.MarshalAttributes for the peer and the peer list, the
//     generic netlink message body, the marshalled netlink message), each
//     holding the new PSK in binary form.
//
// The kernel path is not tested here: the test machines have no
// wireguard kernel module. The UAPI path is tested against wireguard-go.
type WGCtrl struct {
	iface string
	uapi  *UAPI

	mu     sync.Mutex
	client *wgctrl.Client // for the kernel path, opened on first use
}

// socketDir is where userspace implementations put their UAPI sockets (a
// variable for the tests).
var socketDir = "/var/run/wireguard"

// NewWGCtrl opens interface iface: through its UAPI socket if a userspace
// implementation serves one, else through wgctrl (netlink). An interface
// that exists in neither form is an error wrapping ErrNoInterface.
func NewWGCtrl(iface string) (*WGCtrl, error) {
	if iface == "" || iface == "." || iface == ".." || strings.ContainsAny(iface, "/\x00") {
		return nil, fmt.Errorf("wgdev: invalid interface name %q", iface)
	}
	w := &WGCtrl{iface: iface, uapi: NewUAPI(filepath.Join(socketDir, iface+".sock"))}
	err := w.uapi.get(&dump{})
	if errors.Is(err, ErrNoInterface) {
		var d *wgtypes.Device
		if d, err = w.kernelDevice(); err == nil {
			scrub(d)
		}
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// PublicKey returns the interface's public key.
func (w *WGCtrl) PublicKey() ([32]byte, error) {
	pub, err := w.uapi.PublicKey()
	if !errors.Is(err, ErrNoInterface) {
		return pub, err
	}
	d, err := w.kernelDevice()
	if err != nil {
		return [32]byte{}, err
	}
	scrub(d)
	if d.PublicKey == (wgtypes.Key{}) {
		return [32]byte{}, fmt.Errorf("%w: %s", ErrNoPrivateKey, w.iface)
	}
	return d.PublicKey, nil
}

// Close closes the wgctrl client, if opened; the interface is left as it
// is.
func (w *WGCtrl) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.client == nil {
		return nil
	}
	err := w.client.Close()
	w.client = nil
	return err
}

// Peer implements Device.
func (w *WGCtrl) Peer(pub [32]byte) (PeerStatus, error) {
	st, err := w.uapi.Peer(pub)
	if !errors.Is(err, ErrNoInterface) {
		return st, err
	}
	st, _, err = w.kernelPeer(pub, nil)
	return st, err
}

// SetPSK implements Device with an update-only peer configuration (on
// the kernel path: ReplacePeers false and UpdateOnly set on the peer
// entry), so that the device changes the key of an existing peer and
// nothing else; since neither the kernel nor wireguard-go reports an
// update-only set of an unknown peer as an error, SetPSK reads the peer
// back: ErrNoPeer if it does not exist, ErrNotApplied if it holds another
// PSK.
func (w *WGCtrl) SetPSK(pub [32]byte, psk *wg.PSK) error {
	err := w.uapi.SetPSK(pub, psk)
	if !errors.Is(err, ErrNoInterface) {
		return err
	}
	if err := w.kernelSet(pub, psk); err != nil {
		return err
	}
	_, matched, err := w.kernelPeer(pub, psk)
	switch {
	case err != nil:
		return err
	case !matched:
		return fmt.Errorf("%w: peer %x on %s", ErrNotApplied, pub[:4], w.iface)
	}
	return nil
}

// kernelDevice reads the interface through wgctrl, opening the client on
// first use. The caller scrubs the result.
func (w *WGCtrl) kernelDevice() (*wgtypes.Device, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.openLocked(); err != nil {
		return nil, err
	}
	d, err := w.client.Device(w.iface)
	if err != nil {
		// wgctrl reports an interface it finds nowhere as os.ErrNotExist;
		// its own UAPI client reports the stale socket we already found
		// refusing connections as ECONNREFUSED.
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w: %s (no UAPI socket %s that answers, no kernel interface)",
				ErrNoInterface, w.iface, w.uapi.path)
		}
		return nil, fmt.Errorf("wgdev: wgctrl device %s: %w", w.iface, err)
	}
	return d, nil
}

// openLocked opens the wgctrl client if it is not open yet. w.mu is held.
func (w *WGCtrl) openLocked() error {
	if w.client != nil {
		return nil
	}
	c, err := wgctrl.New()
	if err != nil {
		return fmt.Errorf("wgdev: wgctrl: %w", err)
	}
	w.client = c
	return nil
}

// kernelPeer reads peer pub's status through wgctrl. With match non-nil
// it compares the peer's PSK with *match (in constant time) instead of
// hashing it.
func (w *WGCtrl) kernelPeer(pub [32]byte, match *wg.PSK) (st PeerStatus, matched bool, err error) {
	d, err := w.kernelDevice()
	if err != nil {
		return PeerStatus{}, false, err
	}
	defer scrub(d)
	for i := range d.Peers {
		p := &d.Peers[i]
		if p.PublicKey != wgtypes.Key(pub) {
			continue
		}
		st = PeerStatus{LastHandshake: p.LastHandshakeTime,
			TxBytes: uint64(max(p.TransmitBytes, 0)), RxBytes: uint64(max(p.ReceiveBytes, 0))}
		if match != nil {
			matched = subtle.ConstantTimeCompare(p.PresharedKey[:], match[:]) == 1
		} else {
			psk := (*wg.PSK)(&p.PresharedKey)
			st.PSKHash = psk.Hash()
		}
		return st, matched, nil
	}
	return PeerStatus{}, false, fmt.Errorf("%w: %x on %s", ErrNoPeer, pub[:4], w.iface)
}

// kernelSet sets pub's PSK through wgctrl with an update-only peer
// configuration.
func (w *WGCtrl) kernelSet(pub [32]byte, psk *wg.PSK) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.openLocked(); err != nil {
		return err
	}
	k := new(wgtypes.Key)
	*k = wgtypes.Key(*psk)
	defer clear(k[:])
	cfg := wgtypes.Config{ReplacePeers: false, Peers: []wgtypes.PeerConfig{{
		PublicKey: wgtypes.Key(pub), UpdateOnly: true, PresharedKey: k,
	}}}
	if err := w.client.ConfigureDevice(w.iface, cfg); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %s", ErrNoInterface, w.iface)
		}
		return fmt.Errorf("wgdev: setting the PSK on %s: %w", w.iface, err)
	}
	return nil
}

// scrub clears the keys in a device wgctrl returned.
func scrub(d *wgtypes.Device) {
	clear(d.PrivateKey[:])
	for i := range d.Peers {
		clear(d.Peers[i].PresharedKey[:])
	}
}

// GoDevice is an in-process wireguard-go device, configured through its
// UAPI text protocol (IpcGetOperation/IpcSetOperation) in buffers that
// are cleared after use, parsed as [UAPI] parses a socket's answers.
// Copies remain inside wireguard-go, in this process: IpcGetOperation
// formats the dump (the private key and every PSK in hex) in a pooled
// bytes.Buffer it does not clear, and IpcSetOperation reads the request
// with a bufio.Scanner and makes a string of each line.
type GoDevice struct{ Dev *device.Device }

// Peer implements Device by parsing the device's UAPI dump.
func (g GoDevice) Peer(pub [32]byte) (PeerStatus, error) {
	d := dump{want: &pub}
	if err := g.get(&d); err != nil {
		return PeerStatus{}, err
	}
	if !d.found {
		return PeerStatus{}, fmt.Errorf("%w: %x", ErrNoPeer, pub[:4])
	}
	return d.st, nil
}

// get parses the device's UAPI dump into d.
func (g GoDevice) get(d *dump) error {
	var buf secretBuf
	defer buf.wipe()
	if err := g.Dev.IpcGetOperation(&buf); err != nil {
		if errors.Is(err, ErrAnswerTooLarge) {
			return fmt.Errorf("wgdev: wireguard-go IpcGet: %w", ErrAnswerTooLarge)
		}
		return fmt.Errorf("wgdev: wireguard-go IpcGet: %w", err)
	}
	if err := parseDump(buf.bytes(), d); err != nil {
		return fmt.Errorf("%w (from wireguard-go IpcGet)", err)
	}
	return nil
}

// SetPSK implements Device with
//
//	public_key=<hex>\nupdate_only=true\npreshared_key=<hex>\n
//
// which changes the key of an existing peer only (update_only refuses to
// create it; an unknown peer is not reported).
func (g GoDevice) SetPSK(pub [32]byte, psk *wg.PSK) error {
	var buf secretBuf
	defer buf.wipe()
	_, err := buf.Write([]byte("public_key="))
	if err == nil {
		err = buf.writeHex(&pub)
	}
	if err == nil {
		_, err = buf.Write([]byte("\nupdate_only=true\npreshared_key="))
	}
	if err == nil {
		err = buf.writeHex((*[32]byte)(psk))
	}
	if err == nil {
		_, err = buf.Write([]byte("\n"))
	}
	if err == nil {
		err = g.Dev.IpcSetOperation(bytes.NewReader(buf.bytes()))
	}
	if err != nil {
		return fmt.Errorf("wgdev: wireguard-go IpcSet: %w", err)
	}
	return nil
}
