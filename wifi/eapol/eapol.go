// Package eapol encodes and decodes the EAPOL-Key frames of the IEEE 802.11
// 4-way handshake (IEEE Std 802.11-2020 §12.7.2) and the key data they
// carry: the RSN element (§9.4.2.24) and key data encapsulations (KDEs,
// §12.7.2, Table 12-9), of which the GTK KDE is parsed and encoded.
//
// An EAPOL-Key frame is an IEEE 802.1X EAPOL header followed by the key
// descriptor (Figure 12-32), all integers big-endian:
//
//	Protocol Version       1   1 (802.1X-2001), 2 (-2004) or 3 (-2010)
//	Packet Type            1   3 = EAPOL-Key
//	Packet Body Length     2   octets after this field
//	Descriptor Type        1   2 = IEEE 802.11 (RSN), 254 = WPA
//	Key Information        2   see KeyInfo
//	Key Length             2   pairwise cipher key length (messages 1 and 3)
//	Key Replay Counter     8
//	Key Nonce             32   ANonce (messages 1, 3) or SNonce (message 2)
//	EAPOL-Key IV          16   zero in RSN
//	Key RSC                8   receive sequence counter of the GTK (message 3)
//	Reserved               8   (Key ID in WPA)
//	Key MIC                m   m = 16, 24 or 32 octets, fixed by the AKM
//	Key Data Length        2
//	Key Data               n
//
// The MIC length is not carried in the frame: Unmarshal takes it from the
// caller, who knows the negotiated AKM. Errors wrap ErrFrame or ErrKeyData,
// which wrap pakeerr.ErrInvalidMessage; nothing here panics on any input.
package eapol

import (
	"encoding/binary"
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

var (
	// ErrFrame: an EAPOL-Key frame that does not parse or violates the
	// field rules of §12.7.2.
	ErrFrame = fmt.Errorf("eapol: malformed EAPOL-Key frame: %w", pakeerr.ErrInvalidMessage)
	// ErrKeyData: key data (elements and KDEs) that does not parse.
	ErrKeyData = fmt.Errorf("eapol: malformed key data: %w", pakeerr.ErrInvalidMessage)
)

// Packet and descriptor types.
const (
	PacketTypeKey   = 3   // EAPOL-Key (IEEE Std 802.1X-2010 Table 11-3)
	DescriptorRSN   = 2   // IEEE 802.11 key descriptor (§12.7.2)
	DescriptorWPA   = 254 // the pre-RSN WPA key descriptor
	NonceSize       = 32
	HeaderSize      = 4  // protocol version, packet type, body length
	fixedBodySize   = 77 // descriptor fields before the Key MIC
	maxKeyDataOctet = 0xffff
)

// KeyInfo is the Key Information field (§12.7.2, Figure 12-33).
type KeyInfo uint16

// Key Information bits. Bits 0-2 hold the key descriptor version.
const (
	VersionMask      KeyInfo = 0x0007
	Pairwise         KeyInfo = 1 << 3 // Key Type: 1 = pairwise (PTK), 0 = group
	reservedIndex    KeyInfo = 3 << 4 // B4-B5: reserved in RSN (WPA key index)
	Install          KeyInfo = 1 << 6
	Ack              KeyInfo = 1 << 7
	MIC              KeyInfo = 1 << 8
	Secure           KeyInfo = 1 << 9
	Error            KeyInfo = 1 << 10
	Request          KeyInfo = 1 << 11
	EncryptedKeyData KeyInfo = 1 << 12
	SMK              KeyInfo = 1 << 13
	reservedHigh     KeyInfo = 3 << 14
)

// Key descriptor versions (Key Information bits 0-2).
const (
	VersionAKMDefined = 0 // MIC and key wrap defined by the AKM (SAE, ...)
	VersionHMACMD5    = 1 // HMAC-MD5 MIC, ARC4 key data (TKIP)
	VersionHMACSHA1   = 2 // HMAC-SHA-1-128 MIC, AES key wrap
	VersionAESCMAC    = 3 // AES-128-CMAC MIC, AES key wrap
)

// Version returns the key descriptor version.
func (k KeyInfo) Version() uint16 { return uint16(k & VersionMask) }

// Has reports whether every bit of flags is set.
func (k KeyInfo) Has(flags KeyInfo) bool { return k&flags == flags }

// Frame is one EAPOL-Key frame.
type Frame struct {
	ProtocolVersion uint8
	DescriptorType  uint8
	Info            KeyInfo
	KeyLength       uint16
	ReplayCounter   uint64
	Nonce           [NonceSize]byte
	IV              [16]byte
	RSC             [8]byte
	Reserved        [8]byte
	MIC             []byte // its length is the AKM's MIC length
	KeyData         []byte
}

// Size returns the length of the marshaled frame.
func (f *Frame) Size() int { return HeaderSize + fixedBodySize + len(f.MIC) + 2 + len(f.KeyData) }

// check applies the field rules shared by Marshal and Unmarshal.
func (f *Frame) check() error {
	if f.ProtocolVersion < 1 || f.ProtocolVersion > 3 {
		return fmt.Errorf("%w: protocol version %d", ErrFrame, f.ProtocolVersion)
	}
	if f.DescriptorType != DescriptorRSN && f.DescriptorType != DescriptorWPA {
		return fmt.Errorf("%w: descriptor type %d", ErrFrame, f.DescriptorType)
	}
	v := f.Info.Version()
	if v > VersionAESCMAC {
		return fmt.Errorf("%w: key descriptor version %d", ErrFrame, v)
	}
	if f.DescriptorType == DescriptorWPA && (v == VersionAKMDefined || v == VersionAESCMAC) {
		return fmt.Errorf("%w: key descriptor version %d with the WPA descriptor", ErrFrame, v)
	}
	if f.Info&reservedHigh != 0 {
		return fmt.Errorf("%w: reserved key information bits set", ErrFrame)
	}
	if f.DescriptorType == DescriptorRSN && f.Info&reservedIndex != 0 {
		return fmt.Errorf("%w: reserved key information bits 4-5 set", ErrFrame)
	}
	switch {
	case f.Info.Has(Install) && !f.Info.Has(Pairwise):
		return fmt.Errorf("%w: Install set on a group key frame", ErrFrame)
	case f.Info.Has(Ack) && f.Info.Has(Request):
		return fmt.Errorf("%w: both Ack and Request set", ErrFrame)
	case f.Info.Has(EncryptedKeyData) && f.DescriptorType == DescriptorWPA:
		return fmt.Errorf("%w: Encrypted Key Data with the WPA descriptor", ErrFrame)
	case f.Info.Has(SMK) && f.DescriptorType == DescriptorWPA:
		return fmt.Errorf("%w: SMK Message with the WPA descriptor", ErrFrame)
	case f.Info.Has(EncryptedKeyData) && len(f.MIC) > 0 && !f.Info.Has(MIC):
		return fmt.Errorf("%w: Encrypted Key Data without Key MIC", ErrFrame)
	}
	if len(f.KeyData) > maxKeyDataOctet-fixedBodySize-2-len(f.MIC) {
		return fmt.Errorf("%w: key data of %d octets", ErrFrame, len(f.KeyData))
	}
	return nil
}

// Marshal encodes the frame. The MIC field is written as f.MIC, so a frame
// whose MIC is all zero is the input of the MIC computation (§12.7.2).
func (f *Frame) Marshal() ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	switch len(f.MIC) {
	case 0, 16, 24, 32:
	default:
		return nil, fmt.Errorf("%w: MIC of %d octets", ErrFrame, len(f.MIC))
	}
	b := make([]byte, f.Size())
	b[0] = f.ProtocolVersion
	b[1] = PacketTypeKey
	binary.BigEndian.PutUint16(b[2:], uint16(len(b)-HeaderSize))
	p := b[HeaderSize:]
	p[0] = f.DescriptorType
	binary.BigEndian.PutUint16(p[1:], uint16(f.Info))
	binary.BigEndian.PutUint16(p[3:], f.KeyLength)
	binary.BigEndian.PutUint64(p[5:], f.ReplayCounter)
	copy(p[13:45], f.Nonce[:])
	copy(p[45:61], f.IV[:])
	copy(p[61:69], f.RSC[:])
	copy(p[69:77], f.Reserved[:])
	copy(p[77:], f.MIC)
	q := p[77+len(f.MIC):]
	binary.BigEndian.PutUint16(q, uint16(len(f.KeyData)))
	copy(q[2:], f.KeyData)
	return b, nil
}

// MICOffset returns the offset of the Key MIC field in a marshaled frame.
func MICOffset() int { return HeaderSize + 77 }

// Unmarshal decodes an EAPOL-Key frame whose Key MIC field is micLen
// octets long (0, 16, 24 or 32). The frame must be exactly as long as its
// Packet Body Length says, and its Key Data exactly Key Data Length long.
// The returned frame does not alias b.
func Unmarshal(b []byte, micLen int) (*Frame, error) {
	switch micLen {
	case 0, 16, 24, 32:
	default:
		return nil, fmt.Errorf("%w: MIC length %d", ErrFrame, micLen)
	}
	if len(b) < HeaderSize {
		return nil, fmt.Errorf("%w: %d octets, no EAPOL header", ErrFrame, len(b))
	}
	if b[1] != PacketTypeKey {
		return nil, fmt.Errorf("%w: packet type %d is not EAPOL-Key", ErrFrame, b[1])
	}
	if body := int(binary.BigEndian.Uint16(b[2:])); body != len(b)-HeaderSize {
		return nil, fmt.Errorf("%w: body length %d, %d octets follow", ErrFrame, body, len(b)-HeaderSize)
	}
	p := b[HeaderSize:]
	if len(p) < fixedBodySize+micLen+2 {
		return nil, fmt.Errorf("%w: body of %d octets is truncated", ErrFrame, len(p))
	}
	f := &Frame{
		ProtocolVersion: b[0],
		DescriptorType:  p[0],
		Info:            KeyInfo(binary.BigEndian.Uint16(p[1:])),
		KeyLength:       binary.BigEndian.Uint16(p[3:]),
		ReplayCounter:   binary.BigEndian.Uint64(p[5:]),
		MIC:             append([]byte{}, p[77:77+micLen]...),
	}
	copy(f.Nonce[:], p[13:45])
	copy(f.IV[:], p[45:61])
	copy(f.RSC[:], p[61:69])
	copy(f.Reserved[:], p[69:77])
	q := p[77+micLen:]
	n := int(binary.BigEndian.Uint16(q))
	if n != len(q)-2 {
		return nil, fmt.Errorf("%w: key data length %d, %d octets follow", ErrFrame, n, len(q)-2)
	}
	f.KeyData = append([]byte{}, q[2:]...)
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}
