// Package web is the service's sign-up / sign-in / account page: page/
// (index.html, app.css) and the script bundle built from clients/ts/web
// (assets/app.js, assets/worker.js; esbuild: `make web`), embedded in the
// binary so that `kexlab serve` alone shows it. Handler serves
//
//	GET /            index.html
//	GET /app/NAME    the page's script, its key-stretching Web Worker and style
//
// with a Content-Security-Policy that allows only this origin's scripts,
// styles, worker and API (no inline script, no framing), and an ETag so
// that a browser revalidates instead of downloading again.
//
// The assets are generated and committed; `make web-check` (in `make
// test`) rebuilds them and fails when the committed ones differ.
// clients/ts/web/app.ts finds the page's elements by their ids.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed page assets
var files embed.FS

// CSP is the page's Content-Security-Policy.
const CSP = "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

type file struct {
	body        []byte
	etag, ctype string
}

// Handler returns the page's handler. It panics only if the embedded
// assets are unreadable, which the package's tests rule out.
func Handler() http.Handler {
	byName := map[string]file{}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ctype := mime.TypeByExtension(path.Ext(p))
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		byName[path.Base(p)] = file{b, `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`, ctype}
		return nil
	})
	if err != nil {
		panic("server/web: embedded assets: " + err.Error())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/app/")
		if r.URL.Path == "/" {
			name = "index.html"
		}
		f, ok := byName[name]
		if !ok || strings.Contains(name, "/") {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		h.Set("Content-Type", f.ctype)
		if r.Header.Get("If-None-Match") == f.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodHead {
			return
		}
		w.Write(f.body)
	})
}
