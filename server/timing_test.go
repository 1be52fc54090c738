package server_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/web"
)

var serverTimingRE = regexp.MustCompile(`^queue;dur=([0-9.]+), pake;dur=([0-9.]+), app;dur=([0-9.]+)$`)

// TestServerTiming: with Config.ServerTiming every answer, an error too,
// carries queue, pake and app durations; a login round's pake time is
// positive and within app; without it there is no header.
func TestServerTiming(t *testing.T) {
	_, hs, _ := start(t, func(c *server.Config) { c.ServerTiming = true })
	// A = 2 (base64url "Ag") is a valid SRP message 1; an unknown user gets
	// a fake round.
	code, _, h := post(t, hs, "/v1/login/start", `{"user":"nobody","scheme":"srp-3072","msg":"Ag"}`)
	if code != http.StatusOK {
		t.Fatalf("login/start: %d", code)
	}
	m := serverTimingRE.FindStringSubmatch(h.Get("Server-Timing"))
	if m == nil {
		t.Fatalf("Server-Timing %q", h.Get("Server-Timing"))
	}
	queue, _ := strconv.ParseFloat(m[1], 64)
	pake, _ := strconv.ParseFloat(m[2], 64)
	app, _ := strconv.ParseFloat(m[3], 64)
	if !(pake > 0 && queue >= 0 && queue+pake <= app+0.002) {
		t.Errorf("queue %v + pake %v vs app %v", queue, pake, app)
	}
	code, _, h = post(t, hs, "/v1/login/start", `{"user":"nobody","scheme":"nope","msg":"Ag"}`)
	if code != http.StatusBadRequest || !serverTimingRE.MatchString(h.Get("Server-Timing")) {
		t.Errorf("an error answer: %d, Server-Timing %q", code, h.Get("Server-Timing"))
	}

	_, plain, _ := start(t, nil)
	if _, _, h := post(t, plain, "/v1/login/start", `{"user":"nobody","scheme":"srp-3072","msg":"Ag"}`); h.Get("Server-Timing") != "" {
		t.Errorf("Server-Timing %q without Config.ServerTiming", h.Get("Server-Timing"))
	}
}

// TestPage: Config.Page serves GET / and /app/…; the API keeps its routes
// and JSON errors; without a Page, / is the API's 404.
func TestPage(t *testing.T) {
	_, hs, _ := start(t, func(c *server.Config) { c.Page = web.Handler() })
	_, plain, _ := start(t, nil)
	for _, tc := range []struct {
		hs          string
		method, url string
		code        int
		ctype       string
	}{
		{hs.URL, "GET", "/", 200, "text/html"},
		{hs.URL, "GET", "/app/app.js", 200, "text/javascript"},
		{hs.URL, "GET", "/app/missing.js", 404, "text/plain"},
		{hs.URL, "GET", "/healthz", 200, "application/json"},
		{hs.URL, "POST", "/", 404, "application/json"},
		{hs.URL, "PUT", "/", 405, "application/json"},
		{hs.URL, "GET", "/other", 404, "application/json"},
		{plain.URL, "GET", "/", 404, "application/json"},
		{plain.URL, "GET", "/app/app.js", 404, "application/json"},
	} {
		req, _ := http.NewRequest(tc.method, tc.hs+tc.url, nil)
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) {
			t.Errorf("%s %s (page: %v): %d %q, want %d %s", tc.method, tc.url, tc.hs == hs.URL, resp.StatusCode, resp.Header.Get("Content-Type"), tc.code, tc.ctype)
		}
	}
}
