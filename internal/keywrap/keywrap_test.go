package keywrap

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRFC3394 checks the test vectors of RFC 3394 §4.
func TestRFC3394(t *testing.T) {
	f, err := os.Open("testdata/rfc3394.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Fields(line)
		kek, pt, ct := unhex(t, fs[1]), unhex(t, fs[2]), unhex(t, fs[3])
		got, err := Wrap(kek, pt)
		if err != nil || !bytes.Equal(got, ct) {
			t.Errorf("§%s: Wrap = %x, %v; want %x", fs[0], got, err, ct)
		}
		back, err := Unwrap(kek, ct)
		if err != nil || !bytes.Equal(back, pt) {
			t.Errorf("§%s: Unwrap = %x, %v; want %x", fs[0], back, err, pt)
		}
		for i := range ct {
			bad := bytes.Clone(ct)
			bad[i] ^= 0x01
			if p, err := Unwrap(kek, bad); !errors.Is(err, ErrIntegrity) || p != nil {
				t.Errorf("§%s: flipped octet %d: Unwrap = %x, %v", fs[0], i, p, err)
			}
		}
		n++
	}
	if n != 6 {
		t.Fatalf("read %d vectors, want 6", n)
	}
}

type wycheproofKWP struct {
	TestGroups []struct {
		KeySize int `json:"keySize"`
		Tests   []struct {
			TcID    int      `json:"tcId"`
			Comment string   `json:"comment"`
			Key     string   `json:"key"`
			Msg     string   `json:"msg"`
			Ct      string   `json:"ct"`
			Result  string   `json:"result"`
			Flags   []string `json:"flags"`
		} `json:"tests"`
	} `json:"testGroups"`
}

// TestWycheproofKWP runs every case of Wycheproof aes_kwp_test.json: valid
// cases must wrap to ct and unwrap back; invalid ones must not unwrap.
func TestWycheproofKWP(t *testing.T) {
	var v wycheproofKWP
	testvec.JSON(t, "wycheproof/aes_kwp_test.json", &v)
	valid, invalid := 0, 0
	for _, g := range v.TestGroups {
		for _, tc := range g.Tests {
			key, msg, ct := unhex(t, tc.Key), unhex(t, tc.Msg), unhex(t, tc.Ct)
			got, err := UnwrapPad(key, ct)
			switch tc.Result {
			case "valid":
				valid++
				if err != nil || !bytes.Equal(got, msg) {
					t.Errorf("tc %d (%s): UnwrapPad = %x, %v; want %x", tc.TcID, tc.Comment, got, err, msg)
				}
				w, err := WrapPad(key, msg)
				if err != nil || !bytes.Equal(w, ct) {
					t.Errorf("tc %d (%s): WrapPad = %x, %v; want %x", tc.TcID, tc.Comment, w, err, ct)
				}
			case "invalid":
				invalid++
				if err == nil || got != nil {
					t.Errorf("tc %d (%s): UnwrapPad accepted: %x", tc.TcID, tc.Comment, got)
				}
				if !errors.Is(err, ErrIntegrity) && !errors.Is(err, ErrLength) {
					t.Errorf("tc %d: error %v is not typed", tc.TcID, err)
				}
			default:
				t.Fatalf("tc %d: unexpected result %q", tc.TcID, tc.Result)
			}
		}
	}
	if valid+invalid != 254 {
		t.Fatalf("ran %d cases, want 254", valid+invalid)
	}
}

func TestLengthsAndKeys(t *testing.T) {
	kek := make([]byte, 16)
	for _, n := range []int{0, 8, 15, 17} {
		if _, err := Wrap(kek, make([]byte, n)); !errors.Is(err, ErrLength) || !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("Wrap(%d octets): %v", n, err)
		}
	}
	for _, n := range []int{0, 8, 16, 23, 25} {
		if _, err := Unwrap(kek, make([]byte, n)); !errors.Is(err, ErrLength) {
			t.Errorf("Unwrap(%d octets): %v", n, err)
		}
	}
	for _, n := range []int{0, 8, 15, 17} {
		if _, err := UnwrapPad(kek, make([]byte, n)); !errors.Is(err, ErrLength) {
			t.Errorf("UnwrapPad(%d octets): %v", n, err)
		}
	}
	if _, err := WrapPad(kek, nil); !errors.Is(err, ErrLength) {
		t.Errorf("WrapPad(empty): %v", err)
	}
	if _, err := Wrap(make([]byte, 15), make([]byte, 16)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("Wrap with a 15-octet key: %v", err)
	}
	if _, err := Unwrap(kek, make([]byte, 24)); !errors.Is(err, ErrIntegrity) || !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("Unwrap(zeros): %v", err)
	}
}

// TestPadRoundTrip wraps every length from 1 to 40 and checks the KWP
// ciphertext length of RFC 5649 §4.1.
func TestPadRoundTrip(t *testing.T) {
	kek := []byte("0123456789abcdef01234567")
	for n := 1; n <= 40; n++ {
		p := bytes.Repeat([]byte{byte(n)}, n)
		c, err := WrapPad(kek, p)
		if err != nil {
			t.Fatal(err)
		}
		if want := 8 + (n+7)/8*8; len(c) != want {
			t.Errorf("len(WrapPad(%d)) = %d, want %d", n, len(c), want)
		}
		q, err := UnwrapPad(kek, c)
		if err != nil || !bytes.Equal(p, q) {
			t.Errorf("round trip %d: %x, %v", n, q, err)
		}
	}
}

func FuzzUnwrap(f *testing.F) {
	f.Add(make([]byte, 16), unhex(f, "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5"))
	f.Add(make([]byte, 32), make([]byte, 40))
	f.Fuzz(func(t *testing.T, kek, ct []byte) {
		if len(ct) > 1024 {
			return
		}
		p, err := Unwrap(kek, ct)
		if err != nil {
			if p != nil {
				t.Fatal("plaintext returned with an error")
			}
			return
		}
		c, err := Wrap(kek, p)
		if err != nil || !bytes.Equal(c, ct) {
			t.Fatalf("accepted %x does not re-wrap: %x, %v", ct, c, err)
		}
	})
}

func FuzzUnwrapPad(f *testing.F) {
	f.Add(make([]byte, 16), make([]byte, 16))
	f.Add(make([]byte, 24), make([]byte, 32))
	f.Fuzz(func(t *testing.T, kek, ct []byte) {
		if len(ct) > 1024 {
			return
		}
		p, err := UnwrapPad(kek, ct)
		if err != nil {
			if p != nil {
				t.Fatal("plaintext returned with an error")
			}
			return
		}
		c, err := WrapPad(kek, p)
		if err != nil || !bytes.Equal(c, ct) {
			t.Fatalf("accepted %x does not re-wrap: %x, %v", ct, c, err)
		}
	})
}

func BenchmarkWrap16(b *testing.B) {
	kek, p := make([]byte, 16), make([]byte, 16)
	for b.Loop() {
		Wrap(kek, p)
	}
}

func BenchmarkUnwrap32(b *testing.B) {
	kek := make([]byte, 16)
	c, _ := Wrap(kek, make([]byte, 32))
	for b.Loop() {
		Unwrap(kek, c)
	}
}
