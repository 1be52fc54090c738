package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/store"
)

// TestMetrics: logins by scheme and outcome, request latencies and the
// dispatcher's batches appear at /metrics after a few flows.
func TestMetrics(t *testing.T) {
	c, hs, _ := start(t, nil)
	ctx := context.Background()
	if err := c.Register(ctx, "srp-2048", "alice", []byte("pw")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := c.Login(ctx, "srp-2048", "alice", []byte("pw")); err != nil {
			t.Fatal(err)
		}
	}
	c.Login(ctx, "srp-2048", "alice", []byte("wrong"))
	resp, err := hs.Client().Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []struct {
		re    string
		value float64
	}{
		{`kexlab_logins_total\{outcome="success",scheme="srp-2048"\} (\S+)`, 2},
		{`kexlab_logins_total\{outcome="auth_failed",scheme="srp-2048"\} (\S+)`, 1},
		{`kexlab_registrations_total\{outcome="created",scheme="srp-2048"\} (\S+)`, 1},
		{`kexlab_request_duration_seconds_count\{code="200",route="POST /v1/login/start"\} (\S+)`, 3},
		{`kexlab_dispatch_batch_size_sum (\S+)`, 4}, // 1 registration start + 3 login starts
	} {
		m := regexp.MustCompile(want.re).FindSubmatch(body)
		if m == nil {
			t.Errorf("/metrics has no %s", want.re)
			continue
		}
		if v, _ := strconv.ParseFloat(string(m[1]), 64); v != want.value {
			t.Errorf("%s = %v, want %v", want.re, v, want.value)
		}
	}
}

// TestCORS: an allowed origin gets the CORS headers and its preflight is
// answered; another origin gets none.
func TestCORS(t *testing.T) {
	_, hs, _ := start(t, func(cfg *server.Config) { cfg.AllowedOrigins = []string{"https://app.example"} })
	pre := func(origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, hs.URL+"/v1/login/start", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type")
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	ok := pre("https://app.example")
	if ok.StatusCode != 204 || ok.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		ok.Header.Get("Access-Control-Allow-Credentials") != "true" || ok.Header.Get("Access-Control-Allow-Methods") == "" {
		t.Errorf("allowed preflight: %d %v", ok.StatusCode, ok.Header)
	}
	bad := pre("https://evil.example")
	if bad.Header.Get("Access-Control-Allow-Origin") != "" || bad.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("disallowed preflight got CORS headers: %v", bad.Header)
	}
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/healthz", nil)
	req.Header.Set("Origin", "https://app.example")
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("simple request from an allowed origin: %v", resp.Header)
	}
}

// TestPurge: the Server's periodic purge removes a flow that expired, and
// counts it at /metrics; a live flow stays.
func TestPurge(t *testing.T) {
	var st store.Store
	_, hs, clk := start(t, func(c *server.Config) { c.PurgeEvery = 5 * time.Millisecond; st = c.Store })
	handle := func(user string) []byte {
		resp, err := hs.Client().Post(hs.URL+"/v1/register/start", "application/json",
			strings.NewReader(`{"user":"`+user+`","scheme":"srp-2048"}`))
		if err != nil {
			t.Fatal(err)
		}
		var ans struct{ Handle string }
		err = json.NewDecoder(resp.Body).Decode(&ans)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("register start: %d, %v", resp.StatusCode, err)
		}
		h, err := base64.RawURLEncoding.DecodeString(ans.Handle)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	started := clk.Now()
	old := handle("dave")
	clk.Add(61 * time.Second) // dave's flow expired (FlowTTL 60 s)
	live := handle("erin")
	re := regexp.MustCompile(`(?m)^kexlab_store_purged_rows_total (\S+)`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp, err := hs.Client().Get(hs.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if m := re.FindSubmatch(body); m != nil && string(m[1]) != "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no purge within 10 s")
		}
	}
	// Taken at a time it was still live: gone only if the purge removed it.
	if _, err := st.TakePending(context.Background(), old, started); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the expired flow after the purge: %v, want ErrNotFound", err)
	}
	if _, err := st.TakePending(context.Background(), live, clk.Now()); err != nil {
		t.Errorf("the live flow after the purge: %v", err)
	}
}
