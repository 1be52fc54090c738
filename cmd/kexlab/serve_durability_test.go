package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server/client"
	"github.com/kexlab/kexlab/server/store/postgres/pgtest"
)

// The durability test's bounds.
const (
	durKills       = 5                       // SIGKILLs during the stream
	durWorkers     = 3                       // goroutines registering
	durMaxAttempts = 200                     // registrations tried, at most (a bound; about 100 are)
	durKillMin     = 300 * time.Millisecond  // time between restart and kill: uniform in [min, max)
	durKillMax     = 1500 * time.Millisecond //
	durTail        = time.Second             // the stream goes on this long after the last restart
	durTimeout     = 90 * time.Second        // the whole test
)

// durArgs lift kexlab serve's per-address buckets out of the way: every
// registration and login comes from 127.0.0.1, and the buckets live in
// the store, so restarts do not refill them.
var durArgs = []string{"-register-rate", "1e6", "-register-burst", "1000000", "-addr-rate", "1e6", "-addr-burst", "1000000"}

// TestServeDurabilitySQLite: a registration acknowledged with 2xx survives
// kill -9 at any moment (SQLite: WAL with synchronous=FULL). A stream of
// registrations runs from a few goroutines against kexlab serve, which is
// killed with SIGKILL durKills times at random moments and restarted on
// the same data directory (and a new port); then it is killed once more,
// restarted, and every acknowledged account must log in.
//
// A SIGKILL loses the process, not the kernel's page cache: this checks
// that nothing is acknowledged before its commit has reached the database
// file's write path (no reply ahead of the commit, no buffering in the
// process). The fsync half of the requirement (power loss) needs a
// machine that loses its page cache, which a test cannot do here.
func TestServeDurabilitySQLite(t *testing.T) {
	testServeDurability(t, nil)
}

// TestServeDurabilityPostgres is the same with PostgreSQL (the transaction
// committed before the reply), on pgtest's throwaway cluster (fsync on).
func TestServeDurabilityPostgres(t *testing.T) {
	testServeDurability(t, []string{"-db", pgtest.DSN(t)})
}

// durAccount is a registration the service acknowledged.
type durAccount struct{ user, scheme string }

func durPassword(user string) []byte { return []byte("pw of " + user) }

func testServeDurability(t *testing.T, extra []string) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), durTimeout)
	defer cancel()
	data := t.TempDir()
	args := append(append([]string{"-data", data}, durArgs...), extra...)
	logPath := filepath.Join(t.TempDir(), "serve.log")
	proc := startKillable(t, logPath, args...)
	defer func() {
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("kexlab serve's log (last 4 KiB):\n%s", b[max(0, len(b)-4096):])
			}
		}
	}()

	var (
		cur      atomic.Pointer[string] // the live server's URL
		attempts atomic.Int64
		stop     atomic.Bool
		mu       sync.Mutex
		acked    []durAccount
		failed   []string // attempts that got an error (may or may not exist)
	)
	u := proc.url
	cur.Store(&u)
	hc := &http.Client{Timeout: 20 * time.Second}
	schemes := []string{"opaque", "srp-2048"}
	var wg sync.WaitGroup
	for range durWorkers {
		wg.Go(func() {
			for !stop.Load() && ctx.Err() == nil {
				n := attempts.Add(1)
				if n > durMaxAttempts {
					return
				}
				user, scheme := fmt.Sprintf("user-%03d", n), schemes[n%2]
				err := client.New(*cur.Load(), hc).Register(ctx, scheme, user, durPassword(user))
				mu.Lock()
				if err == nil {
					acked = append(acked, durAccount{user, scheme})
				} else {
					failed = append(failed, fmt.Sprintf("%s: %v", user, err))
				}
				mu.Unlock()
				var ae *client.Error
				if err != nil && !errors.As(err, &ae) {
					// The server is gone: wait a little for its successor.
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}

	// The killer: SIGKILL at a random moment, restart, durKills times.
	kills := 0
	var lastRestart time.Time
	for kills < durKills && ctx.Err() == nil && attempts.Load() < durMaxAttempts {
		wait := durKillMin + rand.N(durKillMax-durKillMin)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
		mu.Lock()
		before := len(acked)
		mu.Unlock()
		proc.kill9(t)
		kills++
		proc = startKillable(t, logPath, args...)
		u := proc.url
		cur.Store(&u)
		lastRestart = time.Now()
		t.Logf("kill %d after %v (%d acknowledged so far); restarted at %s", kills, wait.Round(time.Millisecond), before, u)
	}
	select {
	case <-time.After(time.Until(lastRestart.Add(durTail))):
	case <-ctx.Done():
	}
	stop.Store(true)
	wg.Wait()
	if kills != durKills {
		t.Fatalf("only %d kills in %v (%d attempts)", kills, time.Since(began), attempts.Load())
	}
	// And once more, whatever was in flight at the end.
	proc.kill9(t)
	streamed := time.Since(began)
	if len(acked) < 20 {
		t.Fatalf("only %d registrations acknowledged (%d failed): too few to mean anything", len(acked), len(failed))
	}

	// Every acknowledged account logs in, on a fresh start.
	url := startServe(t, args...)
	c := client.New(url, hc)
	var lost []string
	jobs := make(chan durAccount)
	for range 2 {
		wg.Go(func() {
			for a := range jobs {
				sess, err := c.Login(ctx, a.scheme, a.user, durPassword(a.user))
				if err == nil && sess.User == a.user {
					continue
				}
				mu.Lock()
				lost = append(lost, fmt.Sprintf("%s (%s): %v", a.user, a.scheme, err))
				mu.Unlock()
			}
		})
	}
	for _, a := range acked {
		jobs <- a
	}
	close(jobs)
	wg.Wait()
	for _, l := range lost {
		t.Errorf("acknowledged registration lost: %s", l)
	}
	for i, f := range failed {
		if i == 5 {
			t.Logf("... and %d more", len(failed)-5)
			break
		}
		t.Logf("failed registration (may or may not exist): %s", f)
	}
	t.Logf("%d kills; %d registrations tried, %d acknowledged, %d failed; %d lost; stream %v, total %v",
		kills, min(attempts.Load(), durMaxAttempts), len(acked), len(failed), len(lost),
		streamed.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
}

// killable is a kexlab serve process that the test kills with SIGKILL.
type killable struct {
	cmd  *exec.Cmd
	url  string
	done chan error
}

// startKillable starts `kexlab serve` as startServe does, with its
// stderr appended to logPath, and returns once it listens. A cleanup kills
// it if the test has not.
func startKillable(t *testing.T, logPath string, args ...string) *killable {
	t.Helper()
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	fmt.Fprintf(logf, "--- start %s\n", time.Now().Format(time.StampMicro))
	cmd, out := serveProcess(t, logf, args...)
	k := &killable{cmd: cmd, done: make(chan error, 1)}
	t.Cleanup(func() { k.kill9(t) })
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		line, _ := r.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, r) // drain until the process is gone
		k.done <- cmd.Wait()
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatal("kexlab serve did not say where it listens within 30 s")
	}
	m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("kexlab serve said %q", line)
	}
	k.url = m[1]
	return k
}

// kill9 sends SIGKILL (once) and waits for the process to be gone.
func (k *killable) kill9(t *testing.T) {
	if k.done == nil {
		return
	}
	k.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case err := <-k.done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Errorf("kexlab serve ended with %v before its SIGKILL", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("kexlab serve still runs 10 s after SIGKILL")
	}
	k.done = nil
}
