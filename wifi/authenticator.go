package wifi

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi/eapol"
	"github.com/kexlab/kexlab/wifi/keys"
)

type authState int

const (
	authIdle authState = iota
	authSentMsg1
	authSentMsg3
	authDone
	authFailed
)

// Authenticator is the authenticator (AP) side of the 4-way handshake
// (§12.7.6): Start sends message 1, Handle consumes messages 2 and 4 and
// answers message 2 with message 3, Retransmit resends the outstanding
// message with a new replay counter when the caller's timer expires.
type Authenticator struct {
	cfg     Config
	state   authState
	anonce  [eapol.NonceSize]byte
	counter uint64   // last replay counter used
	sent    []uint64 // replay counters of the outstanding message's transmissions
	retries int
	limit   int
	ptk     keys.PTK
	gtk     []byte
	keyID   int
}

// NewAuthenticator starts an authenticator; it draws the ANonce (and the
// GTK if none is configured) from cfg.Rand.
func NewAuthenticator(cfg Config) (*Authenticator, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	a := &Authenticator{cfg: cfg, limit: cfg.Retries, gtk: cfg.GTK, keyID: cfg.GTKKeyID}
	if a.limit == 0 {
		a.limit = DefaultRetries
	}
	if a.keyID == 0 {
		a.keyID = 1
	}
	if a.keyID < 1 || a.keyID > 3 {
		return nil, fmt.Errorf("%w: GTK key ID %d", pakeerr.ErrInvalidParameter, a.keyID)
	}
	var err error
	if a.anonce, err = nonce(cfg.Rand); err != nil {
		return nil, err
	}
	if a.gtk == nil {
		a.gtk = make([]byte, 16)
		if _, err := io.ReadFull(cfg.Rand, a.gtk); err != nil {
			return nil, fmt.Errorf("%w: %v", pakeerr.ErrRandom, err)
		}
	}
	return a, nil
}

// Start returns message 1: Pairwise|Ack with the ANonce and a fresh replay
// counter, no MIC (the PTK is not known yet).
func (a *Authenticator) Start() ([]byte, error) {
	if a.state != authIdle {
		return nil, fmt.Errorf("%w: Start called twice", ErrUnexpected)
	}
	a.state = authSentMsg1
	return a.send()
}

// send builds the outstanding message with the next replay counter.
func (a *Authenticator) send() ([]byte, error) {
	a.counter++
	a.sent = append(a.sent, a.counter)
	s := a.cfg.Suite
	if a.state == authSentMsg1 {
		f := newFrame(s, eapol.Pairwise|eapol.Ack, a.counter)
		if t, ok := s.(keys.TKSizer); ok {
			f.KeyLength = uint16(t.TKSize())
		}
		f.Nonce = a.anonce
		return seal(s, f, nil)
	}
	// Message 3: Pairwise|Install|Ack|MIC|Secure|Encrypted Key Data, the
	// ANonce, and AES-KW(KEK, RSNE || GTK KDE).
	f := newFrame(s, eapol.Pairwise|eapol.Install|eapol.Ack|eapol.MIC|eapol.Secure|eapol.EncryptedKeyData, a.counter)
	f.KeyLength = uint16(len(a.ptk.TK))
	f.Nonce = a.anonce
	kd := eapol.KeyData{RSNE: a.cfg.rsne(a.cfg.RSNE), GTK: &eapol.GTK{KeyID: a.keyID, Key: a.gtk}}
	plain, err := kd.Marshal()
	if err != nil {
		return nil, err
	}
	if f.KeyData, err = wrapKeyData(a.ptk.KEK, plain); err != nil {
		return nil, err
	}
	return seal(s, f, a.ptk.KCK)
}

// Retransmit resends message 1 or 3 with an incremented replay counter. It
// is the caller's time-out handler; after the configured number of
// retries the handshake fails with ErrRetryLimit.
func (a *Authenticator) Retransmit() ([]byte, error) {
	if a.state != authSentMsg1 && a.state != authSentMsg3 {
		return nil, fmt.Errorf("%w: nothing to retransmit", ErrUnexpected)
	}
	if a.limit < 0 || a.retries >= a.limit {
		a.fail()
		return nil, ErrRetryLimit
	}
	a.retries++
	return a.send()
}

func (a *Authenticator) fail() {
	a.state = authFailed
	clear(a.ptk.KCK)
	clear(a.ptk.KEK)
	clear(a.ptk.TK)
	a.ptk = keys.PTK{}
}

// Handle consumes message 2 (returning message 3) or message 4 (returning
// nil; the handshake is then done). A frame that fails a check is
// discarded with an error and leaves the state as it was, except an RSN
// element mismatch in message 2, which fails the handshake (§12.7.6.3).
func (a *Authenticator) Handle(msg []byte) ([]byte, error) {
	if a.state == authIdle || a.state == authDone || a.state == authFailed {
		return nil, fmt.Errorf("%w: no message expected", ErrUnexpected)
	}
	s := a.cfg.Suite
	f, err := parse(s, msg)
	if err != nil {
		return nil, err
	}
	if !f.Info.Has(eapol.MIC) || f.Info.Has(eapol.Ack) || f.Info.Has(eapol.Install) {
		return nil, fmt.Errorf("%w: key information %#04x", ErrUnexpected, uint16(f.Info))
	}
	if !slices.Contains(a.sent, f.ReplayCounter) {
		return nil, fmt.Errorf("%w: %d", ErrReplay, f.ReplayCounter)
	}
	if a.state == authSentMsg1 {
		return a.handleMsg2(f, msg)
	}
	// Message 4: Pairwise|MIC|Secure, MIC under the KCK.
	if !f.Info.Has(eapol.Secure) {
		return nil, fmt.Errorf("%w: message 2 while waiting for message 4", ErrUnexpected)
	}
	if err := verify(s, msg, f, a.ptk.KCK); err != nil {
		return nil, err
	}
	a.state = authDone
	a.sent = nil
	return nil, nil
}

func (a *Authenticator) handleMsg2(f *eapol.Frame, msg []byte) ([]byte, error) {
	s := a.cfg.Suite
	if f.Info.Has(eapol.Secure) || f.Info.Has(eapol.EncryptedKeyData) {
		return nil, fmt.Errorf("%w: message 4 while waiting for message 2", ErrUnexpected)
	}
	ptk, err := s.DerivePTK(a.cfg.PMK, a.cfg.AA, a.cfg.SPA, a.anonce[:], f.Nonce[:])
	if err != nil {
		return nil, err
	}
	if err := verify(s, msg, f, ptk.KCK); err != nil {
		return nil, err
	}
	kd, err := eapol.ParseKeyData(f.KeyData)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(kd.RSNE, a.cfg.rsne(a.cfg.PeerRSNE)) {
		a.fail()
		return nil, ErrRSNE
	}
	a.ptk = ptk
	a.state = authSentMsg3
	a.sent, a.retries = nil, 0
	return a.send()
}

// Done reports whether message 4 verified.
func (a *Authenticator) Done() bool { return a.state == authDone }

// PTK returns the PTK once the handshake is done.
func (a *Authenticator) PTK() (keys.PTK, error) {
	if a.state != authDone {
		return keys.PTK{}, ErrNotDone
	}
	return a.ptk, nil
}

// GTK returns the group key and its key ID sent in message 3.
func (a *Authenticator) GTK() ([]byte, int) { return a.gtk, a.keyID }

// ReplayCounter returns the last replay counter the authenticator used.
func (a *Authenticator) ReplayCounter() uint64 { return a.counter }
