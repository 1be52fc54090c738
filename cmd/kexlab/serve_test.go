package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server/client"
	"github.com/kexlab/kexlab/server/store/postgres/pgtest"
	"github.com/kexlab/kexlab/wg/netlab"
)

// The test binary runs as kexlab itself when KEXLAB_TEST_MAIN=1, so that
// tests can start real kexlab processes.
func TestMain(m *testing.M) {
	netlab.MaybeRunHelper() // as main does: the soak lab's WireGuard devices
	if os.Getenv("KEXLAB_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	pgtest.Main(m)
}

// serveProcess starts `kexlab serve` on a free loopback port as a process
// (this test binary, re-executed), its standard error to stderr (nil:
// discarded), and returns it with its standard output.
func serveProcess(t *testing.T, stderr io.Writer, args ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "KEXLAB_TEST_MAIN=1")
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}

// startServe starts `kexlab serve` as a process and returns its base URL.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	cmd, out := serveProcess(t, nil, args...)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("kexlab serve exited: %v", err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Error("kexlab serve did not shut down within 30 s of SIGTERM")
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("kexlab serve: %v", err)
	}
	m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("kexlab serve said %q", line)
	}
	go func() { // drain
		b := make([]byte, 4096)
		for {
			if _, err := out.Read(b); err != nil {
				return
			}
		}
	}()
	return m[1]
}

// alternate is a minimal load balancer in the client: request i goes to
// backend i mod 2, so every flow's start and finish hit different
// instances.
type alternate struct {
	backends []*url.URL
	n        atomic.Uint64
}

func (a *alternate) RoundTrip(r *http.Request) (*http.Response, error) {
	b := a.backends[a.n.Add(1)%uint64(len(a.backends))]
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = b.Scheme, b.Host, b.Host
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeTwoInstances: two kexlab serve processes share one PostgreSQL
// database (and the secrets file); every flow starts on one and finishes on
// the other, for each scheme: registration, login, password change,
// logout.
func TestServeTwoInstances(t *testing.T) {
	dsn := pgtest.DSN(t)
	data := t.TempDir()
	a := startServe(t, "-db", dsn, "-data", data)
	b := startServe(t, "-db", dsn, "-data", data)
	var backends []*url.URL
	for _, s := range []string{a, b} {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, u)
	}
	c := client.New(a, &http.Client{Transport: &alternate{backends: backends}, Timeout: time.Minute})
	ctx := context.Background()
	for _, sc := range []string{"srp-2048", "opaque", "spake2plus", "apakepq"} {
		user, pw := "alice-"+sc, []byte("correct horse")
		if err := c.Register(ctx, sc, user, pw); err != nil {
			t.Fatalf("%s: register: %v", sc, err)
		}
		sess, err := c.Login(ctx, sc, user, pw)
		if err != nil {
			t.Fatalf("%s: login: %v", sc, err)
		}
		if _, err := c.Login(ctx, sc, user, []byte("wrong")); !client.IsCode(err, "auth_failed") {
			t.Errorf("%s: wrong password: %v", sc, err)
		}
		if err := c.ChangePassword(ctx, sess, sc, []byte("new")); err != nil {
			t.Fatalf("%s: password change: %v", sc, err)
		}
		sess, err = c.Login(ctx, sc, user, []byte("new"))
		if err != nil {
			t.Fatalf("%s: login with the new password: %v", sc, err)
		}
		if err := c.Logout(ctx, sess); err != nil {
			t.Errorf("%s: logout: %v", sc, err)
		}
	}
}
