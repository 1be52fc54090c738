package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server/client"
	"github.com/kexlab/kexlab/server/load"
	"github.com/kexlab/kexlab/server/store/postgres/pgtest"
)

// The scale-out test: two kexlab serve instances on one PostgreSQL behind
// a real load balancer (Debian's HAProxy, round robin per request, no
// affinity), on loopback. make loadtest runs it with more load
// (KEXLAB_LOADTEST=1); make test runs the short version.

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// instance is a kexlab serve process this test may kill and restart.
type instance struct {
	t    *testing.T
	args []string
	cmd  *exec.Cmd
	url  string
	log  *os.File // its standard error, shown if the test fails
}

func (in *instance) start() {
	in.t.Helper()
	if in.log == nil {
		f, err := os.CreateTemp(in.t.TempDir(), "serve-*.log")
		if err != nil {
			in.t.Fatal(err)
		}
		in.log = f
		in.t.Cleanup(func() {
			if in.t.Failed() {
				b, _ := os.ReadFile(f.Name())
				var notable []string
				for _, line := range strings.Split(string(b), "\n") {
					if line != "" && !strings.Contains(line, "level=INFO") {
						notable = append(notable, line)
					}
				}
				in.t.Logf("%s's log, beyond INFO:\n%s", in.url, strings.Join(notable[max(0, len(notable)-20):], "\n"))
			}
		})
	}
	cmd, out := serveProcess(in.t, in.log, in.args...)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		in.t.Fatalf("kexlab serve: %v", err)
	}
	m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(line)
	if m == nil {
		in.t.Fatalf("kexlab serve said %q", line)
	}
	go io.Copy(io.Discard, out)
	in.cmd, in.url = cmd, m[1]
}

func (in *instance) kill() {
	in.cmd.Process.Kill()
	in.cmd.Wait()
}

func (in *instance) stop() {
	in.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { in.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		in.kill()
	}
}

// routeCount reads an instance's /metrics: requests of route answered 200.
func routeCount(t *testing.T, base, route string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	re := regexp.MustCompile(`kexlab_request_duration_seconds_count\{code="200",route="` + regexp.QuoteMeta(route) + `"\} (\d+)`)
	m := re.FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func TestScaleOutBehindHAProxy(t *testing.T) {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil { // Debian's is in /usr/sbin, off some users' PATH
		haproxy, err = exec.LookPath("/usr/sbin/haproxy")
	}
	if err != nil {
		if os.Getenv("KEXLAB_REQUIRE_HAPROXY") == "1" {
			t.Fatal("haproxy is not installed (make test installs Debian's haproxy)")
		}
		t.Skip("haproxy is not installed")
	}
	long := os.Getenv("KEXLAB_LOADTEST") == "1"
	dsn := pgtest.DSN(t)
	data := t.TempDir()
	common := []string{"-db", dsn, "-data", data, "-scrypt-n", "2", "-register-rate", "1000", "-register-burst", "1000",
		"-addr-rate", "100000", "-addr-burst", "100000", "-flow-ttl", "1m"}
	pa, pb, plb := freePort(t), freePort(t), freePort(t)
	a := &instance{t: t, args: append([]string{"-addr", fmt.Sprintf("127.0.0.1:%d", pa)}, common...)}
	b := &instance{t: t, args: append([]string{"-addr", fmt.Sprintf("127.0.0.1:%d", pb)}, common...)}
	a.start()
	t.Cleanup(a.stop)
	b.start()
	t.Cleanup(func() { b.stop() })

	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`global
	maxconn 2000
defaults
	mode http
	timeout connect 1s
	timeout client 60s
	timeout server 60s
	retries 3
	option redispatch
frontend fe
	bind 127.0.0.1:%d
	default_backend be
backend be
	balance roundrobin
	option httpchk GET /readyz
	default-server inter 200ms fall 1 rise 2
	server a 127.0.0.1:%d check
	server b 127.0.0.1:%d check
`, plb, pa, pb)), 0o644)
	lbCmd := exec.Command(haproxy, "-f", cfg, "-db")
	lbOut, _ := os.Create(filepath.Join(t.TempDir(), "haproxy.log"))
	lbCmd.Stdout, lbCmd.Stderr = lbOut, lbOut
	if err := lbCmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lbCmd.Process.Kill(); lbCmd.Wait() })
	lb := fmt.Sprintf("http://127.0.0.1:%d", plb)
	waitBoth := func() {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		before := [2]int{routeCount(t, a.url, "GET /healthz"), routeCount(t, b.url, "GET /healthz")}
		for time.Now().Before(deadline) {
			if resp, err := http.Get(lb + "/healthz"); err == nil {
				resp.Body.Close()
			}
			if routeCount(t, a.url, "GET /healthz") > before[0] && routeCount(t, b.url, "GET /healthz") > before[1] {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("the balancer does not reach both instances")
	}
	waitBoth()
	ctx := context.Background()
	hc := &http.Client{Timeout: time.Minute}

	// Logins in sequence: round robin per request sends a login's start
	// and finish to different instances; an instance whose starts and
	// finishes differ in number shows flows that crossed.
	c := client.New(lb, hc)
	if err := c.Register(ctx, "srp-2048", "seq", []byte("pw")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if _, err := c.Login(ctx, "srp-2048", "seq", []byte("pw")); err != nil {
			t.Fatalf("login %d through the balancer: %v", i, err)
		}
	}
	crossed := false
	for _, in := range []*instance{a, b} {
		s, f := routeCount(t, in.url, "POST /v1/login/start"), routeCount(t, in.url, "POST /v1/login/finish")
		t.Logf("%s: %d login starts, %d finishes", in.url, s, f)
		crossed = crossed || s != f
	}
	if !crossed {
		t.Error("every login started and finished on the same instance: the balancer does not spread requests")
	}

	// Load through the balancer: every login accounted for, both instances busy.
	n := 60
	if long {
		n = 600
	}
	res, err := load.Run(ctx, load.Config{URL: lb, Scheme: "opaque", Accounts: 4,
		Loop: load.Loop{Concurrency: 4, Duration: 5 * time.Minute, Requests: n}})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != int64(n) || len(res.Errors) != 0 {
		t.Errorf("through the balancer: %d of %d logins, errors %v", res.OK, n, res.Errors)
	}
	t.Logf("two instances through HAProxy: %.1f logins/s, p50 %.2f ms, p99 %.2f ms", res.Throughput, res.Latency.P50, res.Latency.P99)
	for _, in := range []*instance{a, b} {
		if routeCount(t, in.url, "POST /v1/login/finish") == 0 {
			t.Errorf("%s finished no login", in.url)
		}
	}

	// An instance killed under load: its in-flight requests fail, the rest
	// goes on through the other; every login is a success or an error,
	// once; every acknowledged registration survives; the restarted
	// instance rejoins.
	m := 150
	if long {
		m = 1500
	}
	var wg sync.WaitGroup
	var under *load.Result
	var underErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		under, underErr = load.Run(ctx, load.Config{URL: lb, Scheme: "opaque", Accounts: 4,
			Loop: load.Loop{Concurrency: 8, Rate: 100, Duration: 5 * time.Minute, Requests: m}})
	}()
	var acked []string
	stopReg := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		rc := client.New(lb, hc)
		for i := 0; ; i++ {
			select {
			case <-stopReg:
				return
			default:
			}
			user := fmt.Sprintf("ack-%d", i)
			if err := rc.Register(ctx, "srp-2048", user, []byte("pw")); err == nil {
				acked = append(acked, user)
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	b.kill()
	time.Sleep(time.Second)
	b.start() // same address: HAProxy's health check brings it back
	time.Sleep(500 * time.Millisecond)
	close(stopReg)
	wg.Wait()
	if underErr != nil {
		t.Fatal(underErr)
	}
	failed := 0
	for _, k := range under.Errors {
		failed += k
	}
	t.Logf("kill under load: %d ok, errors %v", under.OK, under.Errors)
	if under.OK+int64(failed) != int64(m) {
		t.Errorf("%d ok + %d failed logins, want %d: a login lost or counted twice", under.OK, failed, m)
	}
	if under.OK < int64(m)/2 {
		t.Errorf("only %d of %d logins succeeded with one instance killed for a second", under.OK, m)
	}
	if len(acked) == 0 {
		t.Fatal("no registration was acknowledged during the kill")
	}
	for _, user := range acked {
		if _, err := c.Login(ctx, "srp-2048", user, []byte("pw")); err != nil {
			t.Errorf("acknowledged registration %s: %v", user, err)
		}
	}
	t.Logf("%d registrations acknowledged during the kill, all found", len(acked))
	waitBoth() // the restarted instance serves again through the balancer

	if long {
		// Throughput with one instance (direct) and with two (balanced),
		// closed loop: on 2 cores the load generator and both instances
		// share the machine, so this shows the shape, not scaling.
		for _, target := range []struct{ name, url string }{{"one instance", a.url}, {"two instances via HAProxy", lb}} {
			r, err := load.Run(ctx, load.Config{URL: target.url, Scheme: "opaque", Accounts: 4,
				Loop: load.Loop{Concurrency: 8, Duration: 5 * time.Second, Warmup: time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.1f logins/s, p50 %.2f ms, p99 %.2f ms", target.name, r.Throughput, r.Latency.P50, r.Latency.P99)
		}
	}
}
