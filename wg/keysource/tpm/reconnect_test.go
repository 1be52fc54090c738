package tpm

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kexlab/kexlab/internal/hsmtest"
	"github.com/kexlab/kexlab/wg/keysource"
)

// emulator is a swtpm that a test can kill and start again on the same
// state directory and socket, as an operator restarting the TPM emulator
// (or a resource manager) under a running daemon would. hsmtest.SWTPM
// starts one that lives as long as the test.
type emulator struct {
	t    testing.TB
	dir  string
	sock string
	cmd  *exec.Cmd
	done chan error
}

func newEmulator(t testing.TB) *emulator {
	t.Helper()
	hsmtest.Need(t, "swtpm")
	e := &emulator{t: t, dir: t.TempDir()}
	e.sock = filepath.Join(e.dir, "tpm.sock")
	e.start()
	t.Cleanup(e.kill)
	return e
}

// dev is the emulator's address for OpenTransport.
func (e *emulator) dev() string { return "unix:" + e.sock }

func (e *emulator) start() {
	e.t.Helper()
	os.Remove(e.sock) // a killed swtpm leaves its socket file
	e.cmd = exec.Command("swtpm", "socket", "--tpm2",
		"--tpmstate", "dir="+e.dir,
		"--server", "type=unixio,path="+e.sock,
		"--ctrl", "type=unixio,path="+filepath.Join(e.dir, "ctrl.sock"),
		"--flags", "not-need-init,startup-clear",
		"--log", "file="+filepath.Join(e.dir, "log"))
	if err := e.cmd.Start(); err != nil {
		e.t.Fatalf("starting swtpm: %v", err)
	}
	e.done = make(chan error, 1)
	go func(cmd *exec.Cmd, done chan error) { done <- cmd.Wait() }(e.cmd, e.done)
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-e.done:
			log, _ := os.ReadFile(filepath.Join(e.dir, "log"))
			e.cmd = nil
			e.t.Fatalf("swtpm exited: %v\n%s", err, log)
		default:
		}
		if c, err := net.Dial("unix", e.sock); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatal("swtpm did not start listening within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill stops the emulator with SIGKILL: no orderly TPM2_Shutdown, as in a
// crash. The TPM's persistent state (its seeds) is on disk already.
func (e *emulator) kill() {
	if e.cmd == nil {
		return
	}
	e.cmd.Process.Kill()
	<-e.done
	e.cmd = nil
}

func (e *emulator) restart() {
	e.t.Helper()
	e.kill()
	e.start()
}

func hmacOf(key, msg []byte) [32]byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return [32]byte(m.Sum(nil))
}

// TestReconnect restarts the TPM emulator under an open source, for a key
// without an authorization value and for one with: the next Derive
// reconnects (new transport, primary key, loaded blob and, for the second,
// a new salted session) and gives the same output. While the emulator is
// down, Derive fails and says that reconnecting failed, and every later
// Derive tries again. (swtpm serves one connection at a time, so each
// source has its own emulator.)
func TestReconnect(t *testing.T) {
	for _, withAuth := range []bool{false, true} {
		name := "no authorization value"
		if withAuth {
			name = "authorization value"
		}
		t.Run(name, func(t *testing.T) { testReconnect(t, withAuth) })
	}
}

func testReconnect(t *testing.T, withAuth bool) {
	e := newEmulator(t)
	key := bytes.Repeat([]byte{0x5c}, 32)
	var opt Options
	var blob []byte
	if withAuth {
		auth := []byte("restart-proof")
		opt.AuthFile = writeSecret(t, auth)
		blob = importKeyAuth(t, e.dev(), key, auth)
	} else {
		blob = importKey(t, e.dev(), key)
	}
	s, err := OpenWith(e.dev(), blob, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := []byte("kexlab-wg v1 timestamp")
	want := hmacOf(key, in)
	derive := func(when string) {
		t.Helper()
		if got, err := s.Derive(in); err != nil || got != want {
			t.Fatalf("%s: %x, %v; want %x", when, got, err, want)
		}
	}
	derive("before the restart")

	// Restarted between two Derives: the first after it reconnects.
	for i := range 2 {
		e.restart()
		derive(fmt.Sprintf("after restart %d", i+1))
	}

	// Down: Derive fails, saying so, and keeps trying.
	e.kill()
	for i := range 2 {
		_, err := s.Derive(in)
		if err == nil || !strings.Contains(err.Error(), "reconnecting") || !errors.Is(err, keysource.ErrTokenNotFound) {
			t.Fatalf("Derive %d with the TPM down: %v", i, err)
		}
		t.Logf("TPM down: %v", err)
	}
	e.start()
	derive("after the TPM came back")

	// Restarted under concurrent Derives.
	e.restart()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 10 {
				if got, err := s.Derive(in); err != nil || got != want {
					t.Errorf("goroutine %d after a restart: %x, %v", g, got, err)
					return
				}
			}
		})
	}
	wg.Wait()

	// A closed source does not reconnect.
	s.Close()
	if _, err := s.Derive(in); !errors.Is(err, keysource.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if s.auth != nil {
		t.Error("Close left the authorization value in the source")
	}
}

// TestReconnectClearedTPM replaces the emulator's state by a new TPM's (a
// cleared TPM has new seeds): the blob no longer loads, and Derive says so
// with keysource.ErrKeyNotFound.
func TestReconnectClearedTPM(t *testing.T) {
	e := newEmulator(t)
	key := bytes.Repeat([]byte{0x11}, 32)
	s, err := Open(e.dev(), importKey(t, e.dev(), key))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Derive(nil); err != nil {
		t.Fatal(err)
	}
	e.kill()
	entries, err := os.ReadDir(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		if strings.HasPrefix(ent.Name(), "tpm2-") {
			os.Remove(filepath.Join(e.dir, ent.Name()))
		}
	}
	e.start()
	if _, err := s.Derive(nil); !errors.Is(err, keysource.ErrKeyNotFound) || !strings.Contains(err.Error(), "reconnecting") {
		t.Fatalf("Derive after the TPM was replaced: %v", err)
	}
}
