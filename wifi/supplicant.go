package wifi

import (
	"bytes"
	"fmt"

	"github.com/kexlab/kexlab/internal/keywrap"
	"github.com/kexlab/kexlab/wifi/eapol"
	"github.com/kexlab/kexlab/wifi/keys"
)

// Supplicant is the supplicant (station) side of the 4-way handshake
// (§12.7.6). Handle answers message 1 with message 2 and message 3 with
// message 4, installing the PTK and GTK on the first valid message 3.
//
// Replay protection follows §12.7.2 as wpa_supplicant implements it: the
// local replay counter is set only from a frame whose MIC verified, and
// every frame whose counter does not exceed it is dropped. A retransmitted
// message 1 (same or higher counter, before message 3) is answered again
// with the same SNonce. A retransmitted message 3 after completion (the
// authenticator did not get message 4) is answered with message 4, but the
// keys are not installed again (the KRACK countermeasure).
type Supplicant struct {
	cfg        Config
	counter    uint64 // replay counter of the last MIC-verified frame
	counterSet bool
	haveMsg1   bool
	anonce     [eapol.NonceSize]byte
	snonce     [eapol.NonceSize]byte
	tptk       keys.PTK
	ptk        keys.PTK
	gtk        *eapol.GTK
	installs   int
}

// NewSupplicant returns a supplicant waiting for message 1.
func NewSupplicant(cfg Config) (*Supplicant, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &Supplicant{cfg: cfg}, nil
}

// Handle consumes message 1 or 3 and returns message 2 or 4. A frame that
// fails a check is discarded with an error and changes nothing.
func (s *Supplicant) Handle(msg []byte) ([]byte, error) {
	k := s.cfg.Suite
	f, err := parse(k, msg)
	if err != nil {
		return nil, err
	}
	if s.counterSet && f.ReplayCounter <= s.counter {
		return nil, fmt.Errorf("%w: %d, last %d", ErrReplay, f.ReplayCounter, s.counter)
	}
	if !f.Info.Has(eapol.Ack) {
		return nil, fmt.Errorf("%w: frame without Ack", ErrUnexpected)
	}
	if !f.Info.Has(eapol.MIC) {
		return s.handleMsg1(f)
	}
	return s.handleMsg3(f, msg)
}

// handleMsg1 answers message 1 (Pairwise|Ack, ANonce) with message 2
// (Pairwise|MIC, SNonce, own RSNE) under the KCK of the temporary PTK.
func (s *Supplicant) handleMsg1(f *eapol.Frame) ([]byte, error) {
	k := s.cfg.Suite
	if f.Info.Has(eapol.Install) || f.Info.Has(eapol.Secure) || f.Info.Has(eapol.EncryptedKeyData) {
		return nil, fmt.Errorf("%w: message 1 with key information %#04x", ErrUnexpected, uint16(f.Info))
	}
	snonce := s.snonce
	if !s.haveMsg1 || f.Nonce != s.anonce {
		var err error
		if snonce, err = nonce(s.cfg.Rand); err != nil {
			return nil, err
		}
	}
	tptk, err := k.DerivePTK(s.cfg.PMK, s.cfg.AA, s.cfg.SPA, f.Nonce[:], snonce[:])
	if err != nil {
		return nil, err
	}
	out := newFrame(k, eapol.Pairwise|eapol.MIC, f.ReplayCounter)
	out.Nonce = snonce
	out.KeyData = s.cfg.rsne(s.cfg.RSNE)
	b, err := seal(k, out, tptk.KCK)
	if err != nil {
		return nil, err
	}
	s.haveMsg1, s.anonce, s.snonce, s.tptk = true, f.Nonce, snonce, tptk
	return b, nil
}

// handleMsg3 checks message 3 (ANonce, MIC, encrypted RSNE and GTK KDE),
// installs the keys and returns message 4 (Pairwise|MIC|Secure).
func (s *Supplicant) handleMsg3(f *eapol.Frame, msg []byte) ([]byte, error) {
	k := s.cfg.Suite
	want := eapol.Pairwise | eapol.Install | eapol.Ack | eapol.MIC | eapol.Secure | eapol.EncryptedKeyData
	if !f.Info.Has(want) {
		return nil, fmt.Errorf("%w: message 3 with key information %#04x", ErrUnexpected, uint16(f.Info))
	}
	if !s.haveMsg1 || f.Nonce != s.anonce {
		return nil, fmt.Errorf("%w: message 3 without a matching message 1", ErrUnexpected)
	}
	if err := verify(k, msg, f, s.tptk.KCK); err != nil {
		return nil, err
	}
	plain, err := keywrap.Unwrap(s.tptk.KEK, f.KeyData)
	if err != nil {
		return nil, err
	}
	kd, err := eapol.ParseKeyData(plain)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(kd.RSNE, s.cfg.rsne(s.cfg.PeerRSNE)) {
		return nil, ErrRSNE
	}
	if kd.GTK == nil {
		return nil, fmt.Errorf("%w: message 3 without a GTK", eapol.ErrKeyData)
	}
	out := newFrame(k, eapol.Pairwise|eapol.MIC|eapol.Secure, f.ReplayCounter)
	b, err := seal(k, out, s.tptk.KCK)
	if err != nil {
		return nil, err
	}
	s.counter, s.counterSet = f.ReplayCounter, true
	if s.installs == 0 || !bytes.Equal(s.ptk.TK, s.tptk.TK) {
		s.ptk, s.gtk = s.tptk, kd.GTK
		s.installs++
	}
	return b, nil
}

// Done reports whether the PTK and GTK are installed.
func (s *Supplicant) Done() bool { return s.installs > 0 }

// PTK returns the installed PTK.
func (s *Supplicant) PTK() (keys.PTK, error) {
	if s.installs == 0 {
		return keys.PTK{}, ErrNotDone
	}
	return s.ptk, nil
}

// GTK returns the installed group key and its key ID.
func (s *Supplicant) GTK() ([]byte, int, error) {
	if s.installs == 0 {
		return nil, 0, ErrNotDone
	}
	return s.gtk.Key, s.gtk.KeyID, nil
}

// Installs counts key installations: 1 after a handshake, however often
// message 3 was retransmitted.
func (s *Supplicant) Installs() int { return s.installs }

// Transcript holds the four frames of a completed handshake.
type Transcript struct{ Msg1, Msg2, Msg3, Msg4 []byte }

// RunHandshake runs a whole 4-way handshake between a and s in memory.
func RunHandshake(a *Authenticator, s *Supplicant) (*Transcript, error) {
	var t Transcript
	var err error
	if t.Msg1, err = a.Start(); err != nil {
		return nil, err
	}
	if t.Msg2, err = s.Handle(t.Msg1); err != nil {
		return nil, err
	}
	if t.Msg3, err = a.Handle(t.Msg2); err != nil {
		return nil, err
	}
	if t.Msg4, err = s.Handle(t.Msg3); err != nil {
		return nil, err
	}
	if _, err = a.Handle(t.Msg4); err != nil {
		return nil, err
	}
	return &t, nil
}
