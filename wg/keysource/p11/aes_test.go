//go:build cgo

package p11

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/miekg/pkcs11"

	"github.com/kexlab/kexlab/internal/cmac"
	"github.com/kexlab/kexlab/internal/hsmtest"
	"github.com/kexlab/kexlab/internal/keywrap"
	"github.com/kexlab/kexlab/wg/keysource"
)

// The tests of the AES-CMAC mode compute the expected outputs with
// internal/cmac (tested against RFC 4493) and crypto/hkdf, from the
// documented definition; the info string is spelled out here rather than
// taken from the package.
func wantAES(t *testing.T, key, in []byte) [32]byte {
	t.Helper()
	tag, err := cmac.Sum(key, in)
	if err != nil {
		t.Fatal(err)
	}
	return hkdfOf(t, tag[:])
}

func hkdfOf(t *testing.T, tag []byte) [32]byte {
	t.Helper()
	k, err := hkdf.Key(sha256.New, tag, nil, "kexlab-wg v1 aes-cmac", 32)
	if err != nil {
		t.Fatal(err)
	}
	return [32]byte(k)
}

// testInputs are the inputs every AES test derives from: empty, short,
// around the AES block boundaries (complete and incomplete last blocks
// take different CMAC paths) and the longest input.
func testInputs() [][]byte {
	ins := [][]byte{nil, []byte("kexlab"), []byte(keysource.CheckValueInput)}
	for _, n := range []int{15, 16, 17, 31, 32, 33, 64, 1000, keysource.MaxInputLen} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + n)
		}
		ins = append(ins, b)
	}
	return ins
}

// createObject makes a session object from tmpl, for keys the package's
// API does not create.
func createObject(t *testing.T, tok *Token, tmpl ...*pkcs11.Attribute) {
	t.Helper()
	tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, false))
	if _, err := tok.c.Ctx.CreateObject(tok.c.Handle, tmpl); err != nil {
		t.Fatal(err)
	}
}

// TestAESCMACVectors checks the token's CKM_AES_CMAC against the examples
// of RFC 4493 §4 (testdata/rfc4493.json), and that Derive of the RFC key
// is HKDF-SHA256 of the RFC's tags; then that Derive with AES-128, -192
// and -256 keys matches the independent computation on many inputs.
func TestAESCMACVectors(t *testing.T) {
	var f struct {
		Key      string
		Examples []struct{ Name, Msg, Tag string }
	}
	b, err := os.ReadFile("testdata/rfc4493.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f); err != nil || len(f.Examples) != 4 {
		t.Fatalf("testdata/rfc4493.json: %v", err)
	}
	rfcKey, _ := hex.DecodeString(f.Key)

	h := hsmtest.NewSoftHSM(t, "aes")
	tok := token(t, h, "aes")
	tok.ephemeral = true
	if err := tok.importKey("rfc", AES, rfcKey); err != nil {
		t.Fatal(err)
	}
	s := open(t, h, "aes", "rfc")
	if s.KeyType() != AES || s.Name() != "pkcs11:aes/rfc (aes-cmac)" {
		t.Errorf("KeyType %v, Name %q", s.KeyType(), s.Name())
	}
	handle, err := tok.c.FindKey("rfc")
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range f.Examples {
		msg, _ := hex.DecodeString(ex.Msg)
		tag, _ := hex.DecodeString(ex.Tag)
		m := []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_AES_CMAC, nil)}
		if err := tok.c.Ctx.SignInit(tok.c.Handle, m, handle); err != nil {
			t.Fatal(err)
		}
		raw, err := tok.c.Ctx.Sign(tok.c.Handle, msg)
		if err != nil || !bytes.Equal(raw, tag) {
			t.Errorf("%s: token CMAC %x, %v; RFC %x", ex.Name, raw, err, tag)
		}
		got, err := s.Derive(msg)
		if err != nil || got != hkdfOf(t, tag) {
			t.Errorf("%s: Derive %x, %v; want HKDF of the RFC tag %x", ex.Name, got, err, hkdfOf(t, tag))
		}
	}

	for _, n := range []int{16, 24, 32} {
		key := bytes.Repeat([]byte{byte(n)}, n)
		key[0] ^= 0x5a
		label := "k" + string(rune('0'+n/8))
		if err := tok.importKey(label, AES, key); err != nil {
			t.Fatal(err)
		}
		s := open(t, h, "aes", label)
		for _, in := range testInputs() {
			got, err := s.Derive(in)
			if err != nil {
				t.Fatalf("AES-%d, %d-byte input: %v", 8*n, len(in), err)
			}
			if want := wantAES(t, key, in); got != want {
				t.Errorf("AES-%d, %d-byte input: %x, want %x", 8*n, len(in), got, want)
			}
		}
		if _, err := s.Derive(make([]byte, keysource.MaxInputLen+1)); !errors.Is(err, keysource.ErrInputTooLong) {
			t.Errorf("AES-%d, long input: %v", 8*n, err)
		}
	}
}

// TestAESExportImport generates an AES key in token A, exports it wrapped
// under a shared KEK, imports it into token B, and checks that the key
// stays an AES key: both tokens and the independent computation on the
// software unwrap of the blob agree on every input and on the key check
// value, which differs from the check value of an HMAC key of the same
// bytes.
func TestAESExportImport(t *testing.T) {
	kek := bytes.Repeat([]byte{0x3c}, 32)
	h, a, b := peerTokens(t, kek)
	if err := a.GenerateAESKey("wg"); err != nil {
		t.Fatal(err)
	}
	if err := a.GenerateKey("wg"); !errors.Is(err, ErrKeyExists) {
		t.Errorf("an HMAC key with the AES key's label: %v", err)
	}
	if err := a.GenerateAESKey("kek"); !errors.Is(err, ErrKeyExists) {
		t.Errorf("an AES key with the KEK's label: %v", err)
	}
	w, err := a.Export("wg", "kek")
	if err != nil {
		t.Fatal(err)
	}
	if w.KeyType != AES {
		t.Fatalf("exported key type %v", w.KeyType)
	}
	text, err := w.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(text), " aes") {
		t.Errorf("text form %q does not end in the key type", text)
	}
	var w2 Wrapped
	if err := w2.UnmarshalText(append(text, '\n')); err != nil {
		t.Fatal(err)
	}
	if err := b.Import("wg", "kek", w2); err != nil {
		t.Fatal(err)
	}
	unwrap := keywrap.UnwrapPad
	if w.Mechanism == KW {
		unwrap = keywrap.Unwrap
	}
	raw, err := unwrap(kek, w.Data)
	if err != nil || len(raw) != 32 {
		t.Fatalf("software unwrap: %v (%d bytes): want an AES-256 key", err, len(raw))
	}

	sa, sb := open(t, h, "peerA", "wg"), open(t, h, "peerB", "wg")
	if sa.KeyType() != AES || sb.KeyType() != AES {
		t.Fatalf("key types %v, %v", sa.KeyType(), sb.KeyType())
	}
	for _, in := range testInputs() {
		ga, err := sa.Derive(in)
		if err != nil {
			t.Fatal(err)
		}
		gb, err := sb.Derive(in)
		if err != nil {
			t.Fatal(err)
		}
		if want := wantAES(t, raw, in); ga != want || gb != want {
			t.Fatalf("%d-byte input: token A %x, token B %x, want %x", len(in), ga, gb, want)
		}
	}
	kcvA, err := keysource.CheckValue(sa)
	if err != nil {
		t.Fatal(err)
	}
	kcvB, err := keysource.CheckValue(sb)
	if err != nil {
		t.Fatal(err)
	}
	want := wantAES(t, raw, []byte("kexlab-wg v1 key check value"))
	hmacKCV := hex.EncodeToString(hmacSHA256(raw, []byte("kexlab-wg v1 key check value"))[:8])
	if kcvA != kcvB || kcvA != hex.EncodeToString(want[:8]) || kcvA == hmacKCV {
		t.Errorf("check values: A %s, B %s, want %x (an HMAC key of these bytes: %s)", kcvA, kcvB, want[:8], hmacKCV)
	}

	// The same blob imported as an HMAC key is a different key source,
	// and the check values show it.
	w3 := w2
	w3.KeyType = HMAC
	if err := b.Import("as-hmac", "kek", w3); err != nil {
		t.Fatal(err)
	}
	sh := open(t, h, "peerB", "as-hmac")
	if kcv, err := keysource.CheckValue(sh); err != nil || kcv != hmacKCV {
		t.Errorf("the blob as an HMAC key: check value %s, %v; want %s", kcv, err, hmacKCV)
	}
	if err := b.Import("bad", "kek", Wrapped{Mechanism: w.Mechanism, KeyType: 7, Data: w.Data}); !errors.Is(err, ErrKeyType) {
		t.Errorf("import of an unknown key type: %v", err)
	}
}

// TestKeyTypes checks the choice of mechanism by key type: an HMAC key and
// an AES key holding the same bytes give different outputs, each the
// documented one; a CKK_SHA256_HMAC key works as an HMAC key; a DES3 key,
// an AES key that may not sign and the KEK are refused with ErrKeyType.
func TestKeyTypes(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "types")
	tok := token(t, h, "types")
	tok.ephemeral = true
	key := bytes.Repeat([]byte{0xa7}, 32)
	if err := tok.ImportKey("hmac", key); err != nil {
		t.Fatal(err)
	}
	if err := tok.importKey("aes", AES, key); err != nil {
		t.Fatal(err)
	}
	if err := tok.importKey("aes-short", AES, key[:20]); !errors.Is(err, keysource.ErrKeyFile) {
		t.Errorf("a 20-byte AES key: %v", err)
	}
	createObject(t, tok,
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_SHA256_HMAC),
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, "sha256-hmac"),
		pkcs11.NewAttribute(pkcs11.CKA_VALUE, key))
	createObject(t, tok,
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_DES3),
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, "des3"),
		pkcs11.NewAttribute(pkcs11.CKA_VALUE, bytes.Repeat([]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}, 3)))
	createObject(t, tok,
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_AES),
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, false),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, "aes-nosign"),
		pkcs11.NewAttribute(pkcs11.CKA_VALUE, key))
	if err := tok.ImportKEK("kek", key); err != nil {
		t.Fatal(err)
	}

	sh, sa, s2 := open(t, h, "types", "hmac"), open(t, h, "types", "aes"), open(t, h, "types", "sha256-hmac")
	if sh.Name() != "pkcs11:types/hmac" || sh.KeyType() != HMAC || s2.KeyType() != HMAC {
		t.Errorf("HMAC sources: %q %v, %q %v", sh.Name(), sh.KeyType(), s2.Name(), s2.KeyType())
	}
	for _, in := range testInputs() {
		gh, err1 := sh.Derive(in)
		ga, err2 := sa.Derive(in)
		g2, err3 := s2.Derive(in)
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gh[:], hmacSHA256(key, in)) || g2 != gh || ga != wantAES(t, key, in) || ga == gh {
			t.Errorf("%d-byte input: HMAC %x, CKK_SHA256_HMAC %x, AES %x", len(in), gh, g2, ga)
		}
	}

	for _, label := range []string{"des3", "aes-nosign", "kek"} {
		s, err := Open(Config{Module: h.Module, TokenLabel: "types", KeyLabel: label, PINFile: h.PINFile})
		if !errors.Is(err, ErrKeyType) {
			t.Errorf("%s: %v, want ErrKeyType", label, err)
		}
		if s != nil {
			s.Close()
		}
	}
	if _, err := tok.Export("des3", "kek"); !errors.Is(err, ErrKeyType) {
		t.Errorf("export of a DES3 key: %v", err)
	}
	if _, err := tok.Export("aes", "hmac"); !errors.Is(err, ErrKeyType) {
		t.Errorf("export under an HMAC key as the KEK: %v", err)
	}
	if _, err := tok.Export("hmac", "aes"); err == nil {
		t.Error("export under an AES key that may not wrap succeeded")
	}
}
