package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHandler: the page and its assets are embedded and served with their
// types, the CSP and an ETag; what index.html loads exists; anything else
// is 404.
func TestHandler(t *testing.T) {
	h := Handler()
	get := func(path string, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	index := get("/")
	if index.Code != 200 || !strings.HasPrefix(index.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %q", index.Code, index.Header().Get("Content-Type"))
	}
	if got := index.Header().Get("Content-Security-Policy"); got != CSP || !strings.Contains(CSP, "form-action 'none'") {
		t.Errorf("CSP %q", got)
	}
	for _, want := range []string{`src="/app/app.js"`, `href="/app/app.css"`, `id="signin-form" method="post"`} {
		if !strings.Contains(index.Body.String(), want) {
			t.Errorf("index.html has no %s", want)
		}
	}
	for path, ctype := range map[string]string{"/app/app.js": "text/javascript", "/app/worker.js": "text/javascript", "/app/app.css": "text/css"} {
		w := get(path)
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), ctype) || w.Body.Len() < 100 {
			t.Errorf("GET %s: %d %q, %d bytes", path, w.Code, w.Header().Get("Content-Type"), w.Body.Len())
		}
		if w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", path)
		}
		etag := w.Header().Get("ETag")
		if again := get(path, "If-None-Match", etag); etag == "" || again.Code != http.StatusNotModified || again.Body.Len() != 0 {
			t.Errorf("GET %s with its ETag %q: %d", path, etag, again.Code)
		}
	}
	for _, path := range []string{"/app/", "/app/nope.js", "/app/../web.go", "/app/x/app.js", "/index.htm"} {
		if w := get(path); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, w.Code)
		}
	}
}
