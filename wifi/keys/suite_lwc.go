package keys

import (
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi/eapol"
	"github.com/kexlab/kexlab/wifi/lwc"
)

// LWCSuite returns the experimental key suite whose PTK derivation and
// EAPOL-Key MIC are the sponge KDF and MIC of package wifi/lwc over c, as in
// "Implementation of three LWC schemes in the WiFi 4-way handshake" (see
// package wifi/lwc for the exact mapping). KCK, KEK and TK are 16 octets each
// (TK for CCMP-128), the MIC is c's 16-octet tag, the key descriptor
// version is 0 (AKM-defined) and the GTK is still wrapped with AES key wrap
// under the KEK. No AKM is assigned to these constructions; the RSN element
// advertises SAE (AKM 8) with CCMP-128, so that the frames are those of a
// WPA3 association and only the cryptography differs.
func LWCSuite(c lwc.Cipher) KeySuite { return lwcSuite{c} }

type lwcSuite struct{ c lwc.Cipher }

func (s lwcSuite) Name() string              { return "LWC-" + s.c.Name + "/CCMP-128" }
func (s lwcSuite) DescriptorVersion() uint16 { return eapol.VersionAKMDefined }
func (s lwcSuite) MICSize() int              { return lwc.TagSize }
func (s lwcSuite) TKSize() int               { return CCMP128.TKSize }
func (s lwcSuite) RSNE() []byte              { return SAE(CCMP128).RSNE() }

func (s lwcSuite) DerivePTK(pmk []byte, aa, spa [6]byte, anonce, snonce []byte) (PTK, error) {
	k, err := s.c.KDF(pmk, aa, spa, anonce, snonce)
	if err != nil {
		return PTK{}, fmt.Errorf("%w: %v", pakeerr.ErrInvalidParameter, err)
	}
	return PTK{KCK: k[0:16:16], KEK: k[16:32:32], TK: k[32:48:48]}, nil
}

func (s lwcSuite) MIC(kck, frame []byte) ([]byte, error) {
	m, err := s.c.MIC(kck, frame)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", pakeerr.ErrInvalidParameter, err)
	}
	return m, nil
}
