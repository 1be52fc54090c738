package wifi

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/keywrap"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi/eapol"
	"github.com/kexlab/kexlab/wifi/keys"
)

var (
	// ErrMIC: a frame's MIC did not verify (wrong PMK, or a modified frame).
	// It wraps pakeerr.ErrAuthFailed.
	ErrMIC = fmt.Errorf("wifi: EAPOL-Key MIC mismatch: %w", pakeerr.ErrAuthFailed)
	// ErrReplay: a frame's replay counter is not one the receiver accepts.
	ErrReplay = fmt.Errorf("wifi: unexpected key replay counter: %w", pakeerr.ErrInvalidMessage)
	// ErrUnexpected: a well-formed frame that is not the message expected now.
	ErrUnexpected = fmt.Errorf("wifi: unexpected message: %w", pakeerr.ErrState)
	// ErrRSNE: the peer's RSN element differs from the one expected (a
	// downgrade attempt or misconfiguration). It wraps pakeerr.ErrAuthFailed.
	ErrRSNE = fmt.Errorf("wifi: RSN element mismatch: %w", pakeerr.ErrAuthFailed)
	// ErrRetryLimit: the authenticator retransmitted as often as allowed.
	ErrRetryLimit = fmt.Errorf("wifi: retry limit reached: %w", pakeerr.ErrState)
	// ErrNotDone: keys asked for before the handshake completed, or a
	// party used after it failed.
	ErrNotDone = fmt.Errorf("wifi: handshake not complete: %w", pakeerr.ErrState)
)

// DefaultRetries is the number of retransmissions of message 1 or 3 the
// authenticator allows (dot11RSNAConfigPairwiseUpdateCount counts 3 in all
// by default; hostapd uses 4; we allow 3 after the first transmission).
const DefaultRetries = 3

// Config configures one side of a 4-way handshake.
type Config struct {
	Suite keys.KeySuite
	PMK   []byte
	// AA and SPA are the authenticator's and supplicant's MAC addresses.
	AA, SPA [6]byte
	// Rand supplies the nonce (and the GTK if none is given).
	Rand io.Reader
	// RSNE is this side's RSN element and PeerRSNE the one the peer must
	// send (in message 2 or 3); nil means the suite's RSNE.
	RSNE, PeerRSNE []byte
	// GTK and GTKKeyID (1..3) are the group key the authenticator sends in
	// message 3; nil draws a 16-octet GTK from Rand, with key ID 1.
	GTK      []byte
	GTKKeyID int
	// Retries bounds the authenticator's retransmissions; 0 means
	// DefaultRetries, a negative value none.
	Retries int
}

func (c *Config) rsne(own []byte) []byte {
	if own != nil {
		return own
	}
	if r, ok := c.Suite.(keys.RSNElementer); ok {
		return r.RSNE()
	}
	return keys.SuitePSK.RSNE()
}

func (c *Config) check() error {
	if c.Suite == nil || c.Rand == nil || len(c.PMK) == 0 {
		return fmt.Errorf("%w: handshake needs a suite, a PMK and a randomness source", pakeerr.ErrInvalidParameter)
	}
	switch m := c.Suite.MICSize(); m {
	case 16, 24, 32:
	default:
		return fmt.Errorf("%w: MIC size %d", pakeerr.ErrInvalidParameter, m)
	}
	for _, r := range [][]byte{c.RSNE, c.PeerRSNE} {
		if r == nil {
			continue
		}
		if _, err := eapol.ParseRSNE(r); err != nil {
			return fmt.Errorf("%w: %v", pakeerr.ErrInvalidParameter, err)
		}
	}
	return nil
}

func nonce(r io.Reader) ([eapol.NonceSize]byte, error) {
	var n [eapol.NonceSize]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return n, fmt.Errorf("%w: %v", pakeerr.ErrRandom, err)
	}
	return n, nil
}

// newFrame returns a frame with the suite's version and an all-zero MIC.
func newFrame(s keys.KeySuite, info eapol.KeyInfo, counter uint64) *eapol.Frame {
	return &eapol.Frame{
		ProtocolVersion: 2,
		DescriptorType:  eapol.DescriptorRSN,
		Info:            info | eapol.KeyInfo(s.DescriptorVersion())&eapol.VersionMask,
		ReplayCounter:   counter,
		MIC:             make([]byte, s.MICSize()),
	}
}

// seal marshals f with its MIC computed under kck (or zero if kck is nil).
func seal(s keys.KeySuite, f *eapol.Frame, kck []byte) ([]byte, error) {
	b, err := f.Marshal()
	if err != nil || kck == nil {
		return b, err
	}
	mic, err := s.MIC(kck, b)
	if err != nil {
		return nil, err
	}
	if len(mic) != s.MICSize() {
		return nil, fmt.Errorf("%w: suite returned a %d-octet MIC", pakeerr.ErrInvalidParameter, len(mic))
	}
	copy(b[eapol.MICOffset():], mic)
	copy(f.MIC, mic)
	return b, nil
}

// verify checks the MIC of the received frame raw (parsed as f) under kck.
func verify(s keys.KeySuite, raw []byte, f *eapol.Frame, kck []byte) error {
	z := bytes.Clone(raw)
	clear(z[eapol.MICOffset() : eapol.MICOffset()+len(f.MIC)])
	mic, err := s.MIC(kck, z)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare(mic, f.MIC) != 1 {
		return ErrMIC
	}
	return nil
}

// parse decodes a frame of this handshake: an RSN descriptor, pairwise,
// with the suite's descriptor version.
func parse(s keys.KeySuite, msg []byte) (*eapol.Frame, error) {
	f, err := eapol.Unmarshal(msg, s.MICSize())
	if err != nil {
		return nil, err
	}
	if f.DescriptorType != eapol.DescriptorRSN || !f.Info.Has(eapol.Pairwise) ||
		f.Info.Version() != s.DescriptorVersion() || f.Info.Has(eapol.Error) || f.Info.Has(eapol.Request) ||
		f.Info.Has(eapol.SMK) {
		return nil, fmt.Errorf("%w: not a pairwise RSN frame of this suite (info %#04x)", ErrUnexpected, uint16(f.Info))
	}
	return f, nil
}

// wrapKeyData pads and wraps key data under the KEK (§12.7.2).
func wrapKeyData(kek, data []byte) ([]byte, error) {
	return keywrap.Wrap(kek, eapol.Pad(data))
}
