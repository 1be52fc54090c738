// Command flows runs the API's flows with the Go client (server/client)
// against a running kexlab serve, for scripts/openapi-check.sh: what a
// fuzzer cannot do, since every success needs the PAKE computed. It
//
//   - registers users of every scheme, logs each in several times, and
//     runs a lifecycle (login, password change, logout, account deletion)
//     and the usual failures (a taken name, a wrong password), recording
//     every request and answer, which validate.py then checks against the
//     OpenAPI document;
//   - writes the sessions it keeps, for hooks.py, which hands them to
//     schemathesis for the operations that need a session.
//
// It connects from 127.0.0.2 where it can, so that its starts do not take
// the tokens of the fuzzer's address (the server's buckets are per client
// address). Loopback only; bounded by -timeout.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/kexlab/kexlab/server/client"
)

// exchange is one recorded request and its answer.
type exchange struct {
	Method         string      `json:"method"`
	URL            string      `json:"url"`
	RequestHeader  http.Header `json:"request_headers"`
	RequestBody    string      `json:"request_body"`
	Status         int         `json:"status"`
	ResponseHeader http.Header `json:"response_headers"`
	ResponseBody   string      `json:"response_body"`
}

// recorder is an http.RoundTripper that records every exchange.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	log  []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		var err error
		if reqBody, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	r.log = append(r.log, exchange{Method: req.Method, URL: req.URL.String(), RequestHeader: req.Header.Clone(),
		RequestBody: string(reqBody), Status: resp.StatusCode, ResponseHeader: resp.Header.Clone(), ResponseBody: string(body)})
	r.mu.Unlock()
	return resp, nil
}

// session is one kept for the fuzzer, with the operations it is for.
type session struct {
	User  string `json:"user"`
	Token string `json:"token"`
	Group string `json:"group"`
}

func main() {
	base := flag.String("base", "", "the service's base URL (http://127.0.0.1:port)")
	out := flag.String("out", "", "where to write {sessions, exchanges} (JSON)")
	perUser := flag.Int("sessions", 6, "sessions kept per user")
	timeout := flag.Duration("timeout", 2*time.Minute, "time limit")
	flag.Parse()
	if *base == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if u, err := url.Parse(*base); err != nil || u.Scheme != "http" || !isLoopback(u.Hostname()) {
		fatal(fmt.Errorf("-base %q: want http:// on a loopback address", *base))
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	rec := &recorder{next: transport()}
	c := client.New(*base, &http.Client{Transport: rec, Timeout: 30 * time.Second})
	sessions, err := run(ctx, c, *perUser)
	if err != nil {
		fatal(err)
	}
	b, err := json.MarshalIndent(map[string]any{"sessions": sessions, "exchanges": rec.log}, "", "  ")
	if err != nil {
		fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o600); err != nil {
		fatal(err)
	}
	fmt.Printf("flows: %d exchanges recorded, %d sessions kept\n", len(rec.log), len(sessions))
}

// groups are the operations the kept sessions are for (hooks.py), an
// account each, apart because each revokes sessions its own way:
// deleteAccount and passwordFinish all of the account's, logout its own.
var groups = []string{"deleteAccount", "password", "session", "logout"}

func run(ctx context.Context, c *client.Client, perUser int) ([]session, error) {
	schemes := []string{"apakepq", "opaque", "spake2plus", "srp-2048", "srp-3072"}
	var kept []session
	for i, sc := range schemes {
		user := fmt.Sprintf("openapi-check-%s", sc)
		pw := password()
		if err := retry(ctx, func() error { return c.Register(ctx, sc, user, pw) }); err != nil {
			return nil, fmt.Errorf("register %s: %w", user, err)
		}
		for range perUser {
			var s *client.Session
			err := retry(ctx, func() (err error) { s, err = c.Login(ctx, sc, user, pw); return err })
			if err != nil {
				return nil, fmt.Errorf("login %s: %w", user, err)
			}
			kept = append(kept, session{User: user, Token: s.Token, Group: groups[i%len(groups)]})
		}
	}
	return kept, lifecycle(ctx, c)
}

// lifecycle runs every operation's success once, and the failures a
// fuzzer cannot reach: a taken name, a wrong password.
func lifecycle(ctx context.Context, c *client.Client) error {
	user, pw := "openapi-check-lifecycle", password()
	step := func(what string, f func() error) error {
		if err := retry(ctx, f); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	want := func(what, code string, f func() error) error {
		if err := retry(ctx, f); !client.IsCode(err, code) {
			return fmt.Errorf("%s: got %v, want %s", what, err, code)
		}
		return nil
	}
	var s *client.Session
	login := func(sc string) func() error {
		return func() (err error) { s, err = c.Login(ctx, sc, user, pw); return err }
	}
	return errors.Join(
		step("register", func() error { return c.Register(ctx, "srp-2048", user, pw) }),
		want("register again", "user_exists", func() error { return c.Register(ctx, "opaque", user, pw) }),
		want("wrong password", "auth_failed", func() error { _, err := c.Login(ctx, "srp-2048", user, []byte("wrong")); return err }),
		step("login", login("srp-2048")),
		step("whoami", func() error { _, err := c.Whoami(ctx, s); return err }),
		step("change password", func() error { pw = password(); return c.ChangePassword(ctx, s, "spake2plus", pw) }),
		want("whoami after the change", "unauthorized", func() error { _, err := c.Whoami(ctx, s); return err }),
		step("login after the change", login("spake2plus")),
		step("logout", func() error { return c.Logout(ctx, s) }),
		step("login again", login("spake2plus")),
		// apakepq refuses a wrong password at login/start already.
		step("change to apakepq", func() error { pw = password(); return c.ChangePassword(ctx, s, "apakepq", pw) }),
		want("wrong password (apakepq)", "auth_failed", func() error { _, err := c.Login(ctx, "apakepq", user, []byte("wrong")); return err }),
		step("login with apakepq", login("apakepq")),
		step("delete", func() error { return c.DeleteAccount(ctx, s) }),
	)
}

// retry runs f again while the service answers 429 (its buckets refill).
func retry(ctx context.Context, f func() error) error {
	for {
		err := f()
		var e *client.Error
		if !errors.As(err, &e) || e.Code != "rate_limited" {
			return err
		}
		wait := max(e.RetryAfter, 100*time.Millisecond)
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (rate-limited until the time limit)", err)
		case <-time.After(wait):
		}
	}
}

func password() []byte {
	return []byte(rand.Text())
}

// transport dials from 127.0.0.2 where that address can be bound (Linux:
// all of 127/8 is loopback), else from the default address.
func transport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}
	if ln, err := net.ListenTCP("tcp", local); err == nil {
		ln.Close()
		d := &net.Dialer{LocalAddr: local, Timeout: 10 * time.Second}
		t.DialContext = d.DialContext
	}
	return t
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "flows:", err)
	os.Exit(1)
}
