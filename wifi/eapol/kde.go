package eapol

import (
	"encoding/binary"
	"fmt"
)

// Element IDs and KDE selectors (§9.4.2.24, §12.7.2 Table 12-9).
const (
	ElementRSN    = 48   // RSN element
	ElementVendor = 0xdd // vendor-specific element; also the KDE type
	KDEGTK        = 1    // GTK KDE data type
	KDEPMKID      = 4    // PMKID KDE data type
)

// OUI is the IEEE 802.11 OUI 00-0F-AC used by cipher and AKM suite
// selectors and by KDEs.
var OUI = [3]byte{0x00, 0x0f, 0xac}

// Suite is a cipher or AKM suite selector: OUI || suite type, as a
// big-endian integer (e.g. 0x000fac04 for CCMP-128).
type Suite uint32

// RSNE is the body of an RSN element (§9.4.2.24.1). Version 1 is the only
// one defined. The optional trailing fields after the RSN Capabilities
// (PMKID list, group management cipher) are kept only as PMKIDs.
type RSNE struct {
	Version      uint16
	Group        Suite
	Pairwise     []Suite
	AKM          []Suite
	Capabilities uint16
	PMKIDs       [][16]byte
}

// Marshal returns the whole element: ID 48, length, body.
func (r *RSNE) Marshal() ([]byte, error) {
	b := []byte{ElementRSN, 0}
	b = binary.LittleEndian.AppendUint16(b, r.Version)
	b = binary.BigEndian.AppendUint32(b, uint32(r.Group))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.Pairwise)))
	for _, s := range r.Pairwise {
		b = binary.BigEndian.AppendUint32(b, uint32(s))
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.AKM)))
	for _, s := range r.AKM {
		b = binary.BigEndian.AppendUint32(b, uint32(s))
	}
	b = binary.LittleEndian.AppendUint16(b, r.Capabilities)
	if len(r.PMKIDs) > 0 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(r.PMKIDs)))
		for _, id := range r.PMKIDs {
			b = append(b, id[:]...)
		}
	}
	if len(b)-2 > 255 {
		return nil, fmt.Errorf("%w: RSN element body of %d octets", ErrKeyData, len(b)-2)
	}
	b[1] = byte(len(b) - 2)
	return b, nil
}

// ParseRSNE parses a whole RSN element (ID, length, body). It requires
// version 1, the group cipher, at least one pairwise cipher and AKM, and
// the capabilities; it ignores a group management cipher after the PMKIDs.
func ParseRSNE(b []byte) (*RSNE, error) {
	if len(b) < 2 || b[0] != ElementRSN || int(b[1]) != len(b)-2 {
		return nil, fmt.Errorf("%w: not an RSN element", ErrKeyData)
	}
	p := b[2:]
	take := func(n int) ([]byte, bool) {
		if len(p) < n {
			return nil, false
		}
		x := p[:n]
		p = p[n:]
		return x, true
	}
	r := &RSNE{}
	bad := fmt.Errorf("%w: truncated RSN element", ErrKeyData)
	x, ok := take(2 + 4 + 2)
	if !ok {
		return nil, bad
	}
	r.Version = binary.LittleEndian.Uint16(x)
	if r.Version != 1 {
		return nil, fmt.Errorf("%w: RSN version %d", ErrKeyData, r.Version)
	}
	r.Group = Suite(binary.BigEndian.Uint32(x[2:]))
	suites := func(n int) ([]Suite, bool) {
		if n == 0 || len(p) < 4*n {
			return nil, false
		}
		s := make([]Suite, n)
		for i := range s {
			x, _ := take(4)
			s[i] = Suite(binary.BigEndian.Uint32(x))
		}
		return s, true
	}
	if r.Pairwise, ok = suites(int(binary.LittleEndian.Uint16(x[6:]))); !ok {
		return nil, bad
	}
	if x, ok = take(2); !ok {
		return nil, bad
	}
	if r.AKM, ok = suites(int(binary.LittleEndian.Uint16(x))); !ok {
		return nil, bad
	}
	if x, ok = take(2); !ok {
		return nil, bad
	}
	r.Capabilities = binary.LittleEndian.Uint16(x)
	if len(p) >= 2 {
		x, _ = take(2)
		n := int(binary.LittleEndian.Uint16(x))
		if len(p) < 16*n {
			return nil, bad
		}
		for range n {
			x, _ = take(16)
			r.PMKIDs = append(r.PMKIDs, [16]byte(x))
		}
	}
	return r, nil
}

// GTK is the content of a GTK KDE (§12.7.2, Figure 12-36).
type GTK struct {
	KeyID int  // 0..3
	Tx    bool // transmit the GTK as well as receive it
	Key   []byte
}

// KeyData is the decoded Key Data field of a 4-way handshake message: an
// RSN element, a GTK KDE and a PMKID KDE, each optional. Unknown elements
// and KDEs are skipped, as §12.7.2 requires.
type KeyData struct {
	RSNE  []byte // the whole RSN element, as sent
	GTK   *GTK
	PMKID []byte
}

// kde appends one KDE: 0xdd, length, OUI, data type, data.
func kde(b []byte, typ byte, data []byte) []byte {
	b = append(b, ElementVendor, byte(4+len(data)))
	b = append(b, OUI[:]...)
	b = append(b, typ)
	return append(b, data...)
}

// Marshal encodes the key data: RSN element, then PMKID KDE, then GTK KDE.
func (k *KeyData) Marshal() ([]byte, error) {
	var b []byte
	if k.RSNE != nil {
		if _, err := ParseRSNE(k.RSNE); err != nil {
			return nil, err
		}
		b = append(b, k.RSNE...)
	}
	if k.PMKID != nil {
		if len(k.PMKID) != 16 {
			return nil, fmt.Errorf("%w: PMKID of %d octets", ErrKeyData, len(k.PMKID))
		}
		b = kde(b, KDEPMKID, k.PMKID)
	}
	if g := k.GTK; g != nil {
		if g.KeyID < 0 || g.KeyID > 3 || len(g.Key) == 0 || len(g.Key) > 255-6 {
			return nil, fmt.Errorf("%w: GTK key ID %d, %d octets", ErrKeyData, g.KeyID, len(g.Key))
		}
		flags := byte(g.KeyID)
		if g.Tx {
			flags |= 1 << 2
		}
		b = kde(b, KDEGTK, append([]byte{flags, 0}, g.Key...))
	}
	return b, nil
}

// ParseKeyData decodes key data. Padding (0xdd followed by zero or more
// zero octets up to the end, §12.7.2) ends the parse; duplicate RSN
// elements, GTK or PMKID KDEs are rejected.
func ParseKeyData(b []byte) (*KeyData, error) {
	k := &KeyData{}
	for len(b) > 0 {
		if b[0] == ElementVendor && (len(b) == 1 || b[1] == 0) {
			for _, c := range b[1:] {
				if c != 0 {
					return nil, fmt.Errorf("%w: non-zero padding", ErrKeyData)
				}
			}
			break
		}
		if len(b) < 2 || len(b) < 2+int(b[1]) {
			return nil, fmt.Errorf("%w: truncated element", ErrKeyData)
		}
		el, body := b[:2+int(b[1])], b[2:2+int(b[1])]
		b = b[len(el):]
		switch {
		case el[0] == ElementRSN:
			if k.RSNE != nil {
				return nil, fmt.Errorf("%w: two RSN elements", ErrKeyData)
			}
			if _, err := ParseRSNE(el); err != nil {
				return nil, err
			}
			k.RSNE = append([]byte{}, el...)
		case el[0] == ElementVendor && len(body) >= 4 && [3]byte(body[:3]) == OUI:
			data := body[4:]
			switch body[3] {
			case KDEGTK:
				if k.GTK != nil || len(data) < 3 {
					return nil, fmt.Errorf("%w: bad or repeated GTK KDE", ErrKeyData)
				}
				k.GTK = &GTK{KeyID: int(data[0] & 3), Tx: data[0]&4 != 0, Key: append([]byte{}, data[2:]...)}
			case KDEPMKID:
				if k.PMKID != nil || len(data) != 16 {
					return nil, fmt.Errorf("%w: bad or repeated PMKID KDE", ErrKeyData)
				}
				k.PMKID = append([]byte{}, data...)
			}
		}
	}
	return k, nil
}

// Pad pads key data for AES key wrap (§12.7.2): if it is shorter than 16
// octets or not a multiple of 8, append 0xdd and then zeros up to the next
// multiple of 8, at least 16 octets in all.
func Pad(b []byte) []byte {
	if len(b) >= 16 && len(b)%8 == 0 {
		return append([]byte{}, b...)
	}
	n := max(16, (len(b)+1+7)&^7)
	out := make([]byte, n)
	copy(out, b)
	out[len(b)] = ElementVendor
	return out
}
