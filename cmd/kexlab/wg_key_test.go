package main

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/cmac"
	"github.com/kexlab/kexlab/internal/hsmtest"
	"github.com/kexlab/kexlab/internal/keywrap"
)

var kcvLine = regexp.MustCompile(`^[0-9a-f]{16}\n$`)

// wgKey runs `kexlab wg key args...`, which must succeed, and returns its
// standard output.
func wgKey(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"wg", "key"}, args...)...)
	if code != 0 {
		t.Fatalf("wg key %q: exit %d\n%s%s", args, code, out, errOut)
	}
	return out
}

// wgKeyFails runs `kexlab wg key args...`, which must fail with exit
// status 1 and a message on standard error containing want, and leave
// standard output empty.
func wgKeyFails(t *testing.T, name, want string, args ...string) {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"wg", "key"}, args...)...)
	t.Logf("%s: %s", name, strings.TrimSpace(errOut))
	if code != 1 || out != "" || !strings.Contains(errOut, want) {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and a message containing %q", name, code, out, errOut, want)
	}
	if strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine") {
		t.Errorf("%s: %s", name, errOut)
	}
	if strings.Contains(errOut, hsmtest.PIN) {
		t.Errorf("%s: the PIN appears in the message %q", name, errOut)
	}
}

// kcvOf returns HMAC-SHA256(key, "kexlab-wg v1 key check value")
// truncated to 8 bytes, in hex: the key check value as documented, computed
// with crypto/hmac from the key in a key file.
func kcvOf(t *testing.T, keyFile string) string {
	t.Helper()
	b, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		t.Fatalf("key file %s: %v", keyFile, err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("kexlab-wg v1 key check value"))
	return hex.EncodeToString(m.Sum(nil)[:8]) + "\n"
}

// TestWGKeyP11 provisions one key into two SoftHSM2 tokens through the
// CLI, as two peers' operators would: the same KEK file into both tokens,
// a key generated in token A, exported wrapped and imported into token B.
// The key check values of A and B must match and differ from another
// key's; wrong PINs, labels and wrapped files must fail cleanly.
func TestWGKeyP11(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "peerA", "peerB")
	dir := t.TempDir()
	tok := func(label string, more ...string) []string {
		return append([]string{"-p11-module", h.Module, "-p11-token", label, "-p11-pin-file", h.PINFile}, more...)
	}
	kek := filepath.Join(dir, "kek.key")
	wgKey(t, "-out", kek)
	for _, label := range []string{"peerA", "peerB"} {
		if out := wgKey(t, tok(label, "-p11-import-kek", kek)...); !strings.Contains(out, `imported the KEK "wg-kek"`) {
			t.Errorf("import-kek output %q", out)
		}
	}
	wgKey(t, tok("peerA", "-p11-generate")...)
	wrapped := filepath.Join(dir, "wg-psk.wrapped")
	wgKey(t, tok("peerA", "-p11-export", wrapped)...)
	if st, err := os.Stat(wrapped); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("wrapped file: %v %v", err, st)
	}
	wgKey(t, tok("peerB", "-p11-import", wrapped)...)

	kcvA := wgKey(t, tok("peerA", "-kcv")...)
	kcvB := wgKey(t, tok("peerB", "-kcv")...)
	if !kcvLine.MatchString(kcvA) || kcvA != kcvB {
		t.Fatalf("key check values: token A %q, token B %q", kcvA, kcvB)
	}
	t.Setenv("KEXLAB_TEST_PIN", hsmtest.PIN)
	if v := wgKey(t, "-kcv", "-p11-module", h.Module, "-p11-token", "peerB", "-p11-pin-env", "KEXLAB_TEST_PIN"); v != kcvA {
		t.Errorf("key check value with the PIN from the environment: %q, want %q", v, kcvA)
	}
	wgKey(t, tok("peerA", "-p11-generate", "-p11-key", "other")...)
	if v := wgKey(t, tok("peerA", "-kcv", "-p11-key", "other")...); !kcvLine.MatchString(v) || v == kcvA {
		t.Errorf("another key's check value %q, first key's %q", v, kcvA)
	}

	// Error paths.
	badPIN := filepath.Join(dir, "badpin")
	if err := os.WriteFile(badPIN, []byte("000000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wgKeyFails(t, "wrong PIN", "PIN missing or refused",
		"-kcv", "-p11-module", h.Module, "-p11-token", "peerA", "-p11-pin-file", badPIN)
	wgKeyFails(t, "wrong PIN (provisioning)", "PIN missing or refused",
		"-p11-generate", "-p11-key", "x", "-p11-module", h.Module, "-p11-token", "peerA", "-p11-pin-file", badPIN)
	wgKeyFails(t, "missing token", `no token labelled "peerC"`, tok("peerC", "-kcv")...)
	wgKeyFails(t, "missing key", `labelled "nope"`, tok("peerA", "-kcv", "-p11-key", "nope")...)
	wgKeyFails(t, "export of a missing key", `labelled "nope"`, tok("peerA", "-p11-export", filepath.Join(dir, "x"), "-p11-key", "nope")...)
	wgKeyFails(t, "generate over an existing key", "already exists", tok("peerA", "-p11-generate")...)

	text, err := os.ReadFile(wrapped)
	if err != nil {
		t.Fatal(err)
	}
	// Flip one bit of the wrapped data: the text parses, the unwrap's
	// integrity check fails.
	fields := strings.Fields(string(text))
	data, err := base64.StdEncoding.DecodeString(fields[len(fields)-1])
	if err != nil {
		t.Fatal(err)
	}
	data[5] ^= 0x10
	fields[len(fields)-1] = base64.StdEncoding.EncodeToString(data)
	corrupt := filepath.Join(dir, "corrupt.wrapped")
	if err := os.WriteFile(corrupt, []byte(strings.Join(fields, " ")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wgKeyFails(t, "corrupted wrapped key", "cannot unwrap", tok("peerB", "-p11-import", corrupt, "-p11-key", "k2")...)
	garbage := filepath.Join(dir, "garbage.wrapped")
	if err := os.WriteFile(garbage, []byte("kexlab-wg-wrapped-key v1 aes-kwp !!!\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wgKeyFails(t, "malformed wrapped key", "malformed wrapped key", tok("peerB", "-p11-import", garbage, "-p11-key", "k3")...)
	wgKeyFails(t, "import under a missing KEK", `labelled "nokek"`, tok("peerB", "-p11-import", wrapped, "-p11-key", "k4", "-p11-kek", "nokek")...)
	wgKeyFails(t, "KEK that is not a key file", "bad key file", tok("peerA", "-p11-import-kek", garbage, "-p11-kek", "k5")...)
	// None of the failed imports left a key behind.
	for _, label := range []string{"k2", "k3", "k4"} {
		wgKeyFails(t, "key of a failed import", "key not found", tok("peerB", "-kcv", "-p11-key", label)...)
	}
}

// TestWGKeyTPM imports a key file into swtpm through the CLI and checks
// that the key check value computed by the TPM equals the one computed
// from the key file, and the documented definition.
func TestWGKeyTPM(t *testing.T) {
	dev := hsmtest.SWTPM(t, false)
	dir := t.TempDir()
	key := filepath.Join(dir, "wg.key")
	blob := filepath.Join(dir, "wg.blob")
	wgKey(t, "-out", key)
	wgKey(t, "-tpm-import", key, "-tpm", dev, "-tpm-blob", blob)
	viaTPM := wgKey(t, "-kcv", "-tpm", dev, "-tpm-blob", blob)
	viaFile := wgKey(t, "-kcv", "-key-file", key)
	if want := kcvOf(t, key); viaTPM != want || viaFile != want {
		t.Fatalf("key check value via the TPM %q, via the file %q, want %q", viaTPM, viaFile, want)
	}

	other := filepath.Join(dir, "other.key")
	wgKey(t, "-out", other)
	if v := wgKey(t, "-kcv", "-key-file", other); v == viaFile {
		t.Errorf("two random keys have the check value %q", v)
	}

	notKey := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notKey, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	blob2 := filepath.Join(dir, "bad.blob")
	wgKeyFails(t, "tpm-import of a non-key file", "bad key file", "-tpm-import", notKey, "-tpm", dev, "-tpm-blob", blob2)
	if _, err := os.Stat(blob2); !os.IsNotExist(err) {
		t.Errorf("a failed import left %s: %v", blob2, err)
	}
	wgKeyFails(t, "kcv of a non-blob", "malformed key blob", "-kcv", "-tpm", dev, "-tpm-blob", notKey)
	wgKeyFails(t, "kcv with no TPM there", "token not found", "-kcv", "-tpm", "unix:"+filepath.Join(dir, "no.sock"), "-tpm-blob", blob)
	wgKeyFails(t, "kcv of a non-key file", "bad key file", "-kcv", "-key-file", notKey)
}

// TestWGKeyFlags checks the command line: the PIN has no flag (it comes
// from a file or the environment only) and bad combinations are usage
// errors.
func TestWGKeyFlags(t *testing.T) {
	code, _, help := runCLI("wg", "key", "-h")
	if code != 0 {
		t.Fatalf("wg key -h: exit %d", code)
	}
	flags := regexp.MustCompile(`(?m)^\s+-([\w-]+)`).FindAllStringSubmatch(help, -1)
	if len(flags) < 10 {
		t.Fatalf("could not read the flags from:\n%s", help)
	}
	for _, f := range flags {
		name := f[1]
		if strings.Contains(strings.ToLower(name), "pin") && name != "p11-pin-file" && name != "p11-pin-env" {
			t.Errorf("flag -%s may take a PIN on the command line", name)
		}
	}
	for _, f := range []string{"kcv", "p11-import-kek", "p11-pin-file", "p11-pin-env"} {
		if !strings.Contains(help, "-"+f) {
			t.Errorf("no flag -%s", f)
		}
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "k")
	for _, args := range [][]string{
		{"-kcv", "-p11-pin", hsmtest.PIN},
		{"-kcv", "-pin", hsmtest.PIN},
		{},
		{"-kcv"},
		{"-kcv", "-key-file", key, "-tpm", "unix:/nonexistent"},
		{"-kcv", "-tpm", "unix:/nonexistent"},
		{"-out", key, "-kcv"},
		{"-p11-generate"},
		{"-tpm-import", key},
	} {
		code, out, errOut := runCLI(append([]string{"wg", "key"}, args...)...)
		if code != 2 || out != "" || errOut == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a usage error", args, code, out, errOut)
		}
	}
	if _, err := os.Stat(key); !os.IsNotExist(err) {
		t.Errorf("a refused command line wrote %s", key)
	}
}

// TestWGKeyP11AES provisions an AES key (for tokens with CKM_AES_CMAC but
// not CKM_SHA256_HMAC) through the CLI: generated with -p11-key-type aes in
// token A, exported, imported into token B. Both tokens must give the same
// key check value: HKDF-SHA256 of the AES-CMAC of the check-value input
// under the key, truncated to 8 bytes, computed here with internal/cmac
// and crypto/hkdf from the software unwrap of the exported file; an HMAC
// key of the same bytes has another one. A type that contradicts the file
// and misused -p11-key-type flags fail.
func TestWGKeyP11AES(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "peerA", "peerB")
	dir := t.TempDir()
	tok := func(label string, more ...string) []string {
		return append([]string{"-p11-module", h.Module, "-p11-token", label, "-p11-pin-file", h.PINFile}, more...)
	}
	kekFile := filepath.Join(dir, "kek.key")
	wgKey(t, "-out", kekFile)
	for _, label := range []string{"peerA", "peerB"} {
		wgKey(t, tok(label, "-p11-import-kek", kekFile)...)
	}
	if out := wgKey(t, tok("peerA", "-p11-generate", "-p11-key-type", "aes")...); !strings.Contains(out, `generated the aes key "wg-psk"`) {
		t.Errorf("generate output %q", out)
	}
	wrapped := filepath.Join(dir, "wg-psk.wrapped")
	wgKey(t, tok("peerA", "-p11-export", wrapped)...)
	text, err := os.ReadFile(wrapped)
	if err != nil {
		t.Fatal(err)
	}
	wgKeyFails(t, "import as an HMAC key", "not hmac", tok("peerB", "-p11-import", wrapped, "-p11-key-type", "hmac")...)
	if out := wgKey(t, tok("peerB", "-p11-import", wrapped, "-p11-key-type", "aes")...); !strings.Contains(out, `imported the aes key "wg-psk"`) {
		t.Errorf("import output %q", out)
	}

	// The expected check value, from the exported file and the KEK file.
	fields := strings.Fields(string(text))
	if len(fields) != 5 || fields[4] != "aes" || fields[2] != "aes-kwp" {
		t.Fatalf("wrapped file %q: want the key type aes at the end (SoftHSM wraps with aes-kwp)", text)
	}
	data, err := base64.StdEncoding.DecodeString(fields[3])
	if err != nil {
		t.Fatal(err)
	}
	kekB64, err := os.ReadFile(kekFile)
	if err != nil {
		t.Fatal(err)
	}
	kek, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(kekB64)))
	if err != nil {
		t.Fatal(err)
	}
	key, err := keywrap.UnwrapPad(kek, data)
	if err != nil || len(key) != 32 {
		t.Fatalf("software unwrap: %v (%d bytes)", err, len(key))
	}
	tag, err := cmac.Sum(key, []byte("kexlab-wg v1 key check value"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := hkdf.Key(sha256.New, tag[:], nil, "kexlab-wg v1 aes-cmac", 32)
	if err != nil {
		t.Fatal(err)
	}
	want := hex.EncodeToString(out[:8]) + "\n"
	kcvA := wgKey(t, tok("peerA", "-kcv")...)
	kcvB := wgKey(t, tok("peerB", "-kcv")...)
	if kcvA != want || kcvB != want {
		t.Fatalf("key check values: token A %q, token B %q, want %q", kcvA, kcvB, want)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("kexlab-wg v1 key check value"))
	if hmacKCV := hex.EncodeToString(m.Sum(nil)[:8]) + "\n"; hmacKCV == want {
		t.Errorf("an HMAC key of the same bytes has the same check value %q", want)
	}

	for _, args := range [][]string{
		tok("peerA", "-p11-generate", "-p11-key", "x", "-p11-key-type", "des3"),
		tok("peerA", "-kcv", "-p11-key-type", "aes"),
		tok("peerA", "-p11-export", filepath.Join(dir, "x"), "-p11-key-type", "aes"),
	} {
		code, out, errOut := runCLI(append([]string{"wg", "key"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, "-p11-key-type") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a usage error about -p11-key-type", args, code, out, errOut)
		}
	}
	wgKeyFails(t, "AES key over an existing label", "already exists", tok("peerA", "-p11-generate", "-p11-key-type", "aes")...)
	wgKeyFails(t, "the KEK as the key", "unsupported key type", tok("peerA", "-kcv", "-p11-key", "wg-kek")...)
}

// TestWGKeyTPMAuth imports a key into swtpm with an authorization value
// (-tpm-auth-file): the key check value needs the value's file, and a
// wrong or missing value fails cleanly without showing the value.
func TestWGKeyTPMAuth(t *testing.T) {
	dev := hsmtest.SWTPM(t, false)
	dir := t.TempDir()
	key := filepath.Join(dir, "wg.key")
	blob := filepath.Join(dir, "wg.blob")
	auth := filepath.Join(dir, "auth")
	if err := os.WriteFile(auth, []byte("Kx7-auth-value-Qz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wgKey(t, "-out", key)
	if out := wgKey(t, "-tpm-import", key, "-tpm", dev, "-tpm-blob", blob, "-tpm-auth-file", auth); !strings.Contains(out, "authorization value") {
		t.Errorf("import output %q", out)
	}
	if v := wgKey(t, "-kcv", "-tpm", dev, "-tpm-blob", blob, "-tpm-auth-file", auth); v != kcvOf(t, key) {
		t.Errorf("key check value %q, want %q", v, kcvOf(t, key))
	}
	wrong := filepath.Join(dir, "wrong")
	if err := os.WriteFile(wrong, []byte("Kx7-auth-value-Qy\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	noValue := func(name, want string, args ...string) {
		t.Helper()
		_, _, errOut := runCLI(append([]string{"wg", "key"}, args...)...)
		if strings.Contains(errOut, "auth-value") {
			t.Errorf("%s: the message shows the value: %q", name, errOut)
		}
		wgKeyFails(t, name, want, args...)
	}
	noValue("wrong value", "authorization value missing or refused", "-kcv", "-tpm", dev, "-tpm-blob", blob, "-tpm-auth-file", wrong)
	noValue("no value", "authorization value missing or refused", "-kcv", "-tpm", dev, "-tpm-blob", blob)
	os.Chmod(wrong, 0o644)
	noValue("value file readable by others", "chmod 600", "-kcv", "-tpm", dev, "-tpm-blob", blob, "-tpm-auth-file", wrong)
	long := filepath.Join(dir, "long")
	if err := os.WriteFile(long, []byte(strings.Repeat("x", 33)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	blob2 := filepath.Join(dir, "wg2.blob")
	wgKeyFails(t, "a 33-byte value", "at most 32", "-tpm-import", key, "-tpm", dev, "-tpm-blob", blob2, "-tpm-auth-file", long)
	if _, err := os.Lstat(blob2); !os.IsNotExist(err) {
		t.Errorf("a refused import wrote %s: %v", blob2, err)
	}
	// A key imported without a value refuses one.
	plain := filepath.Join(dir, "plain.blob")
	wgKey(t, "-tpm-import", key, "-tpm", dev, "-tpm-blob", plain)
	wgKeyFails(t, "a value for a key without one", "without one", "-kcv", "-tpm", dev, "-tpm-blob", plain, "-tpm-auth-file", auth)
	// The flag goes with -tpm.
	code, out, errOut := runCLI("wg", "key", "-kcv", "-key-file", key, "-tpm-auth-file", auth)
	if code != 2 || out != "" || !strings.Contains(errOut, "-tpm-auth-file") {
		t.Errorf("-tpm-auth-file without -tpm: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestWGKeyNewFilesOnly checks that key material is written only to new
// files: -p11-export and the blob of -tpm-import refuse an existing file,
// a symbolic link to a file and a dangling symbolic link, with a message
// naming the path, and leave them as they were.
func TestWGKeyNewFilesOnly(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "tok")
	dev := hsmtest.SWTPM(t, false)
	dir := t.TempDir()
	key := filepath.Join(dir, "wg.key")
	wgKey(t, "-out", key)
	tok := []string{"-p11-module", h.Module, "-p11-token", "tok", "-p11-pin-file", h.PINFile}
	wgKey(t, append(tok, "-p11-import-kek", key)...)
	wgKey(t, append(tok, "-p11-generate")...)

	existing := filepath.Join(dir, "existing")
	target := filepath.Join(dir, "target")
	for _, p := range []string{existing, target} {
		if err := os.WriteFile(p, []byte("keep me\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	missing := filepath.Join(dir, "missing")
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(missing, dangling); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{existing, link, dangling} {
		wgKeyFails(t, "-p11-export to "+filepath.Base(p), p+" already exists", append(tok, "-p11-export", p)...)
		wgKeyFails(t, "-tpm-import to "+filepath.Base(p), p+" already exists", "-tpm-import", key, "-tpm", dev, "-tpm-blob", p)
		wgKeyFails(t, "-out to "+filepath.Base(p), p+" already exists", "-out", p)
	}
	for _, p := range []string{existing, target} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "keep me\n" {
			t.Errorf("%s now holds %q, %v", p, b, err)
		}
	}
	if _, err := os.Lstat(missing); !os.IsNotExist(err) {
		t.Errorf("the dangling link's target was created: %v", err)
	}
	// New files are written, mode 0600.
	for _, args := range [][]string{
		append(tok, "-p11-export", filepath.Join(dir, "new.wrapped")),
		{"-tpm-import", key, "-tpm", dev, "-tpm-blob", filepath.Join(dir, "new.blob")},
	} {
		wgKey(t, args...)
		p := args[len(args)-1]
		if fi, err := os.Lstat(p); err != nil || fi.Mode() != 0o600 {
			t.Errorf("%s: %v, %v", p, fi.Mode(), err)
		}
	}
}
