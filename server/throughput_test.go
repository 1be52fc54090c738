//go:build unix

package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench/meter"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/pake/opaque"
	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/client"
	"github.com/kexlab/kexlab/server/loadstudy"
	"github.com/kexlab/kexlab/server/store/sqlite"
)

// The login benchmark's shape.
const (
	loginRounds   = 15 // rounds of (logins over HTTP, the same number of floors), order alternating
	loginConc     = 4  // concurrent logins in the client process
	loginAccounts = 8  // accounts the client process registers and logs in to, round robin
)

// driverEnv names the service URL for the client process of BenchmarkLogin
// (the test binary re-executed, running TestLoginDriver).
const driverEnv = "KEXLAB_LOGIN_DRIVER"

// BenchmarkLogin measures logins per second per core over HTTP on
// loopback — kexlab serve's handler with SQLite (WAL; login state at
// synchronous=NORMAL), the dispatcher, real TCP, the GC target of
// kexlab serve (TuneGC) — against the server-side primitive limit per
// core: floor.Floor.Server of the scheme's package, the group operations
// (or KEM calls) one login costs a server that holds the record.
//
// The clients run in another process (this test binary re-executed), so
// that this process's CPU time (getrusage) is the server's alone: HTTP,
// JSON, the store, the dispatcher, the scheme's protocol code and its
// primitives, GC. Each round runs n logins over HTTP and n floors, in
// alternating order, each timed on the process's CPU time; the ratio
// floor/HTTP of a round is the fraction of the primitive limit that the
// service reaches. Reported: logins/s/core (all rounds' logins over their
// server CPU time), limit/s/core, and the median, first and third
// quartiles of the rounds' ratios (n = loginRounds) as %limit, %limit-q1,
// %limit-q3, and the server CPU time per login beyond the limit's
// (µs-over/login; compare BenchmarkBareHTTP).
//
// The clients skip key stretching (KDF parameters N = 2 for SRP, SPAKE2+
// and apakepq, whose stretching the service only stores; the identity KSF
// for OPAQUE, which the server never sees): it is the client's cost, and
// on a 2-core machine it would only slow the measurement down.
//
//	go test -run '^$' -bench Login -benchtime 600x ./server/
func BenchmarkLogin(b *testing.B) {
	for _, sc := range []string{"srp-2048", "srp-3072", "spake2plus", "opaque", "apakepq"} {
		b.Run(sc, func(b *testing.B) { benchLogin(b, sc) })
	}
}

// BenchmarkBareHTTP is BenchmarkLogin's reference for what HTTP alone
// costs the server: the same client process and connections, three POSTs
// per "login" (a login's params, start and finish rounds) with JSON
// bodies of a login's sizes, answered by a handler that decodes the body
// and writes a JSON answer, with no store and no cryptography. Reported:
// the server's CPU time per three requests (µs/login). A scheme whose
// server-side primitive limit costs f per login cannot exceed
// f / (f + this) of it over HTTP, whatever the service does.
//
//	go test -run '^$' -bench BareHTTP -benchtime 6000x ./server/
func BenchmarkBareHTTP(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(bareHandler), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	d := startDriver(b, "http://"+ln.Addr().String(), bareScheme)
	defer d.stop()
	n := max(1, b.N/loginRounds)
	var cpu time.Duration
	b.ResetTimer()
	for range loginRounds {
		cpu += cpuOf(func() { d.logins(b, n) })
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Microseconds())/float64(n*loginRounds), "µs/login")
}

// bareScheme has TestLoginDriver send BenchmarkBareHTTP's requests.
const bareScheme = "bare-http"

// bareRequest and bareAnswer have the fields of a login round.
type bareRequest struct {
	User   string `json:"user"`
	Scheme string `json:"scheme"`
	Msg    []byte `json:"msg"`
}

type bareAnswer struct {
	Handle []byte `json:"handle"`
	Msg    []byte `json:"msg"`
}

func bareHandler(w http.ResponseWriter, r *http.Request) {
	var req bareRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(bareAnswer{Handle: make([]byte, 16), Msg: req.Msg})
}

// bareLogin is the client side of one BenchmarkBareHTTP "login".
func bareLogin(hc *http.Client, url string) error {
	body, _ := json.Marshal(bareRequest{User: "bench-0", Scheme: bareScheme, Msg: make([]byte, 65)})
	for range 3 {
		resp, err := hc.Post(url+"/v1/bare", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		var ans bareAnswer
		err = json.NewDecoder(resp.Body).Decode(&ans)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return fmt.Errorf("bare round: %s, %v", resp.Status, err)
		}
	}
	return nil
}

// serverFloor returns the server's share of scheme's primitive limit.
func serverFloor(tb testing.TB, scheme string) func() error {
	f, err := loadstudy.Limit(scheme)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func benchLogin(b *testing.B, scheme string) {
	prev := debug.SetGCPercent(100) // read the setting, restored after the run
	debug.SetGCPercent(prev)
	defer debug.SetGCPercent(prev)
	server.TuneGC() // as kexlab serve runs
	floorServer := serverFloor(b, scheme)
	dir := b.TempDir()
	st, err := sqlite.Open(filepath.Join(dir, "kexlab.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	secrets, err := server.LoadOrCreateSecrets(dir)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: st, Secrets: secrets, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		KDF: server.KDFParams{Alg: "scrypt", N: 2, R: 1, P: 1}, InsecureCookie: true,
		RegisterRate: 1e6, RegisterBurst: 1 << 20, AddrRate: 1e6, AddrBurst: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()

	d := startDriver(b, "http://"+ln.Addr().String(), scheme)
	defer d.stop()

	n := max(1, b.N/loginRounds)
	var cpuHTTP, cpuFloor time.Duration
	ratios := make([]float64, 0, loginRounds)
	b.ResetTimer()
	for r := range loginRounds {
		var h, f time.Duration
		runHTTP := func() { h = cpuOf(func() { d.logins(b, n) }) }
		runFloor := func() {
			f = cpuOf(func() {
				for range n {
					if err := floorServer(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		if r%2 == 0 {
			runHTTP()
			runFloor()
		} else {
			runFloor()
			runHTTP()
		}
		cpuHTTP += h
		cpuFloor += f
		ratios = append(ratios, float64(f)/float64(h))
	}
	b.StopTimer()
	q1, _ := stats.Quantile(ratios, 0.25)
	med, _ := stats.Quantile(ratios, 0.5)
	q3, _ := stats.Quantile(ratios, 0.75)
	logins := float64(n * loginRounds)
	b.ReportMetric(logins/cpuHTTP.Seconds(), "logins/s/core")
	b.ReportMetric(logins/cpuFloor.Seconds(), "limit/s/core")
	b.ReportMetric(100*med, "%limit")
	b.ReportMetric(100*q1, "%limit-q1")
	b.ReportMetric(100*q3, "%limit-q3")
	b.ReportMetric(float64((cpuHTTP-cpuFloor).Microseconds())/logins, "µs-over/login")
}

// cpuOf is the process's CPU time (server side: the clients run in another
// process) that f takes.
func cpuOf(f func()) time.Duration {
	t0 := processCPU()
	f()
	return processCPU() - t0
}

// driver is the client process.
type driver struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startDriver(b *testing.B, url, scheme string) *driver {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoginDriver$", "-test.count=1")
	cmd.Env = append(os.Environ(), driverEnv+"="+url, "KEXLAB_LOGIN_SCHEME="+scheme)
	cmd.Stderr = os.Stderr
	in, err1 := cmd.StdinPipe()
	out, err2 := cmd.StdoutPipe()
	if err1 != nil || err2 != nil {
		b.Fatal(err1, err2)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	d := &driver{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	d.expect(b, "ready")
	return d
}

// expect reads the driver's lines up to one that starts with what.
func (d *driver) expect(b *testing.B, what string) string {
	for d.out.Scan() {
		if line := d.out.Text(); strings.HasPrefix(line, what) {
			return line
		}
	}
	b.Fatalf("the client process ended before %q (%v)", what, d.out.Err())
	return ""
}

// logins has the driver run n logins and waits for them.
func (d *driver) logins(b *testing.B, n int) {
	fmt.Fprintln(d.in, n)
	if line := d.expect(b, "done"); line != "done 0" {
		b.Fatalf("client process: %s failed logins", strings.TrimPrefix(line, "done "))
	}
}

func (d *driver) stop() {
	d.in.Close()
	d.cmd.Wait()
}

// TestLoginDriver is BenchmarkLogin's client process: it registers
// loginAccounts accounts, prints "ready", then for each number n read from
// standard input runs n logins, loginConc at a time, and prints "done"
// and the number that failed (their errors go to standard error).
func TestLoginDriver(t *testing.T) {
	url := os.Getenv(driverEnv)
	if url == "" {
		t.Skip("BenchmarkLogin's client process")
	}
	scheme := os.Getenv("KEXLAB_LOGIN_SCHEME")
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loginConc}}
	c := client.New(url, hc)
	c.OPAQUE = opaque.Config{KSF: opaque.Identity}
	ctx := context.Background()
	user := func(i int) (string, []byte) { return fmt.Sprintf("bench-%d", i), []byte(fmt.Sprintf("password %d", i)) }
	login := func(u string, pw []byte) error {
		_, err := c.Login(ctx, scheme, u, pw)
		return err
	}
	accounts := loginAccounts
	if scheme == bareScheme {
		login = func(string, []byte) error { return bareLogin(hc, url) }
		accounts = 0
	}
	for i := range accounts {
		u, pw := user(i)
		if err := c.Register(ctx, scheme, u, pw); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	var turn atomic.Int64 // picks the account, round robin over all rounds
	for in.Scan() {
		n, err := strconv.Atoi(in.Text())
		if err != nil {
			t.Fatal(err)
		}
		var left, failed atomic.Int64
		left.Store(int64(n))
		var wg sync.WaitGroup
		for range min(loginConc, n) {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					u, pw := user(int(turn.Add(1) % loginAccounts))
					if err := login(u, pw); err != nil {
						fmt.Fprintln(os.Stderr, "login:", err)
						failed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		fmt.Println("done", failed.Load())
	}
}

// processCPU is this process's user + system CPU time (meter.ProcessCPU;
// the file builds on unix only, where it cannot fail).
func processCPU() time.Duration {
	d, err := meter.ProcessCPU()
	if err != nil {
		panic(err)
	}
	return d
}
