package server_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/kexlab/kexlab/server"
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
