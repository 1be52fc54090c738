package oeke

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/kexlab/kexlab/internal/blockkat/blockkattest"
	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

var (
	testSession = Session{ClientID: []byte("client@kexlab"), ServerID: []byte("server.kexlab")}
	suites      = []*Params{MODP3072(), P256()}
)

// testKey derives a password key with one PBKDF2 iteration.
func testKey(t testing.TB, p *Params, pw string) []byte {
	t.Helper()
	k, err := p.DeriveKey([]byte(pw), testSession, 1)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// run drives a whole exchange; hook may modify message i.
func run(t *testing.T, p *Params, kc, ks []byte, hook func(i int, m []byte) []byte) (msgs [3][]byte, c *Client, s *Server, err error) {
	t.Helper()
	c, err = NewClient(rand.Reader, p, kc, testSession)
	if err != nil {
		t.Fatal(err)
	}
	s, err = NewServer(rand.Reader, p, ks, testSession)
	if err != nil {
		t.Fatal(err)
	}
	var in []byte
	for i := 0; i < 3; i++ {
		var party interface{ Next([]byte) ([]byte, error) } = c
		if i == 1 {
			party = s
		}
		if in, err = party.Next(in); err != nil {
			return msgs, c, s, err
		}
		if hook != nil {
			in = hook(i, in)
		}
		msgs[i] = in
	}
	if out, err := s.Next(in); out != nil || err != nil {
		return msgs, c, s, fmt.Errorf("server's last Next = %x, %w", out, err)
	}
	return msgs, c, s, nil
}

func TestHonest(t *testing.T) {
	for _, p := range suites {
		t.Run(p.label, func(t *testing.T) {
			k := testKey(t, p, "pw")
			msgs, c, s, err := run(t, p, k, k, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, n := range []int{p.Message1Size(), p.Message2Size(), p.Message3Size()} {
				if len(msgs[i]) != n {
					t.Errorf("message %d: %d bytes, want %d", i+1, len(msgs[i]), n)
				}
			}
			kc, err1 := c.SessionKey()
			ks, err2 := s.SessionKey()
			if err1 != nil || err2 != nil || !bytes.Equal(kc, ks) || len(kc) != KeySize {
				t.Fatalf("keys %x, %x (%v, %v)", kc, ks, err1, err2)
			}
			if !c.Done() || !s.Done() {
				t.Fatal("not done")
			}
		})
	}
	if n := []int{MODP3072().Message2Size(), P256().Message2Size()}; n[0] != 400 || n[1] != 64 {
		t.Errorf("message 2 sizes %v, want [400 64]", n)
	}
}

func TestWrongPassword(t *testing.T) {
	for _, p := range suites {
		t.Run(p.label, func(t *testing.T) {
			_, _, s, err := run(t, p, testKey(t, p, "wrong"), testKey(t, p, "pw"), nil)
			if !errors.Is(err, pakeerr.ErrAuthFailed) {
				t.Fatalf("wrong password: %v", err)
			}
			if s.Done() {
				t.Fatal("server done with a wrong password")
			}
			if _, err := s.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
				t.Errorf("server key: %v", err)
			}
		})
	}
}

// badElements returns encodings that must be refused as X, and (with the
// right length) as decrypted Y.
func badElements(p *Params) map[string][]byte {
	if p == P256() {
		g := group.NewGenerator().BytesCompressed()
		// x = 1: 1 - 3 + b is not a square mod p.
		offCurve := append([]byte{2}, append(make([]byte, 31), 1)...)
		return map[string][]byte{
			"prefix 04":      append([]byte{4}, g[1:]...),
			"prefix 00":      append([]byte{0}, g[1:]...),
			"x = p":          append([]byte{2}, hexBytes("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")...),
			"x = 1 (off)":    offCurve,
			"uncompressed G": group.NewGenerator().Bytes(),
			"identity":       {0},
			"short":          g[:32],
		}
	}
	pb := new(big.Int).SetBytes(MODP3072().group.(modpGroup).g.P())
	size := p.ElementSize()
	enc := func(x *big.Int) []byte { return x.FillBytes(make([]byte, size)) }
	return map[string][]byte{
		"0":     enc(big.NewInt(0)),
		"1":     enc(big.NewInt(1)),
		"p-1":   enc(new(big.Int).Sub(pb, big.NewInt(1))),
		"p":     enc(pb),
		"2^n-1": bytes.Repeat([]byte{0xff}, size),
		"short": enc(big.NewInt(2))[1:],
		"long":  append([]byte{0}, enc(big.NewInt(2))...),
	}
}

func hexBytes(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestBadElementsAreBad(t *testing.T) {
	p := P256()
	for name, e := range badElements(p) {
		if _, err := group.NewPoint().SetBytes(e); err == nil && name != "uncompressed G" {
			t.Errorf("%s decodes as a point", name)
		}
	}
}

func TestInvalidX(t *testing.T) {
	for _, p := range suites {
		k := testKey(t, p, "pw")
		for name, X := range badElements(p) {
			s, _ := NewServer(rand.Reader, p, k, testSession)
			if out, err := s.Next(X); !errors.Is(err, pakeerr.ErrInvalidMessage) || out != nil {
				t.Errorf("%s: X = %s: %x, %v; want ErrInvalidMessage", p.label, name, out, err)
			}
			if _, err := s.Next(X); !errors.Is(err, pakeerr.ErrState) {
				t.Errorf("%s: X = %s: server reused: %v", p.label, name, err)
			}
		}
		s, _ := NewServer(rand.Reader, p, k, testSession)
		if _, err := s.Next(nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("%s: server.Next(nil): %v", p.label, err)
		}
	}
}

// TestInvalidY encrypts invalid elements under the right key: the client
// must refuse them as it refuses a wrong password, with ErrAuthFailed.
func TestInvalidY(t *testing.T) {
	for _, p := range suites {
		k := testKey(t, p, "pw")
		iv := make([]byte, IVSize)
		for name, Y := range badElements(p) {
			if len(Y) != p.ElementSize() {
				continue
			}
			ct, err := seal(k, iv, Y)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := NewClient(rand.Reader, p, k, testSession)
			c.Next(nil)
			if out, err := c.Next(append(bytes.Clone(iv), ct...)); !errors.Is(err, pakeerr.ErrAuthFailed) || errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Errorf("%s: Y = %s: %x, %v; want ErrAuthFailed only", p.label, name, out, err)
			}
		}
	}
	// P-256: a valid point under a padding other than fifteen 0x0f.
	p := P256()
	k := testKey(t, p, "pw")
	iv := make([]byte, IVSize)
	g := group.NewGenerator().BytesCompressed()
	for name, pt := range map[string][]byte{
		"zero padding":       append(bytes.Clone(g), make([]byte, 15)...),
		"padding 0x01":       append(append(bytes.Clone(g), bytes.Repeat([]byte{1}, 14)...), 1),
		"last byte 0x0f":     append(append(bytes.Clone(g), bytes.Repeat([]byte{0}, 14)...), 15),
		"padding 0x10 (len)": append(bytes.Clone(g[:32]), bytes.Repeat([]byte{16}, 16)...),
	} {
		ct, err := cbcRaw(k, iv, pt, true)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := NewClient(rand.Reader, p, k, testSession)
		c.Next(nil)
		if _, err := c.Next(append(bytes.Clone(iv), ct...)); !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Errorf("%s: %v; want ErrAuthFailed", name, err)
		}
	}
}

func TestTamper(t *testing.T) {
	for _, p := range suites {
		k := testKey(t, p, "pw")
		for i := 0; i < 3; i++ {
			for j, mutate := range []func([]byte) []byte{
				func(m []byte) []byte { m[0] ^= 1; return m },
				func(m []byte) []byte { m[len(m)/2] ^= 0x80; return m },
				func(m []byte) []byte { m[len(m)-1] ^= 1; return m },
				func(m []byte) []byte { return m[:len(m)-1] },
				func(m []byte) []byte { return append(m, 0) },
				func(m []byte) []byte { return []byte{} },
			} {
				_, _, _, err := run(t, p, k, k, func(n int, m []byte) []byte {
					if n == i {
						return mutate(bytes.Clone(m))
					}
					return m
				})
				if !errors.Is(err, pakeerr.ErrInvalidMessage) && !errors.Is(err, pakeerr.ErrAuthFailed) {
					t.Errorf("%s: message %d, mutation %d: %v", p.label, i+1, j, err)
				}
			}
		}
	}
}

func TestState(t *testing.T) {
	for _, p := range suites {
		k := testKey(t, p, "pw")
		c, _ := NewClient(rand.Reader, p, k, testSession)
		if _, err := c.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("client key before the run: %v", err)
		}
		if _, err := c.Next([]byte{1}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("client's first Next with input: %v", err)
		}
		if _, err := c.Next(nil); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("failed client reused: %v", err)
		}
		msgs, c, s, err := run(t, p, k, k, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, party := range []interface{ Next([]byte) ([]byte, error) }{c, s} {
			if _, err := party.Next(msgs[2]); !errors.Is(err, pakeerr.ErrState) {
				t.Errorf("Next after the end: %v", err)
			}
		}
		s, _ = NewServer(rand.Reader, p, k, testSession)
		if _, err := s.Next(msgs[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Next(msgs[0]); !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Errorf("message 1 replayed: %v", err)
		}
	}
}

func TestParameters(t *testing.T) {
	p := P256()
	if _, err := NewClient(rand.Reader, p, make([]byte, 15), testSession); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("short key: %v", err)
	}
	if _, err := NewServer(rand.Reader, nil, make([]byte, 16), testSession); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("no suite: %v", err)
	}
	if _, err := p.DeriveKey(nil, testSession, 1); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("empty password: %v", err)
	}
	if _, err := p.DeriveKey([]byte("pw"), testSession, -1); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("negative iterations: %v", err)
	}
	if _, err := NewClient(bytes.NewReader(nil), p, make([]byte, 16), testSession); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("failing reader: %v", err)
	}
	// The salt separates suites and identity pairs.
	salts := map[string]bool{}
	for _, q := range suites {
		for _, s := range []Session{testSession, {ClientID: testSession.ServerID, ServerID: testSession.ClientID}, {ClientID: []byte("a"), ServerID: []byte("")}, {ClientID: []byte(""), ServerID: []byte("a")}} {
			salts[string(q.Salt(s))] = true
		}
	}
	if len(salts) != 8 {
		t.Errorf("%d distinct salts of 8", len(salts))
	}
}

// TestPartitionAttack demonstrates the weakness the package documentation
// describes: from one recorded message 2, an eavesdropper rules out every
// wrong password (P-256), or about half of them (MODP-3072, by the
// quadratic-residue symbol of the decryption).
func TestPartitionAttack(t *testing.T) {
	const guesses = 400
	for _, p := range suites {
		t.Run(p.label, func(t *testing.T) {
			msgs, _, _, err := run(t, p, testKey(t, p, "pw"), testKey(t, p, "pw"), nil)
			if err != nil {
				t.Fatal(err)
			}
			iv, ct := msgs[1][:IVSize], msgs[1][IVSize:]
			plausible := func(pw string) bool {
				y, err := open(testKey(t, p, pw), iv, ct, p.ElementSize())
				if err != nil {
					return false
				}
				if p == P256() {
					_, err := group.NewPoint().SetBytes(y)
					return err == nil
				}
				P := new(big.Int).SetBytes(p.group.(modpGroup).g.P())
				return big.Jacobi(new(big.Int).SetBytes(y), P) == 1
			}
			if !plausible("pw") {
				t.Fatal("the right password is ruled out")
			}
			left := 0
			for i := range guesses {
				if plausible(fmt.Sprint("guess", i)) {
					left++
				}
			}
			if p == P256() && left != 0 {
				t.Errorf("%d of %d wrong guesses survive one transcript", left, guesses)
			}
			if p == MODP3072() && (left < guesses/2-60 || left > guesses/2+60) {
				t.Errorf("%d of %d wrong guesses survive; expected about half", left, guesses)
			}
			t.Logf("%d of %d wrong passwords remain plausible after one transcript", left, guesses)
		})
	}
}

func TestUnpad(t *testing.T) {
	for n := 0; n <= 255; n++ {
		for _, fill := range []byte{byte(n), 0} {
			buf := bytes.Repeat([]byte{fill}, 32)
			buf[31] = byte(n)
			gotN, ok := unpad(buf)
			want := n >= 1 && n <= 16 && (fill == byte(n) || n == 1)
			if (ok == 1) != want || (ok == 1 && gotN != n) || (ok == 0 && gotN != 0) {
				t.Errorf("n=%d fill=%d: unpad = %d, %d", n, fill, gotN, ok)
			}
		}
	}
}

// TestWycheproofCBC runs every case of the shared AES-CBC-PKCS5 file, all
// key sizes, through cbcEncrypt and cbcDecrypt.
func TestWycheproofCBC(t *testing.T) { blockkattest.AESCBCPKCS5(t, cbc) }

func TestKnownAnswerTests(t *testing.T) {
	tests := KnownAnswerTests()
	if len(tests) != 2+71+4 {
		t.Errorf("%d known-answer tests, want 77", len(tests))
	}
	for _, k := range tests {
		if err := k.Run(); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}
