package keysource_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/kexlab/kexlab/internal/hsmtest"
	"github.com/kexlab/kexlab/internal/keywrap"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11"
	"github.com/kexlab/kexlab/wg/keysource/tpm"
)

// TestSameKeySamePSK provisions one 32-byte key the way peers would — made
// in a PKCS#11 token, exported wrapped under a shared KEK, unwrapped in
// software (internal/keywrap) into a key file and imported into a TPM,
// imported wrapped into a second token — and checks that all four sources
// give the same output for the same inputs, equal to HMAC-SHA256 computed
// on the unwrapped key.
func TestSameKeySamePSK(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "peerA", "peerB")
	dev := hsmtest.SWTPM(t, false)
	kek := bytes.Repeat([]byte{0xee}, 32)

	cfg := func(label string) p11.Config {
		return p11.Config{Module: h.Module, TokenLabel: label, KeyLabel: "wg", PINFile: h.PINFile}
	}
	a, err := p11.OpenToken(cfg("peerA"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := p11.OpenToken(cfg("peerB"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tok := range []*p11.Token{a, b} {
		if err := tok.ImportKEK("kek", kek); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.GenerateKey("wg"); err != nil {
		t.Fatal(err)
	}
	w, err := a.Export("wg", "kek")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Import("wg", "kek", w); err != nil {
		t.Fatal(err)
	}
	unwrap := keywrap.UnwrapPad
	if w.Mechanism == p11.KW {
		unwrap = keywrap.Unwrap
	}
	key, err := unwrap(kek, w.Data)
	if err != nil {
		t.Fatal(err)
	}

	keyFile := filepath.Join(t.TempDir(), "wg.key")
	if err := keysource.WriteKeyFile(keyFile, key); err != nil {
		t.Fatal(err)
	}
	tr, err := tpm.OpenTransport(dev)
	if err != nil {
		t.Fatal(err)
	}
	blob, err := tpm.ImportKey(tr, key)
	tr.Close()
	if err != nil {
		t.Fatal(err)
	}

	var sources []keysource.Source
	add := func(s keysource.Source, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, s)
		t.Cleanup(func() { s.Close() })
	}
	add(keysource.OpenFile(keyFile))
	add(p11.Open(cfg("peerA")))
	add(p11.Open(cfg("peerB")))
	add(tpm.Open(dev, blob))

	ref := keysource.NewFile([32]byte(key), "reference")
	for _, in := range [][]byte{nil, []byte("kexlab-wg v1 timestamp"), bytes.Repeat([]byte{0xa5}, 200), make([]byte, keysource.MaxInputLen)} {
		want, _ := ref.Derive(in)
		for _, s := range sources {
			got, err := s.Derive(in)
			if err != nil {
				t.Fatalf("%s: %v", s.Name(), err)
			}
			if got != want {
				t.Errorf("%s: input of %d bytes: %x, want %x", s.Name(), len(in), got, want)
			}
		}
	}
}
