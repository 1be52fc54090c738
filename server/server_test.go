package server_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/client"
	"github.com/kexlab/kexlab/server/store/sqlite"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testKDF keeps scrypt cheap in tests; the default is N = 32768.
var testKDF = server.KDFParams{Alg: "scrypt", N: 1024, R: 8, P: 1}

// start runs a service on SQLite in a temporary directory, behind a real
// HTTP server on loopback.
func start(t *testing.T, tweak func(*server.Config)) (*client.Client, *httptest.Server, *clock) {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(filepath.Join(dir, "kexlab.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	secrets, err := server.LoadOrCreateSecrets(dir)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now()}
	cfg := server.Config{Store: st, Secrets: secrets, Now: clk.Now, Logger: slog.New(slog.NewTextHandler(testLog(), nil)), KDF: testKDF, RegisterRate: 1000, RegisterBurst: 1000, AddrRate: 1000, AddrBurst: 1000}
	if tweak != nil {
		tweak(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(srv.Close)
	t.Cleanup(hs.Close)
	return client.New(hs.URL, hs.Client()), hs, clk
}

var schemes = []string{"srp-2048", "srp-3072", "opaque", "spake2plus", "apakepq"}

// TestLifecycle registers, logs in, checks the session and the assertion,
// changes the password, logs out and deletes the account, for each scheme.
func TestLifecycle(t *testing.T) {
	c, hs, _ := start(t, nil)
	ctx := context.Background()
	for _, sc := range schemes {
		t.Run(sc, func(t *testing.T) {
			user, pw := "alice-"+sc, []byte("correct horse")
			if err := c.Register(ctx, sc, user, pw); err != nil {
				t.Fatal(err)
			}
			if err := c.Register(ctx, sc, user, pw); !client.IsCode(err, server.CodeUserExists) {
				t.Errorf("second registration: %v", err)
			}
			if _, err := c.Login(ctx, sc, user, []byte("wrong")); !client.IsCode(err, server.CodeAuthFailed) {
				t.Errorf("wrong password: %v", err)
			}
			sess, err := c.Login(ctx, sc, user, pw)
			if err != nil {
				t.Fatal(err)
			}
			if who, err := c.Whoami(ctx, sess); err != nil || who != user {
				t.Errorf("whoami: %q, %v", who, err)
			}
			checkAssertion(t, hs, sess)
			newPW := []byte("battery staple")
			if err := c.ChangePassword(ctx, sess, sc, newPW); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Whoami(ctx, sess); !client.IsCode(err, server.CodeUnauthorized) {
				t.Errorf("session after a password change: %v", err)
			}
			if _, err := c.Login(ctx, sc, user, pw); !client.IsCode(err, server.CodeAuthFailed) {
				t.Errorf("old password after the change: %v", err)
			}
			sess, err = c.Login(ctx, sc, user, newPW)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Logout(ctx, sess); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Whoami(ctx, sess); !client.IsCode(err, server.CodeUnauthorized) {
				t.Errorf("session after logout: %v", err)
			}
			sess, err = c.Login(ctx, sc, user, newPW)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.DeleteAccount(ctx, sess); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Login(ctx, sc, user, newPW); !client.IsCode(err, server.CodeAuthFailed) {
				t.Errorf("login to a deleted account: %v", err)
			}
		})
	}
}

// checkAssertion verifies the session's JWT with the key the service
// publishes at /.well-known/jwks.json.
func checkAssertion(t *testing.T, hs *httptest.Server, sess *client.Session) {
	t.Helper()
	resp, err := hs.Client().Get(hs.URL + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set struct {
		Keys []struct{ Kty, Crv, Kid, X string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil || len(set.Keys) != 1 || set.Keys[0].Crv != "Ed25519" {
		t.Fatalf("jwks: %+v, %v", set, err)
	}
	pub, err := base64.RawURLEncoding.DecodeString(set.Keys[0].X)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Parse(sess.Assertion, func(tok *jwt.Token) (any, error) {
		if tok.Header["kid"] != set.Keys[0].Kid {
			t.Errorf("kid %v, jwks has %s", tok.Header["kid"], set.Keys[0].Kid)
		}
		return ed25519.PublicKey(pub), nil
	}, jwt.WithValidMethods([]string{"EdDSA"}), jwt.WithIssuer("kexlab"))
	if err != nil {
		t.Fatalf("assertion: %v", err)
	}
	if sub, _ := tok.Claims.GetSubject(); sub != sess.User {
		t.Errorf("assertion for %q, want %q", sub, sess.User)
	}
}

// post sends a raw body and returns the status and the decoded error code.
func post(t *testing.T, hs *httptest.Server, path, body string) (int, string, http.Header) {
	t.Helper()
	resp, err := hs.Client().Post(hs.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	if resp.StatusCode >= 300 {
		if err := json.Unmarshal(data, &e); err != nil || e.Error.Code == "" {
			t.Errorf("%s %s: %d answer is not a JSON error: %q", path, body, resp.StatusCode, data)
		}
	}
	return resp.StatusCode, e.Error.Code, resp.Header
}

// TestBadInput: malformed requests get a 4xx JSON error with a stable
// code, never a 500.
func TestBadInput(t *testing.T) {
	_, hs, _ := start(t, nil)
	b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	cases := []struct {
		path, body string
		status     int
		code       string
	}{
		{"/v1/login/start", ``, 400, server.CodeBadRequest},
		{"/v1/login/start", `{`, 400, server.CodeBadRequest},
		{"/v1/login/start", `[]`, 400, server.CodeBadRequest},
		{"/v1/login/start", `{"user":"a","scheme":"srp-2048","msg":"%%"}`, 400, server.CodeBadRequest},
		{"/v1/login/start", `{"user":"a","scheme":"srp-2048","msg":"AA=="}`, 400, server.CodeBadRequest},
		{"/v1/login/start", `{"user":"a","scheme":"srp-2048","extra":1}`, 400, server.CodeBadRequest},
		{"/v1/login/start", `{"user":"a","scheme":"srp-2048"} {}`, 400, server.CodeBadRequest},
		{"/v1/login/start", `{"user":"","scheme":"srp-2048"}`, 400, server.CodeBadRequest},
		{"/v1/login/start", `{"user":"a\u0000b","scheme":"srp-2048"}`, 400, server.CodeBadRequest},
		{"/v1/login/start", `{"user":"a","scheme":"md5"}`, 400, server.CodeUnknownScheme},
		{"/v1/login/start", `{"user":"a","scheme":"srp-2048"}`, 400, server.CodeBadMessage},
		{"/v1/login/start", `{"user":"a","scheme":"srp-2048","msg":"` + b64(make([]byte, 256)) + `"}`, 400, server.CodeBadMessage},
		{"/v1/login/start", `{"user":"a","scheme":"srp-2048","msg":"` + b64(bytes.Repeat([]byte{0xff}, 300)) + `"}`, 400, server.CodeBadMessage},
		{"/v1/login/start", `{"user":"a","scheme":"opaque","msg":"` + b64(make([]byte, 98)) + `"}`, 400, server.CodeBadMessage},
		{"/v1/login/start", `{"user":"` + strings.Repeat("u", 300) + `","scheme":"opaque"}`, 400, server.CodeBadRequest},
		{"/v1/login/start", `{"user":"a","scheme":"opaque","msg":"` + strings.Repeat("A", 30000) + `"}`, 413, server.CodeTooLarge},
		{"/v1/login/finish", `{"handle":"` + b64(make([]byte, 16)) + `","msg":""}`, 400, server.CodeUnknownFlow},
		{"/v1/login/finish", `{"handle":"AAAA","msg":""}`, 400, server.CodeBadRequest},
		{"/v1/register/finish", `{"handle":"` + b64(make([]byte, 16)) + `","msg":""}`, 400, server.CodeUnknownFlow},
		{"/v1/register/start", `{"user":"a","scheme":"srp-2048","msg":"AAAA"}`, 400, server.CodeBadRequest},
		{"/v1/register/start", `{"user":"a","scheme":"opaque","msg":"AAAA"}`, 400, server.CodeBadMessage},
		{"/v1/logout", ``, 401, server.CodeUnauthorized},
		{"/v1/password/start", `{}`, 401, server.CodeUnauthorized},
		{"/v1/nothing", `{}`, 404, server.CodeNotFound},
	}
	for _, c := range cases {
		status, code, _ := post(t, hs, c.path, c.body)
		if status != c.status || code != c.code {
			t.Errorf("POST %s %.80s: %d %s, want %d %s", c.path, c.body, status, code, c.status, c.code)
		}
	}
	req, _ := http.NewRequest(http.MethodPut, hs.URL+"/v1/login/start", nil)
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("PUT: %d, want 405", resp.StatusCode)
	}
}

// TestFlowOnce: a flow's finish is accepted once; a replay, and a finish
// after the flow's lifetime, fail with unknown_flow.
func TestFlowOnce(t *testing.T) {
	_, hs, clk := start(t, nil)
	// Expiry: a flow older than FlowTTL is gone.
	resp, err := hs.Client().Post(hs.URL+"/v1/register/start", "application/json", strings.NewReader(`{"user":"dave","scheme":"srp-2048"}`))
	if err != nil {
		t.Fatal(err)
	}
	var ans struct{ Handle string }
	json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	clk.Add(61 * time.Second)
	body := `{"handle":"` + ans.Handle + `","msg":"` + base64.RawURLEncoding.EncodeToString([]byte{5}) + `"}`
	if status, code, _ := post(t, hs, "/v1/register/finish", body); status != 400 || code != server.CodeUnknownFlow {
		t.Errorf("late finish: %d %s", status, code)
	}
	clk.Add(-61 * time.Second)
	resp, _ = hs.Client().Post(hs.URL+"/v1/register/start", "application/json", strings.NewReader(`{"user":"erin","scheme":"srp-2048"}`))
	json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	body = `{"handle":"` + ans.Handle + `","msg":"` + base64.RawURLEncoding.EncodeToString([]byte{5}) + `"}`
	if status, _, _ := post(t, hs, "/v1/register/finish", body); status != 201 {
		t.Errorf("first finish: %d", status)
	}
	if status, code, _ := post(t, hs, "/v1/register/finish", body); status != 400 || code != server.CodeUnknownFlow {
		t.Errorf("replayed finish: %d %s", status, code)
	}
}

// TestUnknownUser: an unknown user gets the answers of a known user with a
// wrong password — same codes, same sizes — and repeated starts agree on
// the salt and KDF parameters.
func TestUnknownUser(t *testing.T) {
	c, hs, _ := start(t, func(cfg *server.Config) { cfg.FreeFailures = 20 })
	ctx := context.Background()
	for _, sc := range schemes {
		if err := c.Register(ctx, sc, "known", []byte("pw")); err != nil && !client.IsCode(err, server.CodeUserExists) {
			t.Fatal(err)
		}
	}
	for _, sc := range schemes {
		_, errKnown := c.Login(ctx, sc, "known", []byte("wrong"))
		_, errUnknown := c.Login(ctx, sc, "nobody", []byte("wrong"))
		if !client.IsCode(errKnown, server.CodeAuthFailed) || !client.IsCode(errUnknown, server.CodeAuthFailed) {
			t.Errorf("%s: known %v, unknown %v", sc, errKnown, errUnknown)
		}
	}
	// Repeated SRP starts for an unknown user give the same salt and KDF.
	first := func(user string) (int, []byte) {
		A := bytes.Repeat([]byte{7}, 256)
		resp, err := hs.Client().Post(hs.URL+"/v1/login/start", "application/json",
			strings.NewReader(`{"user":"`+user+`","scheme":"srp-2048","msg":"`+base64.RawURLEncoding.EncodeToString(A)+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ans struct {
			Msg string
			KDF struct{ Salt string }
		}
		data, _ := io.ReadAll(resp.Body)
		json.Unmarshal(data, &ans)
		msg, _ := base64.RawURLEncoding.DecodeString(ans.Msg)
		if len(msg) < 17 {
			t.Fatalf("answer %q", data)
		}
		return len(data) - len(ans.Msg), append(msg[:17:17], ans.KDF.Salt...)
	}
	n1, s1 := first("ghost")
	n2, s2 := first("ghost")
	n3, s3 := first("known")
	if !bytes.Equal(s1, s2) || bytes.Equal(s1, s3) {
		t.Errorf("fake salts: %x, %x (known %x)", s1, s2, s3)
	}
	if n1 != n3 || n2 != n3 {
		t.Errorf("answer sizes (without B): unknown %d, %d, known %d", n1, n2, n3)
	}
	// Across schemes: a registered user's salts differ between two schemes
	// (real and fake), so an unknown user's must too.
	for _, user := range []string{"known", "ghost"} {
		salts := map[string]bool{}
		for _, sc := range []string{"srp-2048", "srp-3072", "spake2plus", "apakepq"} {
			var ans struct{ KDF struct{ Salt string } }
			status, body := postJSON(t, hs, "/v1/login/params", `{"user":"`+user+`","scheme":"`+sc+`"}`)
			if err := json.Unmarshal(body, &ans); status != 200 || err != nil || ans.KDF.Salt == "" {
				t.Fatalf("%s params for %s: %d %s", sc, user, status, body)
			}
			salts[ans.KDF.Salt] = true
		}
		if len(salts) != 4 {
			t.Errorf("%s: the 4 schemes' KDF salts are not all different: %v", user, salts)
		}
	}
}

// postJSON posts body to path and returns the status and the answer.
func postJSON(t *testing.T, hs *httptest.Server, path, body string) (int, []byte) {
	t.Helper()
	resp, err := hs.Client().Post(hs.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

// TestBackoff: after FreeFailures failed logins the account must wait
// (429 with Retry-After), and a success resets the counter.
func TestBackoff(t *testing.T) {
	c, _, clk := start(t, func(cfg *server.Config) { cfg.FreeFailures = 3; cfg.MaxFailures = 6 })
	ctx := context.Background()
	if err := c.Register(ctx, "opaque", "mallory", []byte("pw")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := c.Login(ctx, "opaque", "mallory", []byte("guess")); !client.IsCode(err, server.CodeAuthFailed) {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	_, err := c.Login(ctx, "opaque", "mallory", []byte("pw"))
	var e *client.Error
	if !client.IsCode(err, server.CodeRateLimited) || !errors.As(err, &e) || e.Status != 429 || e.RetryAfter <= 0 {
		t.Fatalf("4th attempt at once: %v", err)
	}
	clk.Add(e.RetryAfter)
	if _, err := c.Login(ctx, "opaque", "mallory", []byte("pw")); err != nil {
		t.Fatalf("after Retry-After: %v", err)
	}
	// The counter was reset: three more guesses are free again.
	for i := 0; i < 3; i++ {
		if _, err := c.Login(ctx, "opaque", "mallory", []byte("guess")); !client.IsCode(err, server.CodeAuthFailed) {
			t.Fatalf("guess %d after reset: %v", i, err)
		}
	}
	// MaxFailures locks the account.
	for i := 0; i < 3; i++ {
		clk.Add(time.Hour)
		c.Login(ctx, "opaque", "mallory", []byte("guess"))
	}
	clk.Add(2 * time.Hour)
	if _, err := c.Login(ctx, "opaque", "mallory", []byte("pw")); !client.IsCode(err, server.CodeRateLimited) {
		t.Errorf("after MaxFailures: %v", err)
	}
}

// TestBackoffConcurrent: concurrent starts cannot all pass one backoff
// check — of 24 guesses sent at once, exactly FreeFailures get an answer,
// the others 429.
func TestBackoffConcurrent(t *testing.T) {
	c, _, _ := start(t, func(cfg *server.Config) { cfg.FreeFailures = 3; cfg.MaxFailures = 5; cfg.BackoffBase = time.Hour })
	ctx := context.Background()
	if err := c.Register(ctx, "spake2plus", "mallory", []byte("pw")); err != nil {
		t.Fatal(err)
	}
	const n = 24
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := c.Login(ctx, "spake2plus", "mallory", []byte("guess"))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	failed, limited := 0, 0
	for err := range errs {
		switch {
		case client.IsCode(err, server.CodeAuthFailed):
			failed++
		case client.IsCode(err, server.CodeRateLimited):
			limited++
		default:
			t.Errorf("guess: %v", err)
		}
	}
	if failed != 3 || limited != n-3 {
		t.Errorf("%d guesses answered, %d refused with 429; want 3 and %d", failed, limited, n-3)
	}
}

// TestStaleSession: a password change needs a recent login.
func TestStaleSession(t *testing.T) {
	c, _, clk := start(t, nil)
	ctx := context.Background()
	if err := c.Register(ctx, "srp-2048", "oscar", []byte("pw")); err != nil {
		t.Fatal(err)
	}
	sess, err := c.Login(ctx, "srp-2048", "oscar", []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(6 * time.Minute)
	if err := c.ChangePassword(ctx, sess, "srp-2048", []byte("new")); !client.IsCode(err, server.CodeStaleSession) {
		t.Errorf("password change 6 min after login: %v", err)
	}
	if err := c.DeleteAccount(ctx, sess); !client.IsCode(err, server.CodeStaleSession) {
		t.Errorf("deletion 6 min after login: %v", err)
	}
	if who, err := c.Whoami(ctx, sess); err != nil || who != "oscar" {
		t.Errorf("the session itself is still valid: %q, %v", who, err)
	}
}

// testLog is where the service logs in tests: nowhere, unless
// KEXLAB_TEST_LOG=1.
func testLog() io.Writer {
	if os.Getenv("KEXLAB_TEST_LOG") == "1" {
		return os.Stderr
	}
	return io.Discard
}
