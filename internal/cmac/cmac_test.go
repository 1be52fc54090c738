package cmac

import (
	"bytes"
	"crypto/aes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"testing"

	"github.com/kexlab/kexlab/internal/testvec"
)

var _ hash.Hash = (*MAC)(nil)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type rfc4493File struct {
	Key      string            `json:"key"`
	Subkeys  map[string]string `json:"subkeys"`
	Examples []struct {
		Name, Msg, Tag string
	} `json:"examples"`
}

func readRFC4493(t testing.TB) rfc4493File {
	t.Helper()
	b, err := os.ReadFile("testdata/rfc4493.json")
	if err != nil {
		t.Fatal(err)
	}
	var f rfc4493File
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Examples) != 4 || len(f.Subkeys) != 3 {
		t.Fatalf("testdata/rfc4493.json: %d examples, %d subkeys", len(f.Examples), len(f.Subkeys))
	}
	return f
}

// TestRFC4493 checks the subkeys and the four examples of RFC 4493 §4.
func TestRFC4493(t *testing.T) {
	f := readRFC4493(t)
	key := unhex(t, f.Key)
	m, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := aes.NewCipher(key)
	var l [16]byte
	b.Encrypt(l[:], l[:])
	for name, got := range map[string][]byte{"AES-128(key,0)": l[:], "K1": m.k1[:], "K2": m.k2[:]} {
		if want := unhex(t, f.Subkeys[name]); !bytes.Equal(got, want) {
			t.Errorf("%s = %x, want %x", name, got, want)
		}
	}
	for _, ex := range f.Examples {
		msg, want := unhex(t, ex.Msg), unhex(t, ex.Tag)
		got, err := Sum(key, msg)
		if err != nil || !bytes.Equal(got[:], want) {
			t.Errorf("%s: Sum = %x, %v; want %x", ex.Name, got, err, want)
		}
		if !Verify(key, msg, want) || !Verify(key, msg, want[:8]) {
			t.Errorf("%s: Verify rejects the tag", ex.Name)
		}
		bad := bytes.Clone(want)
		bad[15] ^= 1
		if Verify(key, msg, bad) {
			t.Errorf("%s: Verify accepts a modified tag", ex.Name)
		}
	}
}

// TestWycheproof runs every case of Wycheproof's aes_cmac_test.json: valid
// tags must be computed and verified, modified tags rejected, and keys of
// invalid sizes refused.
func TestWycheproof(t *testing.T) {
	var f struct {
		NumberOfTests int `json:"numberOfTests"`
		TestGroups    []struct {
			KeySize int `json:"keySize"`
			TagSize int `json:"tagSize"`
			Tests   []struct {
				TcID   int      `json:"tcId"`
				Key    string   `json:"key"`
				Msg    string   `json:"msg"`
				Tag    string   `json:"tag"`
				Result string   `json:"result"`
				Flags  []string `json:"flags"`
			} `json:"tests"`
		} `json:"testGroups"`
	}
	testvec.JSON(t, "wycheproof/aes_cmac_test.json", &f)
	n := 0
	for _, g := range f.TestGroups {
		for _, tc := range g.Tests {
			n++
			key, msg, tag := unhex(t, tc.Key), unhex(t, tc.Msg), unhex(t, tc.Tag)
			name := fmt.Sprintf("tcId %d (%v)", tc.TcID, tc.Flags)
			if len(tag)*8 != g.TagSize && tc.Result == "valid" {
				t.Fatalf("%s: tag of %d bytes in a group of %d-bit tags", name, len(tag), g.TagSize)
			}
			got, err := Sum(key, msg)
			switch tc.Result {
			case "valid":
				if err != nil || !bytes.Equal(got[:], tag) {
					t.Errorf("%s: Sum = %x, %v; want %x", name, got, err, tag)
				}
				if !Verify(key, msg, tag) {
					t.Errorf("%s: Verify rejects a valid tag", name)
				}
			case "invalid":
				if Verify(key, msg, tag) {
					t.Errorf("%s: Verify accepts an invalid case", name)
				}
				if g.KeySize != 128 && g.KeySize != 192 && g.KeySize != 256 {
					if _, err := New(key); err == nil {
						t.Errorf("%s: New accepted a %d-bit key", name, g.KeySize)
					}
					if err == nil {
						t.Errorf("%s: Sum accepted a %d-bit key", name, g.KeySize)
					}
				}
			default:
				t.Errorf("%s: unexpected result %q", name, tc.Result)
			}
		}
	}
	if n != f.NumberOfTests || n == 0 {
		t.Errorf("ran %d cases, the file declares %d", n, f.NumberOfTests)
	}
}

// TestIncremental checks that any split of the input across Write calls,
// Sum in the middle, and Reset give the one-shot tag (RFC 4493 Example 4
// message, every prefix).
func TestIncremental(t *testing.T) {
	f := readRFC4493(t)
	key, msg := unhex(t, f.Key), unhex(t, f.Examples[3].Msg)
	m, _ := New(key)
	for n := 0; n <= len(msg); n++ {
		want, _ := Sum(key, msg[:n])
		for split := 0; split <= n; split++ {
			m.Reset()
			m.Write(msg[:split])
			mid := m.Sum(nil)
			m.Write(msg[split:n])
			if got := m.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("len %d split %d: %x, want %x", n, split, got, want)
			}
			if again := m.Sum([]byte{0xaa}); again[0] != 0xaa || !bytes.Equal(again[1:], want[:]) {
				t.Fatalf("Sum changed the state or ignored its argument")
			}
			if wantMid, _ := Sum(key, msg[:split]); !bytes.Equal(mid, wantMid[:]) {
				t.Fatalf("Sum in the middle: %x, want %x", mid, wantMid)
			}
		}
	}
	if m.Size() != 16 || m.BlockSize() != 16 {
		t.Error("Size or BlockSize is not 16")
	}
}

// TestPaddingIsOneThenZeros: the 10* padding makes a message and the same
// message with a zero byte appended different, and a complete last block
// uses K1, not padding.
func TestPaddingIsOneThenZeros(t *testing.T) {
	key := make([]byte, 16)
	for n := 0; n < 48; n++ {
		a, _ := Sum(key, make([]byte, n))
		b, _ := Sum(key, make([]byte, n+1))
		if a == b {
			t.Errorf("zero messages of %d and %d bytes have the same tag", n, n+1)
		}
		p := append(make([]byte, n), 0x80)
		c, _ := Sum(key, p)
		if n%16 != 15 && a == c {
			t.Errorf("len %d: explicit 10* padding gives the same tag as the short message", n)
		}
	}
}

func TestVerifyTagLengths(t *testing.T) {
	key := make([]byte, 16)
	tag, _ := Sum(key, []byte("m"))
	for n := 0; n <= 17; n++ {
		tg := append(tag[:], 0)[:n]
		want := n >= MinTagSize && n <= Size
		if got := Verify(key, []byte("m"), tg); got != want {
			t.Errorf("Verify with a %d-byte tag = %v, want %v", n, got, want)
		}
	}
	if Verify(make([]byte, 15), nil, tag[:]) {
		t.Error("Verify with a 15-byte key accepted")
	}
}

// FuzzCMAC checks on any input that Write in two pieces equals the
// one-shot Sum, and that Verify accepts the result and rejects a change.
func FuzzCMAC(f *testing.F) {
	f.Add([]byte("2b7e151628aed2a6abf7158809cf4f3c"), []byte{}, 0)
	f.Add(make([]byte, 32), bytes.Repeat([]byte{1}, 33), 17)
	f.Fuzz(func(t *testing.T, key, msg []byte, split int) {
		want, err := Sum(key, msg)
		if err != nil {
			if l := len(key); l == 16 || l == 24 || l == 32 {
				t.Fatalf("key of %d bytes refused: %v", l, err)
			}
			return
		}
		if split < 0 {
			split = -split
		}
		split %= len(msg) + 1
		m, _ := New(key)
		m.Write(msg[:split])
		m.Write(msg[split:])
		if got := m.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("split write: %x, want %x", got, want)
		}
		if !Verify(key, msg, want[:]) {
			t.Fatal("Verify rejects Sum's tag")
		}
		want[0] ^= 1
		if Verify(key, msg, want[:]) {
			t.Fatal("Verify accepts a modified tag")
		}
	})
}

func BenchmarkSum(b *testing.B) {
	key := make([]byte, 16)
	for _, n := range []int{79, 1024} {
		msg := make([]byte, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				Sum(key, msg)
			}
		})
	}
}
