package keys

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"

	"github.com/kexlab/kexlab/internal/cmac"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi/eapol"
)

// PTK is the pairwise transient key split into its parts (§12.7.1.3).
type PTK struct{ KCK, KEK, TK []byte }

// KeySuite is the cryptography of one AKM and pairwise cipher in the
// 4-way handshake: the PTK derivation and the EAPOL-Key MIC. The GTK in
// message 3 is always wrapped with AES key wrap under the KEK, which must
// therefore be 16, 24 or 32 octets.
type KeySuite interface {
	// Name names the suite, e.g. "PSK/CCMP-128".
	Name() string
	// DescriptorVersion is the Key Information version (bits 0-2).
	DescriptorVersion() uint16
	// DerivePTK derives KCK || KEK || TK from the PMK, the authenticator
	// and supplicant addresses and the two nonces.
	DerivePTK(pmk []byte, aa, spa [6]byte, anonce, snonce []byte) (PTK, error)
	// MICSize is the length of the Key MIC field.
	MICSize() int
	// MIC computes the MIC over an EAPOL frame whose MIC field is zero.
	MIC(kck, frame []byte) ([]byte, error)
}

// RSNElementer is implemented by suites that know their RSN element; the
// handshake of package wifi uses it unless its Config names another.
type RSNElementer interface{ RSNE() []byte }

// TKSizer is implemented by suites that know the TK length before the PTK
// is derived; it fills the Key Length field of message 1.
type TKSizer interface{ TKSize() int }

// Cipher is a pairwise cipher suite (§9.4.2.24.2, Table 12-8).
type Cipher struct {
	Name     string
	Selector eapol.Suite
	TKSize   int
}

// Pairwise ciphers.
var (
	CCMP128 = Cipher{"CCMP-128", 0x000fac04, 16}
	GCMP128 = Cipher{"GCMP-128", 0x000fac08, 16}
	GCMP256 = Cipher{"GCMP-256", 0x000fac09, 32}
	CCMP256 = Cipher{"CCMP-256", 0x000fac0a, 32}
)

// AKM suite selectors (Table 9-151).
const (
	AKMPSK       eapol.Suite = 0x000fac02
	AKMPSKSHA256 eapol.Suite = 0x000fac06
	AKMSAE       eapol.Suite = 0x000fac08
	AKMSAEExtKey eapol.Suite = 0x000fac18
)

// Suite is a standard IEEE 802.11 key suite.
type Suite struct {
	name    string
	AKM     eapol.Suite
	Cipher  Cipher
	version uint16
	prfSHA1 bool             // PRF-n with HMAC-SHA-1, else KDF with kdfHash
	kdfHash func() hash.Hash // also the HMAC of the MIC when micCMAC is false
	pmkSize int
	kckSize int
	kekSize int
	micSize int
	micCMAC bool
}

// PSK returns AKM 2 (PSK, SHA-1): PRF with HMAC-SHA-1, KCK and KEK of 16
// octets, MIC HMAC-SHA-1-128 with key descriptor version 2.
func PSK(c Cipher) *Suite {
	return &Suite{name: "PSK/" + c.Name, AKM: AKMPSK, Cipher: c, version: eapol.VersionHMACSHA1,
		prfSHA1: true, kdfHash: sha1.New, pmkSize: 32, kckSize: 16, kekSize: 16, micSize: 16}
}

// PSKSHA256 returns AKM 6 (PSK-SHA256): KDF-SHA-256, MIC AES-128-CMAC
// with key descriptor version 3.
func PSKSHA256(c Cipher) *Suite {
	return &Suite{name: "PSK-SHA256/" + c.Name, AKM: AKMPSKSHA256, Cipher: c, version: eapol.VersionAESCMAC,
		kdfHash: sha256.New, pmkSize: 32, kckSize: 16, kekSize: 16, micSize: 16, micCMAC: true}
}

// SAE returns AKM 8 (SAE): KDF-SHA-256, MIC AES-128-CMAC, key descriptor
// version 0 (AKM-defined).
func SAE(c Cipher) *Suite {
	return &Suite{name: "SAE/" + c.Name, AKM: AKMSAE, Cipher: c, version: eapol.VersionAKMDefined,
		kdfHash: sha256.New, pmkSize: 32, kckSize: 16, kekSize: 16, micSize: 16, micCMAC: true}
}

// SAEExtKey returns AKM 24 (SAE with a group-dependent hash) for SAE group
// 19 (SHA-256), 20 (SHA-384) or 21 (SHA-512): the PMK is the hash length,
// KCK and MIC are half of it, the KEK is 16 octets for SHA-256 and 32
// otherwise, and the MIC is HMAC-Hash truncated to the KCK length
// (key descriptor version 0).
func SAEExtKey(group int, c Cipher) (*Suite, error) {
	s := &Suite{AKM: AKMSAEExtKey, Cipher: c, version: eapol.VersionAKMDefined, kekSize: 32}
	switch group {
	case 19:
		s.kdfHash, s.pmkSize, s.kekSize = sha256.New, 32, 16
	case 20:
		s.kdfHash, s.pmkSize = sha512.New384, 48
	case 21:
		s.kdfHash, s.pmkSize = sha512.New, 64
	default:
		return nil, fmt.Errorf("%w: SAE group %d", pakeerr.ErrInvalidParameter, group)
	}
	s.kckSize, s.micSize = s.pmkSize/2, s.pmkSize/2
	s.name = fmt.Sprintf("SAE-EXT-KEY-%d/%s", group, c.Name)
	return s, nil
}

// The standard suites with their usual ciphers. SuiteSAEExt384 (group 20)
// is the AKM 24 suite with KDF-SHA-384 and HMAC-SHA-384-192.
var (
	SuitePSK       = PSK(CCMP128)
	SuitePSKSHA256 = PSKSHA256(CCMP128)
	SuiteSAE       = SAE(CCMP128)
	SuiteSAEExt    = must(SAEExtKey(19, CCMP128))
	SuiteSAEExt384 = must(SAEExtKey(20, GCMP256))
)

func must(s *Suite, _ error) *Suite { return s }

// Name returns AKM/cipher, e.g. "SAE/CCMP-128".
func (s *Suite) Name() string { return s.name }

// DescriptorVersion returns the key descriptor version of the AKM.
func (s *Suite) DescriptorVersion() uint16 { return s.version }

// MICSize returns the Key MIC length.
func (s *Suite) MICSize() int { return s.micSize }

// TKSize returns the TK length of the pairwise cipher.
func (s *Suite) TKSize() int { return s.Cipher.TKSize }

// PMKSize returns the PMK length the AKM uses.
func (s *Suite) PMKSize() int { return s.pmkSize }

// RSNE returns the RSN element advertising this AKM and cipher (as group
// and pairwise cipher), with zero capabilities.
func (s *Suite) RSNE() []byte {
	r := eapol.RSNE{Version: 1, Group: s.Cipher.Selector, Pairwise: []eapol.Suite{s.Cipher.Selector}, AKM: []eapol.Suite{s.AKM}}
	b, _ := r.Marshal()
	return b
}

// DerivePTK derives the PTK with PRF-n or KDF-Hash-n (§12.7.1.3), n the
// sum of the KCK, KEK and TK lengths, and splits it.
func (s *Suite) DerivePTK(pmk []byte, aa, spa [6]byte, anonce, snonce []byte) (PTK, error) {
	if len(pmk) != s.pmkSize {
		return PTK{}, fmt.Errorf("%w: %s PMK of %d octets, want %d", pakeerr.ErrInvalidParameter, s.name, len(pmk), s.pmkSize)
	}
	ctx, err := PTKContext(aa, spa, anonce, snonce)
	if err != nil {
		return PTK{}, err
	}
	bits := 8 * (s.kckSize + s.kekSize + s.Cipher.TKSize)
	var k []byte
	if s.prfSHA1 {
		k, err = PRF(pmk, ptkLabel, ctx, bits)
	} else {
		k, err = KDF(s.kdfHash, pmk, ptkLabel, ctx, bits)
	}
	if err != nil {
		return PTK{}, err
	}
	return PTK{KCK: k[:s.kckSize:s.kckSize], KEK: k[s.kckSize : s.kckSize+s.kekSize : s.kckSize+s.kekSize],
		TK: k[s.kckSize+s.kekSize:]}, nil
}

// MIC computes the EAPOL-Key MIC (§12.7.3): HMAC-SHA-1-128, AES-128-CMAC
// or HMAC-Hash truncated to the MIC length.
func (s *Suite) MIC(kck, frame []byte) ([]byte, error) {
	if len(kck) != s.kckSize {
		return nil, fmt.Errorf("%w: %s KCK of %d octets", pakeerr.ErrInvalidParameter, s.name, len(kck))
	}
	if s.micCMAC {
		t, err := cmac.Sum(kck, frame)
		return t[:], err
	}
	m := hmac.New(s.kdfHash, kck)
	m.Write(frame)
	return m.Sum(nil)[:s.micSize], nil
}
