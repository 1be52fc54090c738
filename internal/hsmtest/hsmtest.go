// Package hsmtest starts the real key-source back ends the tests use — a
// SoftHSM2 token and a swtpm TPM 2.0 emulator — and loads the HMAC test
// vectors shared by the key-source tests.
//
// It is shared by the tests of wg/keysource/... and of cmd/kexlab.
//
// A test that needs a tool calls Need: without the tool it skips with a
// message naming scripts/wg-test-deps.sh, or fails when the environment
// sets KEXLAB_REQUIRE_HSM=1 (as `make test` does).
package hsmtest

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kexlab/kexlab/internal/testvec"
)

// RequireEnv is the variable that turns a missing tool into a failure.
const RequireEnv = "KEXLAB_REQUIRE_HSM"

// SoftHSMModules are the places Debian and others install SoftHSM2.
var SoftHSMModules = []string{
	"/usr/lib/softhsm/libsofthsm2.so",
	"/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
	"/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so",
	"/usr/local/lib/softhsm/libsofthsm2.so",
}

func missing(t testing.TB, what string) {
	t.Helper()
	skipOrFail(t, fmt.Sprintf("%s not available; run scripts/wg-test-deps.sh (or make hsm) to install it", what))
}

func skipOrFail(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s=1: %s", RequireEnv, msg)
	}
	t.Skip(msg)
}

// Need returns the path of each command, or skips/fails the test.
func Need(t testing.TB, cmds ...string) {
	t.Helper()
	for _, c := range cmds {
		if _, err := exec.LookPath(c); err != nil {
			missing(t, c)
		}
	}
}

// PIN is the user PIN of the tokens SoftHSM creates.
const PIN = "123456"

// SoftHSM is a SoftHSM2 installation private to one test.
type SoftHSM struct {
	Module  string // path of libsofthsm2.so
	PINFile string // a mode-0600 file holding PIN
}

// NewSoftHSM writes a SoftHSM2 configuration with a token directory under
// t.TempDir, points SOFTHSM2_CONF at it (so the test must not be parallel),
// and initialises one token per label with user PIN PIN. In a build
// without cgo, where package p11 cannot load a module, it skips (or fails).
func NewSoftHSM(t testing.TB, labels ...string) *SoftHSM {
	t.Helper()
	if !cgoEnabled {
		skipOrFail(t, "built without cgo: PKCS#11 needs cgo")
	}
	Need(t, "softhsm2-util")
	mod := ""
	for _, m := range SoftHSMModules {
		if _, err := os.Stat(m); err == nil {
			mod = m
			break
		}
	}
	if mod == "" {
		missing(t, "libsofthsm2.so")
	}
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.Mkdir(tokens, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "softhsm2.conf")
	cfg := "directories.tokendir = " + tokens + "\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n"
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOFTHSM2_CONF", conf)
	for _, l := range labels {
		out, err := exec.Command("softhsm2-util", "--init-token", "--free", "--label", l,
			"--pin", PIN, "--so-pin", "12345678").CombinedOutput()
		if err != nil {
			t.Fatalf("softhsm2-util --init-token %s: %v\n%s", l, err, out)
		}
	}
	pinFile := filepath.Join(dir, "pin")
	if err := os.WriteFile(pinFile, []byte(PIN+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &SoftHSM{Module: mod, PINFile: pinFile}
}

// SWTPM starts a swtpm TPM 2.0 emulator with its state in t.TempDir and
// returns its address in the form tpm.OpenTransport takes: "unix:PATH", or
// "tcp:127.0.0.1:PORT" if tcp is set. The emulator is killed at cleanup.
func SWTPM(t testing.TB, tcp bool) string {
	t.Helper()
	Need(t, "swtpm")
	dir := t.TempDir()
	var server, addr string
	if tcp {
		port := freePort(t)
		server = "type=tcp,port=" + strconv.Itoa(port) + ",bindaddr=127.0.0.1"
		addr = "tcp:127.0.0.1:" + strconv.Itoa(port)
	} else {
		sock := filepath.Join(dir, "tpm.sock")
		server = "type=unixio,path=" + sock
		addr = "unix:" + sock
	}
	cmd := exec.Command("swtpm", "socket", "--tpm2",
		"--tpmstate", "dir="+dir,
		"--server", server,
		"--ctrl", "type=unixio,path="+filepath.Join(dir, "ctrl.sock"),
		"--flags", "not-need-init,startup-clear",
		"--log", "file="+filepath.Join(dir, "log"))
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting swtpm: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	network, target := "unix", addr[len("unix:"):]
	if tcp {
		network, target = "tcp", addr[len("tcp:"):]
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-done:
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Fatalf("swtpm exited: %v\n%s", err, log)
		default:
		}
		if c, err := net.Dial(network, target); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("swtpm did not start listening within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return addr
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Vector is an HMAC-SHA256 test: Tag = HMAC-SHA256(Key, Msg) when Valid.
type Vector struct {
	Name          string
	Key, Msg, Tag []byte
	Valid         bool
}

// Wycheproof returns the cases of wycheproof/hmac_sha256_test.json with a
// 256-bit key and a 256-bit tag: the valid ones, whose tag a source must
// reproduce, and the invalid ones (modified tags), which it must not.
func Wycheproof(t testing.TB) []Vector {
	t.Helper()
	var f struct {
		TestGroups []struct {
			KeySize, TagSize int
			Tests            []struct {
				TcID    int
				Comment string
				Key     string
				Msg     string
				Tag     string
				Result  string
			}
		}
	}
	testvec.JSON(t, "wycheproof/hmac_sha256_test.json", &f)
	var vs []Vector
	for _, g := range f.TestGroups {
		if g.KeySize != 256 || g.TagSize != 256 {
			continue
		}
		for _, tc := range g.Tests {
			vs = append(vs, Vector{
				Name:  fmt.Sprintf("wycheproof/%d %s", tc.TcID, tc.Comment),
				Key:   unhex(t, tc.Key),
				Msg:   unhex(t, tc.Msg),
				Tag:   unhex(t, tc.Tag),
				Valid: tc.Result == "valid",
			})
		}
	}
	if len(vs) == 0 {
		t.Fatal("no 256-bit Wycheproof HMAC-SHA256 cases")
	}
	return vs
}

// RFC4231 returns the HMAC-SHA-256 results of RFC 4231 test cases 1–4
// (§4.2–§4.5), 6 and 7 (§4.7, §4.8), transcribed from the RFC; case 5
// (truncated output) is omitted. None has a 32-byte key, so they run
// through the sources that import keys of other sizes, and only those
// whose key is minKey to maxKey bytes: SoftHSM2 refuses HMAC-SHA256 keys
// under 32 bytes (CKR_KEY_SIZE_RANGE), a TPM keyed-hash object holds at
// most 128 bytes.
func RFC4231(minKey, maxKey int) []Vector {
	all := []Vector{
		{Name: "RFC 4231 4.2 test case 1", Key: rep(0x0b, 20), Msg: []byte("Hi There"),
			Tag: h("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")},
		{Name: "RFC 4231 4.3 test case 2", Key: []byte("Jefe"), Msg: []byte("what do ya want for nothing?"),
			Tag: h("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")},
		{Name: "RFC 4231 4.4 test case 3", Key: rep(0xaa, 20), Msg: rep(0xdd, 50),
			Tag: h("773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")},
		{Name: "RFC 4231 4.5 test case 4", Key: h("0102030405060708090a0b0c0d0e0f10111213141516171819"), Msg: rep(0xcd, 50),
			Tag: h("82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")},
		{Name: "RFC 4231 4.7 test case 6", Key: rep(0xaa, 131), Msg: []byte("Test Using Larger Than Block-Size Key - Hash Key First"),
			Tag: h("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")},
		{Name: "RFC 4231 4.8 test case 7", Key: rep(0xaa, 131), Msg: []byte("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."),
			Tag: h("9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")},
	}
	var vs []Vector
	for _, v := range all {
		if len(v.Key) >= minKey && len(v.Key) <= maxKey {
			v.Valid = true
			vs = append(vs, v)
		}
	}
	return vs
}

func rep(b byte, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = b
	}
	return s
}

func h(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex in vectors: %v", err)
	}
	return b
}
