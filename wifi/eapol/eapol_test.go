package eapol

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// capturedMsg2 is message 2 of a captured WPA2-PSK/CCMP handshake with its
// MIC field zeroed (../keys/testdata/capture.json, from aircrack-ng's tests).
func capturedMsg2(t testing.TB) []byte {
	b, err := os.ReadFile("../keys/testdata/capture.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Frame string }
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	f, err := hex.DecodeString(c.Frame)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCapturedFrame(t *testing.T) {
	raw := capturedMsg2(t)
	f, err := Unmarshal(raw, 16)
	if err != nil {
		t.Fatal(err)
	}
	if f.ProtocolVersion != 1 || f.DescriptorType != DescriptorRSN || f.Info != Pairwise|MIC|VersionHMACSHA1 ||
		f.KeyLength != 16 || f.ReplayCounter != 1 || f.Nonce[0] != 0x59 || f.Nonce[31] != 0x70 || len(f.KeyData) != 22 {
		t.Fatalf("parsed %+v", f)
	}
	kd, err := ParseKeyData(f.KeyData)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRSNE(kd.RSNE)
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != 1 || r.Group != 0x000fac04 || len(r.Pairwise) != 1 || r.Pairwise[0] != 0x000fac04 ||
		len(r.AKM) != 1 || r.AKM[0] != 0x000fac02 || r.Capabilities != 1 {
		t.Fatalf("RSNE %+v", r)
	}
	back, err := f.Marshal()
	if err != nil || !bytes.Equal(back, raw) {
		t.Fatalf("re-marshal differs: %v", err)
	}
	rb, _ := r.Marshal()
	if !bytes.Equal(rb, kd.RSNE) {
		t.Fatalf("RSNE re-marshal %x", rb)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, mic := range []int{0, 16, 24, 32} {
		g := &GTK{KeyID: 2, Tx: true, Key: bytes.Repeat([]byte{0xaa}, 32)}
		kd := KeyData{RSNE: []byte{48, 20, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 8, 0, 0},
			GTK: g, PMKID: bytes.Repeat([]byte{1}, 16)}
		data, err := kd.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		f := &Frame{ProtocolVersion: 2, DescriptorType: DescriptorRSN, Info: Pairwise | Install | Ack | MIC | Secure | EncryptedKeyData | VersionAESCMAC,
			KeyLength: 16, ReplayCounter: 1<<40 + 3, MIC: bytes.Repeat([]byte{5}, mic), KeyData: Pad(data)}
		f.Nonce[3], f.RSC[1] = 9, 4
		b, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != f.Size() || len(b) != 4+77+mic+2+len(f.KeyData) {
			t.Fatalf("size %d", len(b))
		}
		g2, err := Unmarshal(b, mic)
		if err != nil {
			t.Fatal(err)
		}
		b2, _ := g2.Marshal()
		if !bytes.Equal(b, b2) {
			t.Fatal("round trip differs")
		}
		kd2, err := ParseKeyData(g2.KeyData)
		if err != nil || !bytes.Equal(kd2.RSNE, kd.RSNE) || kd2.GTK.KeyID != 2 || !kd2.GTK.Tx ||
			!bytes.Equal(kd2.GTK.Key, g.Key) || !bytes.Equal(kd2.PMKID, kd.PMKID) {
			t.Fatalf("key data round trip: %+v, %v", kd2, err)
		}
	}
}

func TestFrameErrors(t *testing.T) {
	raw := capturedMsg2(t)
	mod := func(i int, v byte) []byte { b := bytes.Clone(raw); b[i] = v; return b }
	cases := map[string][]byte{
		"empty":              nil,
		"truncated":          raw[:60],
		"trailing octet":     append(bytes.Clone(raw), 0),
		"packet type":        mod(1, 0),
		"protocol version 0": mod(0, 0),
		"protocol version 4": mod(0, 4),
		"body length":        mod(3, 0x74),
		"descriptor type":    mod(4, 1),
		"version 4":          mod(6, 0x0c),
		"reserved bits":      mod(5, 0x41),
		"install on group":   mod(6, 0x42),
		"ack and request":    func() []byte { b := mod(5, 0x09); b[6] = 0x8a; return b }(),
		"key data length":    mod(98, 0x17),
	}
	for name, b := range cases {
		if _, err := Unmarshal(b, 16); !errors.Is(err, ErrFrame) || !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Unmarshal(raw, 17); !errors.Is(err, ErrFrame) {
		t.Errorf("MIC length 17: %v", err)
	}
	if _, err := Unmarshal(raw, 24); !errors.Is(err, ErrFrame) {
		t.Errorf("wrong MIC length: %v", err)
	}
	wpa := &Frame{ProtocolVersion: 1, DescriptorType: DescriptorWPA, Info: Pairwise | EncryptedKeyData | MIC | VersionHMACSHA1, MIC: make([]byte, 16)}
	if _, err := wpa.Marshal(); !errors.Is(err, ErrFrame) {
		t.Errorf("WPA with encrypted key data: %v", err)
	}
	wpa.Info = Pairwise | VersionHMACSHA1
	if _, err := wpa.Marshal(); err != nil {
		t.Errorf("plain WPA descriptor: %v", err)
	}
	f := &Frame{ProtocolVersion: 2, DescriptorType: DescriptorRSN, Info: Pairwise | EncryptedKeyData, MIC: make([]byte, 16)}
	if _, err := f.Marshal(); !errors.Is(err, ErrFrame) {
		t.Errorf("encrypted key data without MIC: %v", err)
	}
}

func TestKeyDataErrors(t *testing.T) {
	for name, b := range map[string][]byte{
		"truncated":    {48, 20, 1},
		"bad RSNE":     {48, 2, 2, 0},
		"no pairwise":  {48, 8, 1, 0, 0, 0x0f, 0xac, 4, 0, 0},
		"padding":      {0xdd, 0, 1},
		"short GTK":    {0xdd, 5, 0, 0x0f, 0xac, 1, 0},
		"two GTK KDEs": {0xdd, 7, 0, 0x0f, 0xac, 1, 1, 0, 9, 0xdd, 7, 0, 0x0f, 0xac, 1, 1, 0, 9},
		"bad PMKID":    {0xdd, 5, 0, 0x0f, 0xac, 4, 1},
	} {
		if _, err := ParseKeyData(b); !errors.Is(err, ErrKeyData) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Unknown elements are skipped; padding ends the data.
	kd, err := ParseKeyData([]byte{221, 3, 1, 2, 3, 0xdd, 0, 0, 0})
	if err != nil || kd.RSNE != nil || kd.GTK != nil {
		t.Errorf("unknown element and padding: %+v, %v", kd, err)
	}
	for n := 0; n <= 24; n++ {
		p := Pad(make([]byte, n))
		if len(p) < 16 || len(p)%8 != 0 || (n >= 16 && n%8 == 0 && len(p) != n) {
			t.Errorf("Pad(%d) = %d octets", n, len(p))
		}
		if len(p) != n && p[n] != 0xdd {
			t.Errorf("Pad(%d) does not start with 0xdd", n)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	f.Add(capturedMsg2(f), 16)
	f.Add([]byte{2, 3, 0, 0}, 24)
	f.Fuzz(func(t *testing.T, b []byte, mic int) {
		fr, err := Unmarshal(b, mic)
		if err != nil {
			return
		}
		out, err := fr.Marshal()
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("accepted frame does not re-marshal: %v", err)
		}
	})
}

func FuzzParseKeyData(f *testing.F) {
	f.Add([]byte{48, 20, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 2, 1, 0})
	f.Add([]byte{0xdd, 22, 0, 0x0f, 0xac, 1, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0xdd, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		kd, err := ParseKeyData(b)
		if err != nil {
			return
		}
		if kd.RSNE != nil {
			if _, err := ParseRSNE(kd.RSNE); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := kd.Marshal(); err != nil && kd.GTK != nil && len(kd.GTK.Key) > 0 {
			t.Fatalf("parsed key data does not marshal: %v", err)
		}
	})
}
