package lwc

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKDFInput checks the mapping of the package documentation octet by
// octet on inputs where every field is recognisable.
func TestKDFInput(t *testing.T) {
	pmk := unhex(t, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	aa := [6]byte{0xa0, 1, 2, 3, 4, 5}
	spa := [6]byte{0x50, 1, 2, 3, 4, 5}
	anonce := bytes.Repeat([]byte{0xee}, 32)
	snonce := unhex(t, "1111111111111111222222222222222233333333333333334444444444444444")
	key, nonce, msg, err := KDFInput(pmk, aa, spa, anonce, snonce)
	if err != nil {
		t.Fatal(err)
	}
	// SNonce < ANonce and SPA < AA, so SNonce and SPA come first.
	wantKey := "000102030405060708090a0b0c0d0e0f"
	wantNonce := "1111111111111111" + "eeeeeeeeeeeeeeee"
	wantMsg := "101112131415161718191a1b1c1d1e1f" + "500102030405" + "a00102030405" +
		"2222222222222222" + "eeeeeeeeeeeeeeee" + "4c574300"
	if hex.EncodeToString(key) != wantKey || hex.EncodeToString(nonce) != wantNonce || hex.EncodeToString(msg) != wantMsg {
		t.Errorf("KDFInput:\nkey   %x\nnonce %x\nmsg   %x", key, nonce, msg)
	}
	if len(msg) != PTKSize || len(msg)%8 != 0 || len(msg)/8 != 6 {
		t.Errorf("message is %d octets, want six 64-bit blocks", len(msg))
	}
	// The two stations call it with the roles swapped and get the same.
	k2, n2, m2, _ := KDFInput(pmk, spa, aa, snonce, anonce)
	if !bytes.Equal(k2, key) || !bytes.Equal(n2, nonce) || !bytes.Equal(m2, msg) {
		t.Error("KDFInput depends on the order of the stations")
	}
	for _, bad := range [][3][]byte{{pmk[:31], anonce, snonce}, {pmk, anonce[:31], snonce}, {pmk, anonce, nil}} {
		if _, _, _, err := KDFInput(bad[0], aa, spa, bad[1], bad[2]); !errors.Is(err, ErrInput) {
			t.Errorf("short input: %v, want ErrInput", err)
		}
	}
}

func TestKDFAndMIC(t *testing.T) {
	pmk := bytes.Repeat([]byte{7}, 32)
	aa, spa := [6]byte{2, 0, 0, 0, 0, 1}, [6]byte{2, 0, 0, 0, 0, 2}
	an, sn := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	frame := bytes.Repeat([]byte{0x5a}, 121)
	for _, c := range Ciphers() {
		t.Run(c.Name, func(t *testing.T) {
			ptk, err := c.KDF(pmk, aa, spa, an, sn)
			if err != nil || len(ptk) != PTKSize {
				t.Fatalf("KDF: %d octets, %v", len(ptk), err)
			}
			// It is the AEAD's ciphertext of KDFInput's message, tag dropped.
			key, nonce, msg, _ := KDFInput(pmk, aa, spa, an, sn)
			aead, _ := c.New(key)
			ct := aead.Seal(nil, nonce, msg, nil)
			if !bytes.Equal(ptk, ct[:PTKSize]) || len(ct) != PTKSize+TagSize {
				t.Error("KDF is not the ciphertext of the mapped message")
			}
			if same, _ := c.KDF(pmk, spa, aa, sn, an); !bytes.Equal(same, ptk) {
				t.Error("the stations derive different keys")
			}
			an2 := bytes.Clone(an)
			an2[31] ^= 1 // a bit the KDF does not use (bits 128–255)
			an3 := bytes.Clone(an)
			an3[0] ^= 1
			if other, _ := c.KDF(pmk, aa, spa, an3, sn); bytes.Equal(other, ptk) {
				t.Error("a new nonce gives the same keys")
			}
			if other, _ := c.KDF(pmk, aa, spa, an2, sn); !bytes.Equal(other, ptk) {
				t.Error("nonce bits 128–255 changed the keys: the documented mapping is not what runs")
			}
			mic, err := c.MIC(ptk[:16], frame)
			if err != nil || len(mic) != TagSize {
				t.Fatalf("MIC: %x, %v", mic, err)
			}
			if a, _ := c.New(ptk[:16]); !bytes.Equal(a.Seal(nil, make([]byte, NonceSize), nil, frame), mic) {
				t.Error("MIC is not the tag over the frame as associated data")
			}
			f2 := bytes.Clone(frame)
			f2[100] ^= 0x80
			if m2, _ := c.MIC(ptk[:16], f2); bytes.Equal(m2, mic) {
				t.Error("MIC does not cover the frame")
			}
			if _, err := c.MIC(ptk[:15], frame); !errors.Is(err, ErrInput) {
				t.Errorf("short KCK: %v", err)
			}
		})
	}
}

func TestByName(t *testing.T) {
	for _, n := range []string{"ace", "spix", "wage", "ascon"} {
		if c, err := ByName(n); err != nil || c.Name != n {
			t.Errorf("ByName(%q) = %v, %v", n, c.Name, err)
		}
	}
	if _, err := ByName("aes"); !errors.Is(err, ErrInput) {
		t.Errorf("ByName(aes) = %v", err)
	}
}
