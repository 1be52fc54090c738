package wgdev

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/cloudflare/circl/dh/x25519"

	"github.com/kexlab/kexlab/internal/stackwipe"
	"github.com/kexlab/kexlab/wg"
)

// UAPI is a client of the UAPI socket of a userspace WireGuard
// implementation such as wireguard-go (/var/run/wireguard/IFACE.sock),
// speaking the cross-platform text protocol
// (https://www.wireguard.com/xplatform/) itself rather than through
// wgctrl, so that the keys in the text never sit in buffers it cannot
// clear: an answer is read into one buffer that the UAPI owns, parsed in
// place (no strings), and the buffer is cleared before each method
// returns, on every path. Keys are decoded only when needed, into fixed
// arrays that are cleared too, and the stack below the parser is
// cleared after it (wg.PSK.Hash leaves the PSK in SHA-256's dead frame:
// see stackwipe). The buffer grows by doubling up to
// [MaxUAPIAnswer], clearing the old array at each step; a larger answer is
// refused with [ErrAnswerTooLarge].
//
// Each operation uses its own connection (wireguard-go would serve
// several on one, but other implementations need not) with a deadline of
// [UAPITimeout]. Operations are serialised (wireguard-go serialises them
// anyway). A UAPI is safe for concurrent use.
//
// Copies that remain, outside this process: the implementation's own
// buffers (wireguard-go formats a dump into a pooled buffer it does not
// clear) and the kernel's socket buffers.
type UAPI struct {
	path    string
	timeout time.Duration

	mu  sync.Mutex
	buf secretBuf // cleared whenever mu is free
}

const (
	// MaxUAPIAnswer bounds the size of a UAPI answer (a peer takes some
	// 400 bytes, plus some 30 per allowed IP).
	MaxUAPIAnswer = 1 << 20
	// UAPITimeout bounds each UAPI operation, from the connection to the
	// end of the answer.
	UAPITimeout = 5 * time.Second
)

var (
	// ErrNoInterface: the WireGuard interface does not exist (neither a
	// UAPI socket that answers nor a kernel interface of that name).
	ErrNoInterface = errors.New("wgdev: no such WireGuard interface")
	// ErrUAPI: a UAPI answer is malformed.
	ErrUAPI = errors.New("wgdev: malformed UAPI answer")
	// ErrAnswerTooLarge: a UAPI answer is larger than MaxUAPIAnswer
	// bytes. It wraps ErrUAPI.
	ErrAnswerTooLarge = fmt.Errorf("%w: larger than %d bytes", ErrUAPI, MaxUAPIAnswer)
	// ErrNoPrivateKey: the interface has no private key, so no public
	// key.
	ErrNoPrivateKey = errors.New("wgdev: the interface has no private key")
	// ErrNotApplied: after SetPSK the device reported another PSK for the
	// peer (someone else changed it at the same moment).
	ErrNotApplied = errors.New("wgdev: the device does not hold the PSK just set")
)

// ErrnoError: the implementation refused a UAPI operation, answering
// errno=Errno (wireguard-go sends a negated errno: -22 for EINVAL).
type ErrnoError struct {
	Op    string // "get" or "set"
	Path  string // the UAPI socket
	Errno int64
}

func (e *ErrnoError) Error() string {
	n := e.Errno
	if n < 0 {
		n = -n
	}
	return fmt.Sprintf("wgdev: UAPI %s on %s refused: errno=%d (%v)", e.Op, e.Path, e.Errno, syscall.Errno(n))
}

// NewUAPI returns a client of the UAPI socket at path. It does not
// connect yet.
func NewUAPI(path string) *UAPI { return &UAPI{path: path, timeout: UAPITimeout} }

// Peer implements Device.
func (u *UAPI) Peer(pub [32]byte) (PeerStatus, error) {
	d := dump{want: &pub}
	if err := u.get(&d); err != nil {
		return PeerStatus{}, err
	}
	if !d.found {
		return PeerStatus{}, fmt.Errorf("%w: %x on %s", ErrNoPeer, pub[:4], u.path)
	}
	return d.st, nil
}

// SetPSK implements Device with an update-only peer configuration,
//
//	set=1
//	public_key=<hex>
//	update_only=true
//	preshared_key=<hex>
//
// which changes the key of an existing peer only. An implementation
// answers errno=0 also when the peer does not exist (update_only makes it
// a no-op), so SetPSK then reads the peer back: ErrNoPeer if it is not
// there, ErrNotApplied if it holds another PSK.
func (u *UAPI) SetPSK(pub [32]byte, psk *wg.PSK) error {
	if err := u.set(&pub, psk); err != nil {
		return err
	}
	d := dump{want: &pub, match: psk}
	if err := u.get(&d); err != nil {
		return err
	}
	switch {
	case !d.found:
		return fmt.Errorf("%w: %x on %s", ErrNoPeer, pub[:4], u.path)
	case !d.matched:
		return fmt.Errorf("%w: peer %x on %s", ErrNotApplied, pub[:4], u.path)
	}
	return nil
}

// PublicKey returns the interface's public key. The UAPI reports only the
// private key: it is decoded into an array and the public key computed
// from it with circl's X25519 (fixed arrays throughout, unlike
// crypto/ecdh and x/crypto/curve25519, whose ecdh.PrivateKey keeps a heap
// copy of the private key that cannot be cleared); the array is cleared.
func (u *UAPI) PublicKey() ([32]byte, error) {
	d := dump{wantPrivate: true}
	defer clear(d.private[:])
	if err := u.get(&d); err != nil {
		return [32]byte{}, err
	}
	if !d.hasPrivate {
		return [32]byte{}, fmt.Errorf("%w: %s", ErrNoPrivateKey, u.path)
	}
	pub := publicKey(&d.private)
	stackwipe.Wipe()
	return pub, nil
}

// publicKey returns X25519(priv, 9). The clamped scalar passes through
// pub, which ends up holding the public key.
func publicKey(priv *[32]byte) [32]byte {
	var pub x25519.Key
	x25519.KeyGen(&pub, (*x25519.Key)(priv))
	return pub
}

// get runs get=1 and parses the answer into d.
func (u *UAPI) get(d *dump) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	defer u.buf.wipe()
	u.buf.reset()
	if _, err := u.buf.Write([]byte("get=1\n\n")); err != nil {
		return err
	}
	body, err := u.roundTrip("get")
	if err != nil {
		return err
	}
	if err := parseDump(body, d); err != nil {
		return fmt.Errorf("%w (from %s)", err, u.path)
	}
	return nil
}

// set runs an update-only set of pub's PSK.
func (u *UAPI) set(pub *[32]byte, psk *wg.PSK) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	defer u.buf.wipe()
	u.buf.reset()
	_, err := u.buf.Write([]byte("set=1\npublic_key="))
	if err == nil {
		err = u.buf.writeHex(pub)
	}
	if err == nil {
		_, err = u.buf.Write([]byte("\nupdate_only=true\npreshared_key="))
	}
	if err == nil {
		err = u.buf.writeHex((*[32]byte)(psk))
	}
	if err == nil {
		_, err = u.buf.Write(lfLF)
	}
	if err != nil {
		return err
	}
	body, err := u.roundTrip("set")
	if err != nil {
		return err
	}
	if len(body) != 0 {
		return fmt.Errorf("%w: set answered more than errno (from %s)", ErrUAPI, u.path)
	}
	return nil
}

// roundTrip sends the request in u.buf, clears it, reads the answer into
// u.buf and returns its lines before the errno line, or an *ErrnoError.
// The caller holds u.mu and wipes u.buf.
func (u *UAPI) roundTrip(op string) ([]byte, error) {
	c, err := u.dial()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(u.timeout)); err != nil {
		return nil, fmt.Errorf("wgdev: UAPI %s on %s: %w", op, u.path, err)
	}
	_, err = c.Write(u.buf.bytes())
	u.buf.wipe()
	if err != nil {
		return nil, fmt.Errorf("wgdev: UAPI %s on %s: %w", op, u.path, err)
	}
	ans, err := u.buf.readAnswer(c)
	if err != nil {
		return nil, fmt.Errorf("wgdev: UAPI %s on %s: %w", op, u.path, err)
	}
	body, errno, err := splitAnswer(ans)
	if err != nil {
		return nil, fmt.Errorf("%w (from %s)", err, u.path)
	}
	if errno != 0 {
		return nil, &ErrnoError{Op: op, Path: u.path, Errno: errno}
	}
	return body, nil
}

// dial connects to the socket. A socket that is missing, or left behind
// by an implementation that is gone (nothing listens: ECONNREFUSED),
// means there is no such interface: ErrNoInterface.
func (u *UAPI) dial() (net.Conn, error) {
	dl := net.Dialer{Timeout: u.timeout}
	c, err := dl.Dial("unix", u.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w: %v", ErrNoInterface, err)
		}
		return nil, fmt.Errorf("wgdev: UAPI: %w", err)
	}
	return c, nil
}

// initialBuf is the size a secretBuf starts at (a variable for the
// tests).
var initialBuf = 4096

// wipeHook, if set (by the tests), sees every array a secretBuf has
// cleared, right after clearing it.
var wipeHook func([]byte)

// secretBuf holds UAPI text that may carry keys, in b[:n]. It grows by
// doubling up to MaxUAPIAnswer bytes, clearing the array it leaves; wipe
// clears all of it. The zero value is ready to use.
type secretBuf struct {
	b []byte
	n int
}

func (s *secretBuf) bytes() []byte { return s.b[:s.n] }

// reset empties the buffer (already cleared by wipe).
func (s *secretBuf) reset() { s.n = 0 }

// wipe clears the whole array, not only b[:n].
func (s *secretBuf) wipe() {
	clear(s.b)
	s.n = 0
	if wipeHook != nil {
		wipeHook(s.b)
	}
}

// grow makes room for at least k more bytes.
func (s *secretBuf) grow(k int) error {
	if k > MaxUAPIAnswer-s.n {
		return ErrAnswerTooLarge
	}
	if k <= len(s.b)-s.n {
		return nil
	}
	size := max(len(s.b), initialBuf, 1)
	for size-s.n < k {
		size *= 2
	}
	size = min(size, MaxUAPIAnswer)
	nb := make([]byte, size)
	copy(nb, s.b[:s.n])
	clear(s.b)
	if wipeHook != nil && s.b != nil {
		wipeHook(s.b)
	}
	s.b = nb
	return nil
}

// Write appends p (io.Writer, for wireguard-go's IpcGetOperation).
func (s *secretBuf) Write(p []byte) (int, error) {
	if err := s.grow(len(p)); err != nil {
		return 0, err
	}
	s.n += copy(s.b[s.n:], p)
	return len(p), nil
}

// writeHex appends k in lower-case hex, encoded in place.
func (s *secretBuf) writeHex(k *[32]byte) error {
	if err := s.grow(2 * len(k)); err != nil {
		return err
	}
	for i, c := range k {
		s.b[s.n+2*i] = hexDigit(c >> 4)
		s.b[s.n+2*i+1] = hexDigit(c & 15)
	}
	s.n += 2 * len(k)
	return nil
}

// readAnswer reads from r into the buffer up to the first blank line
// (the end of an answer) and returns the answer, which ends with "\n\n".
func (s *secretBuf) readAnswer(r io.Reader) ([]byte, error) {
	s.n = 0
	var rerr error
	for scan := 0; ; {
		if i := bytes.Index(s.b[scan:s.n], lfLF); i >= 0 {
			return s.b[:scan+i+2], nil
		}
		scan = max(s.n-1, 0)
		switch {
		case rerr == io.EOF:
			return nil, malformed(0, "answer ends without a blank line")
		case rerr != nil:
			return nil, rerr
		}
		if s.n == len(s.b) {
			if err := s.grow(1); err != nil {
				return nil, err
			}
		}
		k, err := r.Read(s.b[s.n:])
		s.n += k
		rerr = err
	}
}

// hexDigit returns the lower-case hex digit of a nibble without a branch
// or a table lookup that depends on it: (9-v)>>8 is -1 for v > 9, and
// 'a'-'0'-10 = 39.
func hexDigit(v byte) byte {
	x := int(v)
	return byte('0' + x + ((9-x)>>8)&39)
}
