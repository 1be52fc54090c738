package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/dispatch"
	"github.com/kexlab/kexlab/server/load"
	"github.com/kexlab/kexlab/server/store"
	"github.com/kexlab/kexlab/server/store/postgres"
	"github.com/kexlab/kexlab/server/store/sqlite"
	"github.com/kexlab/kexlab/server/web"
)

func cmdServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	data := fs.String("data", "kexlab-data", "data directory: secrets.json (created on first start, mode 0600) and the SQLite database")
	db := fs.String("db", "", "a PostgreSQL URL (postgres://…) or key=value DSN, to use PostgreSQL instead of SQLite (the secrets stay in -data: give every instance the same file)")
	cert := fs.String("tls-cert", "", "TLS certificate (PEM)")
	key := fs.String("tls-key", "", "TLS private key (PEM)")
	insecure := fs.Bool("insecure-http", false, "allow plain HTTP on a non-loopback address, and drop the session cookie's Secure attribute")
	flowTTL := fs.Duration("flow-ttl", time.Minute, "how long a flow's state waits between its two rounds")
	sessionTTL := fs.Duration("session-ttl", 24*time.Hour, "session lifetime")
	maxFailures := fs.Int("max-failures", 100, "consecutive failed logins that lock an account (1 to 100)")
	regRate := fs.Float64("register-rate", 0.2, "registrations per second per client address")
	regBurst := fs.Int("register-burst", 10, "registrations a client address may make at once")
	addrRate := fs.Float64("addr-rate", 10, "login starts per second per client address")
	addrBurst := fs.Int("addr-burst", 40, "login starts a client address may make at once")
	purgeEvery := fs.Duration("purge-every", time.Minute, "how often to remove expired flows and sessions and idle rate-limit counters from the store (0: never)")
	page := fs.Bool("page", true, "serve the sign-up / sign-in page at / (its script and worker under /app/)")
	serverTiming := fs.Bool("server-timing", false, "add a Server-Timing header (queue, pake, app, in ms) to every answer, for the page's latency split; it gives clients the server's own timings")
	scryptN := fs.Int("scrypt-n", server.DefaultKDF.N, "scrypt N of new accounts' key stretching (SRP, SPAKE2+, apakepq; a power of 2); lower it only for load tests, whose clients would otherwise spend their CPU on it")
	study := fs.Bool("study", false, "add what the Heterogeneous-PAKE study measured, for comparison only: SRP over the 1024- and 1536-bit groups and logins that send the password to a bcrypt-10, bcrypt-12 or argon2id check (POST /v1/hash/register, /v1/hash/login); loopback addresses only")
	workers := fs.Int("workers", 0, "dispatcher workers running the heavy steps (0: one per core)")
	maxBatch := fs.Int("max-batch", dispatch.DefaultMaxBatch, "most tasks a dispatcher worker takes at once (1 to 4096)")
	queueDepth := fs.Int("queue-depth", dispatch.DefaultQueueDepth, "heavy steps that may wait for a worker before the service answers 503 (1 to 1000000)")
	origins := fs.String("allow-origin", "", "comma-separated browser origins allowed to call the API cross-origin (CORS), e.g. https://app.example")
	if err := parse(fs, args); err != nil {
		return err
	}
	if (*cert == "") != (*key == "") {
		return fmt.Errorf("%w: -tls-cert and -tls-key go together", errUsage)
	}
	if *maxFailures < 1 || *maxFailures > 100 {
		return fmt.Errorf("%w: -max-failures %d: want 1 to 100 (NIST SP 800-63B §5.2.2)", errUsage, *maxFailures)
	}
	if !(*regRate > 0 && *regRate <= 1e6 && *addrRate > 0 && *addrRate <= 1e6) || *regBurst < 1 || *addrBurst < 1 {
		return fmt.Errorf("%w: -register-rate and -addr-rate must be in (0, 1e6], the bursts at least 1", errUsage)
	}
	if *scryptN < 2 || *scryptN > 1<<22 || *scryptN&(*scryptN-1) != 0 {
		return fmt.Errorf("%w: -scrypt-n %d: want a power of 2 from 2 to 2^22", errUsage, *scryptN)
	}
	if *workers < 0 || *workers > 4096 || *maxBatch < 1 || *maxBatch > 4096 || *queueDepth < 1 || *queueDepth > 1e6 {
		return fmt.Errorf("%w: -workers 0 to 4096, -max-batch 1 to 4096, -queue-depth 1 to 1000000", errUsage)
	}
	kdf := server.DefaultKDF
	kdf.N = *scryptN
	if *purgeEvery < 0 {
		return fmt.Errorf("%w: -purge-every must not be negative (0: never)", errUsage)
	}
	if *purgeEvery == 0 {
		*purgeEvery = -1 // server.Config: negative is never
	}
	if *flowTTL <= 0 || *flowTTL > time.Hour || *sessionTTL <= 0 {
		return fmt.Errorf("%w: -flow-ttl must be in (0, 1h] and -session-ttl positive", errUsage)
	}
	if scheme, _, ok := strings.Cut(*db, "://"); ok && scheme != "postgres" && scheme != "postgresql" {
		return fmt.Errorf("%w: -db wants a postgres:// URL or a PostgreSQL key=value DSN", errUsage)
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("%w: -addr %q: %v", errUsage, *addr, err)
	}
	if *cert == "" && !*insecure && !load.IsLoopbackHost(host) {
		return fmt.Errorf("%w: -addr %s is not a loopback address: give -tls-cert and -tls-key, or -insecure-http behind a TLS proxy", errUsage, *addr)
	}
	if *study && !load.IsLoopbackHost(host) {
		return fmt.Errorf("%w: -study takes a loopback -addr: its hash logins send passwords, and SRP-1024/1536 are too weak to offer", errUsage)
	}
	secrets, err := server.LoadOrCreateSecrets(*data)
	if err != nil {
		return err
	}
	st, err := openStore(*db, *data)
	if err != nil {
		return err
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	server.TuneGC()
	var pageHandler http.Handler
	if *page {
		pageHandler = web.Handler()
	}
	d := dispatch.New(dispatch.Config{Workers: *workers, MaxBatch: *maxBatch, QueueDepth: *queueDepth}, nil, nil)
	defer d.Close()
	srv, err := server.New(server.Config{Dispatcher: d, Study: *study, Page: pageHandler, Store: st, Secrets: secrets, Logger: log, FlowTTL: *flowTTL,
		SessionTTL: *sessionTTL, MaxFailures: *maxFailures, InsecureCookie: *insecure,
		RegisterRate: *regRate, RegisterBurst: *regBurst, AddrRate: *addrRate, AddrBurst: *addrBurst,
		AllowedOrigins: splitList(*origins), PurgeEvery: *purgeEvery, ServerTiming: *serverTiming, KDF: kdf})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 60 * time.Second, MaxHeaderBytes: 16 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	scheme := "http"
	if *cert != "" {
		scheme = "https"
	}
	schemes := strings.Join(append(srv.Schemes(), srv.HashSchemes()...), ", ")
	fmt.Fprintf(stdout, "kexlab serve: listening on %s://%s (schemes %s; store %s)\n", scheme, ln.Addr(), schemes, storeName(*db, *data))
	if *study {
		log.Warn("study mode: SRP-1024/1536 and password-hash logins are on, for measurements only")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() {
		if *cert != "" {
			done <- hs.ServeTLS(ln, *cert, *key)
		} else {
			done <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// Finish in-flight requests (a login's rounds are separate requests:
	// a flow started here finishes on any instance within -flow-ttl).
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fmt.Fprintln(stdout, "kexlab serve: shutting down")
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func openStore(dsn, data string) (store.Store, error) {
	if dsn != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return postgres.Open(ctx, dsn)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	return sqlite.Open(filepath.Join(data, "kexlab.db"))
}

func storeName(dsn, data string) string {
	if dsn != "" {
		return "PostgreSQL"
	}
	return "SQLite " + filepath.Join(data, "kexlab.db")
}

// splitList splits a comma-separated flag, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
