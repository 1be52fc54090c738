//go:build cgo

package p11

import (
	"bytes"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/kexlab/kexlab/internal/hsmtest"
	"github.com/kexlab/kexlab/wg/keysource"
)

// TestPINEnvReconnect opens a source with the PIN in an environment
// variable, which Open removes; closing every session of the token (which
// logs it out, as a token reset or a module restart would) then forces
// Derive to reopen a session and log in again with the PIN the source
// kept, from several goroutines at once.
func TestPINEnvReconnect(t *testing.T) {
	h := hsmtest.NewSoftHSM(t, "env")
	key := bytes.Repeat([]byte{0x17}, 32)
	tok := token(t, h, "env")
	if err := tok.ImportKey("k", key); err != nil {
		t.Fatal(err)
	}
	tok.Close() // log out, so that every login below is a real one
	const env = "KEXLAB_TEST_PIN_RECONNECT"
	t.Setenv(env, hsmtest.PIN)
	cfg := Config{Module: h.Module, TokenLabel: "env", KeyLabel: "k", PINEnv: env}
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if v, ok := os.LookupEnv(env); ok || os.Getenv(env) != "" {
		t.Fatalf("after Open the environment still has %s=%q", env, v)
	}
	in := []byte("reconnect")
	want := hmacSHA256(key, in)
	for round := range 3 {
		if got, err := s.Derive(in); err != nil || !bytes.Equal(got[:], want) {
			t.Fatalf("round %d: %x, %v", round, got, err)
		}
		// Close every session of the application on the token: the
		// token logs the application out.
		if err := s.c.Ctx.CloseAllSessions(s.c.Slot); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				if got, err := s.Derive(in); err != nil || !bytes.Equal(got[:], want) {
					t.Errorf("round %d, goroutine %d, after the sessions were closed: %x, %v", round, g, got, err)
				}
			})
		}
		wg.Wait()
	}
	// The variable is gone: a second Open with the same Config has no PIN.
	if s2, err := Open(cfg); !errors.Is(err, keysource.ErrPIN) {
		if s2 != nil {
			s2.Close()
		}
		t.Errorf("second Open from the unset variable: %v", err)
	}
	s.Close()
	if s.pin != nil {
		t.Errorf("Close left the PIN in the source")
	}
	// OpenToken removes the variable too.
	t.Setenv(env, hsmtest.PIN)
	tok2, err := OpenToken(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tok2.Close()
	if _, ok := os.LookupEnv(env); ok {
		t.Errorf("after OpenToken the environment still has %s", env)
	}
}
