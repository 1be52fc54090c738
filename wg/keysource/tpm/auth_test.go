package tpm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-tpm/tpm2"

	"github.com/kexlab/kexlab/internal/hsmtest"
	"github.com/kexlab/kexlab/wg/keysource"
)

func importKeyAuth(t testing.TB, dev string, key, auth []byte) []byte {
	t.Helper()
	tr, err := OpenTransport(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	blob, err := ImportKeyAuth(tr, key, auth)
	if err != nil {
		t.Fatal(err)
	}
	return blob
}

// writeSecret writes b and a newline to a new mode-0600 file.
func writeSecret(t testing.TB, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(p, append(bytes.Clone(b), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// setLockout sends TPM2_DictionaryAttackParameters (Part 3 §25.3) with the
// empty lockout authorization of a fresh TPM: after maxTries wrong
// authorization values the TPM locks out every DA-protected object for
// recoveryTime seconds per try. go-tpm has no command for it.
func setLockout(t testing.TB, dev string, maxTries uint32) {
	t.Helper()
	tr, err := OpenTransport(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	cmd := binary.BigEndian.AppendUint16(nil, 0x8002) // TPM_ST_SESSIONS
	cmd = binary.BigEndian.AppendUint32(cmd, 39)      // commandSize
	cmd = binary.BigEndian.AppendUint32(cmd, 0x13A)   // TPM_CC_DictionaryAttackParameters
	cmd = binary.BigEndian.AppendUint32(cmd, 0x4000000A)
	cmd = binary.BigEndian.AppendUint32(cmd, 9)          // authorizationSize
	cmd = binary.BigEndian.AppendUint32(cmd, 0x40000009) // TPM_RS_PW
	cmd = append(cmd, 0, 0, 1, 0, 0)                     // empty nonce, continueSession, empty password
	cmd = binary.BigEndian.AppendUint32(cmd, maxTries)
	cmd = binary.BigEndian.AppendUint32(cmd, 1000) // newRecoveryTime
	cmd = binary.BigEndian.AppendUint32(cmd, 1000) // lockoutRecovery
	rsp, err := tr.Send(cmd)
	if err != nil || len(rsp) < 10 || binary.BigEndian.Uint32(rsp[6:10]) != 0 {
		t.Fatalf("TPM2_DictionaryAttackParameters: %x, %v", rsp, err)
	}
}

// TestAuthValue imports a key with an authorization value: it derives
// with the right value, read from a file, and fails with ErrAuth (which
// is also keysource.ErrPIN) with a wrong or a missing one; a key without
// one still works without a file and refuses one. The value files follow
// the rules of PIN files.
func TestAuthValue(t *testing.T) {
	dev := hsmtest.SWTPM(t, false)
	setLockout(t, dev, 100)
	key := bytes.Repeat([]byte{0x3a}, 32)
	auth := []byte("correct horse battery staple")
	blob := importKeyAuth(t, dev, key, auth)
	if pub, _, err := ParseBlob(blob); err != nil {
		t.Fatal(err)
	} else if tp, err := pub.Contents(); err != nil || !tp.ObjectAttributes.NoDA {
		t.Fatalf("a key with an authorization value must keep noDA: %v", err)
	}
	dir := t.TempDir()
	blobPath := filepath.Join(dir, "key.tpm")
	if err := keysource.WriteNewFile(blobPath, blob); err != nil {
		t.Fatal(err)
	}
	good := writeSecret(t, auth)
	in := []byte("input")
	want := hmacOf(key, in)

	s, err := OpenFileWith(dev, blobPath, Options{AuthFile: good})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Derive(in); err != nil || got != want {
		t.Fatalf("with the right value: %x, %v; want %x", got, err, want)
	}
	file := keysource.NewFile([32]byte(key), "file")
	kf, _ := keysource.CheckValue(file)
	if kt, err := keysource.CheckValue(s); err != nil || kt != kf {
		t.Errorf("check value %q, %v; the key file's %q", kt, err, kf)
	}
	s.Close()

	wrong := writeSecret(t, []byte("correct horse battery stapler"))
	for name, opt := range map[string]Options{"wrong": {AuthFile: wrong}, "missing": {}} {
		s, err := OpenWith(dev, blob, opt)
		if !errors.Is(err, ErrAuth) || !errors.Is(err, keysource.ErrPIN) {
			t.Errorf("%s value: %v", name, err)
		}
		if s != nil {
			s.Close()
		}
		if err != nil && strings.Contains(err.Error(), "horse") {
			t.Errorf("the error shows the value: %v", err)
		}
		t.Logf("%s value: %v", name, err)
	}
	if _, err := Open(dev, blob); !errors.Is(err, ErrAuth) {
		t.Errorf("Open without a value: %v", err)
	}

	// A key without a value: works without a file, refuses one.
	plain := importKey(t, dev, key)
	if s, err := OpenWith(dev, plain, Options{AuthFile: good}); !errors.Is(err, ErrAuth) {
		if s != nil {
			s.Close()
		}
		t.Errorf("a value for a key without one: %v", err)
	}
	ps, err := OpenWith(dev, plain, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ps.Derive(in); err != nil || got != want {
		t.Errorf("key without a value: %x, %v", got, err)
	}
	ps.Close()

	// The longest value.
	long := bytes.Repeat([]byte{'x'}, MaxAuthLen)
	ls, err := OpenWith(dev, importKeyAuth(t, dev, key, long), Options{AuthFile: writeSecret(t, long)})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ls.Derive(in); err != nil || got != want {
		t.Errorf("%d-byte value: %x, %v", MaxAuthLen, got, err)
	}
	ls.Close()

	// Value files: the rules of PIN files, and what the TPM takes.
	open := writeSecret(t, auth)
	os.Chmod(open, 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for name, c := range map[string]struct {
		path string
		want error
	}{
		"mode 0644":   {open, keysource.ErrPermissions},
		"empty":       {empty, keysource.ErrPIN},
		"absent":      {filepath.Join(dir, "absent"), keysource.ErrKeyFile},
		"a directory": {dir, keysource.ErrKeyFile},
		"33 bytes":    {writeSecret(t, bytes.Repeat([]byte{'x'}, MaxAuthLen+1)), keysource.ErrKeyFile},
		"a NUL byte":  {writeSecret(t, []byte("ab\x00cd")), keysource.ErrKeyFile},
	} {
		if s, err := OpenWith(dev, blob, Options{AuthFile: c.path}); !errors.Is(err, c.want) {
			if s != nil {
				s.Close()
			}
			t.Errorf("value file %s: %v, want %v", name, err, c.want)
		}
	}
	tr, err := OpenTransport(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, a := range [][]byte{bytes.Repeat([]byte{1}, MaxAuthLen+1), []byte("a\x00")} {
		if _, err := ImportKeyAuth(tr, key, a); !errors.Is(err, keysource.ErrKeyFile) {
			t.Errorf("ImportKeyAuth with %q: %v", a, err)
		}
	}
}

// TestAuthRefusedOnce checks that a Source whose value the TPM refuses
// does not send it again: the value is changed under an open source, then
// restored, and Derive keeps failing with the first refusal.
func TestAuthRefusedOnce(t *testing.T) {
	dev := hsmtest.SWTPM(t, false)
	setLockout(t, dev, 100)
	key := bytes.Repeat([]byte{0x3b}, 32)
	auth := []byte("hunter2")
	s, err := OpenWith(dev, importKeyAuth(t, dev, key, auth), Options{AuthFile: writeSecret(t, auth)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.auth[0] ^= 1 // the session uses this slice
	_, err1 := s.Derive(nil)
	if !errors.Is(err1, ErrAuth) {
		t.Fatalf("Derive with a changed value: %v", err1)
	}
	s.auth[0] ^= 1
	if _, err := s.Derive(nil); err == nil || err.Error() != err1.Error() {
		t.Fatalf("Derive after a refusal: %v; want the first refusal %v", err, err1)
	}
}

// lockoutCounter returns the TPM's count of authorization failures
// (TPM_PT_LOCKOUT_COUNTER).
func lockoutCounter(t testing.TB, dev string) uint32 {
	t.Helper()
	tr, err := OpenTransport(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	rsp, err := tpm2.GetCapability{Capability: tpm2.TPMCapTPMProperties, Property: uint32(tpm2.TPMPTLockoutCounter), PropertyCount: 1}.Execute(tr)
	if err != nil {
		t.Fatal(err)
	}
	p, err := rsp.CapabilityData.Data.TPMProperties()
	if err != nil || len(p.TPMProperty) == 0 || p.TPMProperty[0].Property != tpm2.TPMPTLockoutCounter {
		t.Fatalf("TPM_PT_LOCKOUT_COUNTER: %v", err)
	}
	return p.TPMProperty[0].Value
}

// TestNoLockout checks the choice the package documentation explains:
// keys with an authorization value keep noDA. With a TPM set to lock out
// after two failures, three Opens with a wrong value and restarts of the
// TPM after the key was used count nothing, and the right value still
// works.
func TestNoLockout(t *testing.T) {
	e := newEmulator(t)
	setLockout(t, e.dev(), 2)
	key := bytes.Repeat([]byte{0x3c}, 32)
	auth := []byte("right")
	blob := importKeyAuth(t, e.dev(), key, auth)
	right := writeSecret(t, auth)
	wrong := writeSecret(t, []byte("wrong"))
	for i := range 3 {
		if _, err := OpenWith(e.dev(), blob, Options{AuthFile: wrong}); !errors.Is(err, ErrAuth) {
			t.Fatalf("wrong value %d: %v", i, err)
		}
	}
	for i := range 3 {
		s, err := OpenWith(e.dev(), blob, Options{AuthFile: right})
		if err != nil {
			t.Fatalf("right value, round %d: %v", i, err)
		}
		if got, err := s.Derive(nil); err != nil || got != hmacOf(key, nil) {
			t.Fatalf("round %d: %x, %v", i, got, err)
		}
		s.Close()
		e.restart() // without TPM2_Shutdown
	}
	if n := lockoutCounter(t, e.dev()); n != 0 {
		t.Errorf("the TPM counted %d authorization failures", n)
	}
}

// fakeTPM answers each command with the next of its response codes.
type fakeTPM struct {
	codes []uint32
	sent  int
}

func (f *fakeTPM) Send(cmd []byte) ([]byte, error) {
	rc := f.codes[min(f.sent, len(f.codes)-1)]
	f.sent++
	rsp := binary.BigEndian.AppendUint16(nil, 0x8001)
	rsp = binary.BigEndian.AppendUint32(rsp, 10)
	return binary.BigEndian.AppendUint32(rsp, rc), nil
}

func (f *fakeTPM) Close() error { return nil }

// TestResend checks that a command answered TPM_RC_RETRY, TPM_RC_YIELDED
// or TPM_RC_TESTING is sent again, a bounded number of times, and that
// other answers are returned at once.
func TestResend(t *testing.T) {
	for _, c := range []struct {
		codes    []uint32
		sent     int
		lastCode uint32
	}{
		{[]uint32{0}, 1, 0},
		{[]uint32{uint32(tpm2.TPMRCRetry), uint32(tpm2.TPMRCYielded), uint32(tpm2.TPMRCTesting), 0}, 4, 0},
		{[]uint32{uint32(tpm2.TPMRCBadAuth)}, 1, uint32(tpm2.TPMRCBadAuth)},
		{[]uint32{uint32(tpm2.TPMRCRetry)}, maxResends + 1, uint32(tpm2.TPMRCRetry)},
	} {
		f := &fakeTPM{codes: c.codes}
		rsp, err := resender{f}.Send([]byte("command"))
		if err != nil || f.sent != c.sent || binary.BigEndian.Uint32(rsp[6:10]) != c.lastCode {
			t.Errorf("codes %x: sent %d times, response %x, %v; want %d times", c.codes, f.sent, rsp, err, c.sent)
		}
	}
}
