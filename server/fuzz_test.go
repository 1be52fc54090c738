package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/store/sqlite"
)

// FuzzRequest sends arbitrary bodies to every route: the answer is never a
// 5xx, and an error answer is JSON with a code.
func FuzzRequest(f *testing.F) {
	dir := f.TempDir()
	st, err := sqlite.Open(filepath.Join(dir, "kexlab.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	secrets, err := server.LoadOrCreateSecrets(dir)
	if err != nil {
		f.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: st, Secrets: secrets, KDF: testKDF,
		RegisterRate: 1e6, RegisterBurst: 1 << 20, AddrRate: 1e6, AddrBurst: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	routes := []string{"/v1/register/start", "/v1/register/finish", "/v1/login/start", "/v1/login/finish",
		"/v1/logout", "/v1/password/start", "/v1/password/finish"}
	for i, seed := range []string{`{"user":"a","scheme":"srp-2048","msg":"AAAA"}`, `{"handle":"AAAAAAAAAAAAAAAAAAAAAA","msg":""}`,
		`{"user":"a","scheme":"opaque","msg":"` + strings.Repeat("A", 131) + `"}`, `{"user":"\u00ff","scheme":"srp-3072"}`, `null`, ``} {
		f.Add(uint8(i), seed)
	}
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		path := routes[int(route)%len(routes)]
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("POST %s %q: %d %s", path, body, w.Code, w.Body)
		}
		if w.Code >= 300 {
			var e struct {
				Error struct{ Code string } `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Code == "" {
				t.Fatalf("POST %s %q: %d answer is not a JSON error: %q", path, body, w.Code, w.Body)
			}
		}
	})
}
