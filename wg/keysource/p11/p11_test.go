package p11

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kexlab/kexlab/internal/hsmtest"
	"github.com/kexlab/kexlab/internal/keywrap"
	"github.com/kexlab/kexlab/wg/keysource"
)

func token(t *testing.T, h *hsmtest.SoftHSM, label string) *Token {
	t.Helper()
	tok, err := OpenToken(Config{Module: h.Module, TokenLabel: label, PINFile: h.PINFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tok.Close() })
	return tok
}

// peerTokens starts SoftHSM with the tokens peerA and peerB, each holding
// kek as the key-encryption key "kek".
func peerTokens(t *testing.T, kek []byte) (h *hsmtest.SoftHSM, a, b *Token) {
	h = hsmtest.NewSoftHSM(t, "peerA", "peerB")
	a, b = token(t, h, "peerA"), token(t, h, "peerB")
	for _, tok := range []*Token{a, b} {
		if err := tok.ImportKEK("kek", kek); err != nil {
			t.Fatal(err)
		}
	}
	return h, a, b
}

func open(t *testing.T, h *hsmtest.SoftHSM, tokenLabel, keyLabel string) *Source {
	t.Helper()
	s, err := Open(Config{Module: h.Module, TokenLabel: tokenLabel, KeyLabel: keyLabel, PINFile: h.PINFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// TestVectors imports each vector's key into SoftHSM and checks that
// CKM_SHA256_HMAC reproduces the tag: Wycheproof's 32-byte-key cases and
// RFC 4231's test cases 6 and 7 (131-byte keys; SoftHSM2 refuses the
// shorter keys of the other cases).
func TestVectors(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "vec")
	tok := token(t, h, "vec")
	tok.ephemeral = true // session objects: creating 160 token objects takes seconds
	vs := append(hsmtest.RFC4231(32, 1024), hsmtest.Wycheproof(t)...)
	for i, v := range vs {
		label := fmt.Sprintf("k%d", i)
		if err := tok.ImportKey(label, v.Key); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
	}
	for i, v := range vs {
		s := open(t, h, "vec", fmt.Sprintf("k%d", i))
		got, err := s.Derive(v.Msg)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if bytes.Equal(got[:], v.Tag) != v.Valid {
			t.Errorf("%s: got %x, tag %x, valid=%v", v.Name, got, v.Tag, v.Valid)
		}
		s.Close()
	}
}

// TestWrapExportImport generates a key in token A, exports it wrapped
// under a shared KEK, imports it into token B, and checks that both tokens
// and a software unwrap of the exported blob (internal/keywrap, RFC 5649
// or RFC 3394) give the same HMAC.
func TestWrapExportImport(t *testing.T) {
	kek := bytes.Repeat([]byte{0x4b}, 32)
	h, a, b := peerTokens(t, kek)
	if err := a.GenerateKey("wg"); err != nil {
		t.Fatal(err)
	}
	if err := a.GenerateKey("wg"); !errors.Is(err, ErrKeyExists) {
		t.Fatalf("second GenerateKey with the same label: %v", err)
	}
	mech, err := a.WrapMechanism()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SoftHSM wraps with %v", mech)
	w, err := a.Export("wg", "kek")
	if err != nil {
		t.Fatal(err)
	}
	text, err := w.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var w2 Wrapped
	if err := w2.UnmarshalText(append(text, '\n')); err != nil {
		t.Fatal(err)
	}
	if err := b.Import("wg", "kek", w2); err != nil {
		t.Fatal(err)
	}

	var raw []byte
	switch w.Mechanism {
	case KWP:
		raw, err = keywrap.UnwrapPad(kek, w.Data)
	case KW:
		raw, err = keywrap.Unwrap(kek, w.Data)
	}
	if err != nil || len(raw) != 32 {
		t.Fatalf("software unwrap of the token's export: %v (%d bytes)", err, len(raw))
	}
	sa, sb := open(t, h, "peerA", "wg"), open(t, h, "peerB", "wg")
	for _, in := range [][]byte{nil, []byte("kexlab"), make([]byte, keysource.MaxInputLen)} {
		ga, err := sa.Derive(in)
		if err != nil {
			t.Fatal(err)
		}
		gb, err := sb.Derive(in)
		if err != nil {
			t.Fatal(err)
		}
		if ga != gb || !bytes.Equal(ga[:], hmacSHA256(raw, in)) {
			t.Fatalf("token A %x, token B %x, software %x", ga, gb, hmacSHA256(raw, in))
		}
	}

	// A wrong KEK on the importing side is refused.
	if err := b.ImportKEK("otherkek", bytes.Repeat([]byte{1}, 32)); err != nil {
		t.Fatal(err)
	}
	if err := b.Import("wg2", "otherkek", w); err == nil {
		t.Fatal("unwrap under the wrong KEK succeeded")
	}
	// A modified wrapped key is refused.
	bad := Wrapped{Mechanism: w.Mechanism, Data: bytes.Clone(w.Data)}
	bad.Data[3] ^= 1
	if err := b.Import("wg3", "kek", bad); err == nil {
		t.Fatal("unwrap of a modified blob succeeded")
	}
}

func TestErrors(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "tok")
	tok := token(t, h, "tok")
	if err := tok.ImportKey("k", make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	if err := tok.ImportKEK("aes", make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	tok.Close() // log out: a process logged in to a token stays logged in for every session
	cfg := Config{Module: h.Module, TokenLabel: "tok", KeyLabel: "k", PINFile: h.PINFile}
	check := func(name string, c Config, want error) {
		t.Helper()
		s, err := Open(c)
		if !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", name, err, want)
		}
		if s != nil {
			s.Close()
		}
	}
	c := cfg
	c.TokenLabel = "nope"
	check("missing token", c, keysource.ErrTokenNotFound)
	c = cfg
	c.KeyLabel = "nope"
	check("missing key", c, keysource.ErrKeyNotFound)
	c.KeyLabel = "aes" // the KEK may not sign
	check("key-encryption key", c, ErrKeyType)
	c = cfg
	c.Module = filepath.Join(t.TempDir(), "nonexistent.so")
	check("missing module", c, keysource.ErrDevice)
	c = cfg
	c.PINFile = ""
	check("no PIN", c, keysource.ErrPIN)
	c.PINEnv = "KEXLAB_TEST_PIN"
	t.Setenv("KEXLAB_TEST_PIN", "000000")
	check("wrong PIN", c, keysource.ErrPIN)
	t.Setenv("KEXLAB_TEST_PIN", hsmtest.PIN)
	check("PIN from the environment", c, nil)
	c.PINFile = h.PINFile
	check("PINFile and PINEnv", c, keysource.ErrPIN)
	c = cfg
	os.Chmod(h.PINFile, 0o644)
	check("world-readable PIN file", c, keysource.ErrPermissions)
	os.Chmod(h.PINFile, 0o600)

	s := open(t, h, "tok", "k")
	if _, err := s.Derive(make([]byte, keysource.MaxInputLen+1)); !errors.Is(err, keysource.ErrInputTooLong) {
		t.Errorf("long input: %v", err)
	}
	s.Close()
	if _, err := s.Derive(nil); !errors.Is(err, keysource.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if s.Name() != "pkcs11:tok/k" {
		t.Errorf("Name %q", s.Name())
	}
}

// TestConcurrent runs Derive from several goroutines on one session and on
// two sources sharing the module and the login.
func TestConcurrent(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "c")
	key := bytes.Repeat([]byte{9}, 32)
	if err := token(t, h, "c").ImportKey("k", key); err != nil {
		t.Fatal(err)
	}
	s1, s2 := open(t, h, "c", "k"), open(t, h, "c", "k")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			s := s1
			if g%2 == 1 {
				s = s2
			}
			for i := range 50 {
				in := []byte{byte(g), byte(i)}
				out, err := s.Derive(in)
				if err != nil || !bytes.Equal(out[:], hmacSHA256(key, in)) {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	// Closing one source leaves the other logged in.
	s1.Close()
	if _, err := s2.Derive(nil); err != nil {
		t.Fatalf("after closing the other source: %v", err)
	}
}

// TestParseKeyType checks the names of the key types, in both builds.
func TestParseKeyType(t *testing.T) {
	for _, kt := range []KeyType{HMAC, AES} {
		if got, err := ParseKeyType(kt.String()); err != nil || got != kt {
			t.Errorf("ParseKeyType(%q) = %v, %v", kt, got, err)
		}
	}
	for _, s := range []string{"", "HMAC", "des3", "aes-cmac"} {
		if _, err := ParseKeyType(s); !errors.Is(err, ErrKeyType) {
			t.Errorf("ParseKeyType(%q): %v", s, err)
		}
	}
	if _, err := (Wrapped{Mechanism: KWP, KeyType: 2, Data: make([]byte, 40)}).MarshalText(); !errors.Is(err, ErrWrappedFormat) {
		t.Errorf("MarshalText of an unknown key type: %v", err)
	}
	var w Wrapped
	if err := w.UnmarshalText([]byte(wrappedPrefix + "aes-kwp " + strings.Repeat("A", 24) + " des3")); !errors.Is(err, ErrWrappedFormat) {
		t.Errorf("UnmarshalText of an unknown key type: %v", err)
	}
}

func FuzzWrapped(f *testing.F) {
	w := Wrapped{Mechanism: KWP, Data: make([]byte, 40)}
	text, _ := w.MarshalText()
	f.Add(text)
	w.KeyType = AES
	text, _ = w.MarshalText()
	f.Add(text)
	f.Add([]byte(wrappedPrefix + "aes-kw AAAA"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var w Wrapped
		if err := w.UnmarshalText(b); err != nil {
			return
		}
		out, err := w.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var w2 Wrapped
		if err := w2.UnmarshalText(out); err != nil || w2.Mechanism != w.Mechanism || w2.KeyType != w.KeyType || !bytes.Equal(w2.Data, w.Data) {
			t.Fatalf("round trip of %q: %v", b, err)
		}
	})
}

func BenchmarkDeriveSoftHSM(b *testing.B) {
	h := hsmtest.NewSoftHSM(b, "bench")
	tok, err := OpenToken(Config{Module: h.Module, TokenLabel: "bench", PINFile: h.PINFile})
	if err != nil {
		b.Fatal(err)
	}
	if err := tok.ImportKey("k", make([]byte, 32)); err != nil {
		b.Fatal(err)
	}
	tok.Close()
	s, err := Open(Config{Module: h.Module, TokenLabel: "bench", KeyLabel: "k", PINFile: h.PINFile})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	in := make([]byte, 80)
	for b.Loop() {
		if _, err := s.Derive(in); err != nil {
			b.Fatal(err)
		}
	}
}
