package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/client"
)

// The study's password-hash logins and small SRP groups: only with
// Config.Study, on their own routes, and refused by the PAKE routes.
func TestStudyHashLogin(t *testing.T) {
	c, hs, _ := start(t, func(cfg *server.Config) { cfg.Study = true })
	ctx := context.Background()
	for _, sc := range []string{"bcrypt-10", "argon2id", "srp-1024", "srp-1536"} {
		user := "u-" + sc
		if err := c.Register(ctx, sc, user, []byte("correct horse")); err != nil {
			t.Fatalf("%s: register: %v", sc, err)
		}
		if err := c.Register(ctx, sc, user, []byte("x")); !client.IsCode(err, "user_exists") {
			t.Errorf("%s: second registration: %v, want user_exists", sc, err)
		}
		sess, err := c.Login(ctx, sc, user, []byte("correct horse"))
		if err != nil {
			t.Fatalf("%s: login: %v", sc, err)
		}
		if who, err := c.Whoami(ctx, sess); err != nil || who != user {
			t.Errorf("%s: whoami = %q, %v", sc, who, err)
		}
		if _, err := c.Login(ctx, sc, user, []byte("wrong horse")); !client.IsCode(err, "auth_failed") {
			t.Errorf("%s: wrong password: %v, want auth_failed", sc, err)
		}
		if _, err := c.Login(ctx, sc, "nobody-"+sc, []byte("correct horse")); !client.IsCode(err, "auth_failed") {
			t.Errorf("%s: unknown user: %v, want auth_failed", sc, err)
		}
	}
	// An account of one hash is not found under another (a fake record
	// answers), nor under a PAKE.
	if _, err := c.Login(ctx, "bcrypt-12", "u-bcrypt-10", []byte("correct horse")); !client.IsCode(err, "auth_failed") {
		t.Errorf("bcrypt-10 account under bcrypt-12: %v, want auth_failed", err)
	}
	for _, tc := range []struct{ path, body, code string }{
		{"/v1/login/start", `{"user":"u","scheme":"bcrypt-10","msg":"AA"}`, "unknown_scheme"},
		{"/v1/hash/login", `{"user":"u","scheme":"srp-2048","password":"cHc"}`, "unknown_scheme"},
		{"/v1/hash/login", `{"user":"u","scheme":"bcrypt-10","password":""}`, "bad_request"},
		{"/v1/hash/register", `{"user":"u","scheme":"bcrypt-10","password":"` + strings.Repeat("QUFB", 25) + `"}`, "bad_request"}, // 75 bytes
		{"/v1/hash/login", `{"user":"","scheme":"argon2id","password":"cHc"}`, "bad_request"},
		{"/v1/hash/login", `{"user":"u","scheme":"argon2id","password":"cHc","extra":1}`, "bad_request"},
	} {
		if code, body, _ := post(t, hs, tc.path, tc.body); code != http.StatusBadRequest || !strings.Contains(body, tc.code) {
			t.Errorf("POST %s %s: %d %s, want 400 %s", tc.path, tc.body, code, body, tc.code)
		}
	}
}

func TestStudyOffByDefault(t *testing.T) {
	c, hs, _ := start(t, nil)
	if code, body, _ := post(t, hs, "/v1/hash/login", `{"user":"u","scheme":"bcrypt-10","password":"cHc"}`); code != http.StatusNotFound {
		t.Errorf("hash login without Study: %d %s, want 404", code, body)
	}
	if err := c.Register(context.Background(), "srp-1024", "u", []byte("pw")); !client.IsCode(err, "unknown_scheme") {
		t.Errorf("srp-1024 without Study: %v, want unknown_scheme", err)
	}
}
