// Package server is kexlab's PAKE authentication service as an
// http.Handler a Go web application can mount (kexlab serve runs it):
// password registration and login where the server never sees the
// password, over JSON on HTTP, with the schemes' typed APIs on the server
// side (design.md, "The PAKE service").
//
// # API (version 1)
//
// Binary fields are unpadded base64url. Every flow has two rounds: a
// start, answered with a random 128-bit handle, and a finish that names
// it. The state between the rounds lives in the store, sealed with
// AES-256-GCM under a server secret, and is claimed exactly once, so any
// instance can finish a flow another started and a replayed or late finish
// (after FlowTTL) fails with unknown_flow.
//
//	POST /v1/register/start   {user, scheme, msg?}  → {handle, msg, kdf?}
//	POST /v1/register/finish  {handle, msg}         → 201 {user, scheme}
//	POST /v1/login/params     {user, scheme}        → {kdf} (SRP, SPAKE2+, apakepq)
//	POST /v1/login/start      {user, scheme, msg}   → {handle, msg, kdf?}
//	POST /v1/login/finish     {handle, msg}         → {msg?, session, expires, assertion}
//	POST /v1/logout           (session)             → 204
//	GET  /v1/session          (session)             → {user, expires}
//	POST /v1/password/start   (fresh session) {scheme, msg?} → as register/start
//	POST /v1/password/finish  (fresh session) {handle, msg}  → 204, all sessions revoked
//	DELETE /v1/account        (fresh session)       → 204
//	GET  /.well-known/jwks.json, /healthz, /readyz
//
// Schemes: "srp-2048" and "srp-3072" (SRP-6a, SHA-256, srp.ProfileRFC5054;
// the client stretches the password with the account's KDFParams first;
// msg of register/finish is the verifier), "spake2plus" (RFC 9383, P-256;
// w0 and w1 from the account's scrypt parameters and random salt, which
// the client fetches with login/params first; register/finish takes
// w0 || L), "opaque" (RFC 9807, P-256, scrypt KSF; credential
// identifier = user) and "apakepq" (package apakepq, the KEM-AE compiler
// over OCAKE with ML-KEM-512, on a password the client stretched with the
// account's scrypt parameters, fetched with login/params as for SPAKE2+;
// register/finish takes the record rw ‖ ek; a wrong password is refused
// at login/start already).
//
// A session (after a verified key confirmation only) is 256 random bits,
// stored as its SHA-256, sent as an HttpOnly, Secure, SameSite=Strict
// cookie and in the body, with a short-lived signed assertion (JWT, EdDSA,
// kid; keys at /.well-known/jwks.json) for web servers that delegate login.
// The PAKE session key never leaves the exchange.
//
// An unknown user, or a known user asked for with another scheme, is
// answered from a fake record derived from a server secret and the name,
// so that the answers, their sizes and round trips are those of a known
// user with a wrong password. Every login start counts as a failure until
// its finish succeeds (checked and counted in one store transaction, so
// concurrent starts cannot pass one check); after FreeFailures consecutive
// failures an account waits BackoffBase·2^(n-FreeFailures) between
// attempts, and after MaxFailures (NIST SP 800-63B §5.2.2: at most 100) it
// is refused until the purge drops its counter, store.FailureIdle after
// the last counted failure (refused starts do not count), or an operator
// resets it (store.Store.ResetFailures). Each client address has a token
// bucket for starts, and registrations a stricter one; the counters are in
// the store. A password change ends every session and flow of the old
// password in the transaction that stores the new record.
package server

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/kexlab/kexlab/server/dispatch"
	"github.com/kexlab/kexlab/server/store"
)

// Config configures a Server. Zero fields take the defaults below.
type Config struct {
	Store   store.Store // required
	Secrets *Secrets    // required
	Logger  *slog.Logger
	Now     func() time.Time

	FlowTTL    time.Duration // a flow's state between rounds: 60 s
	SessionTTL time.Duration // 24 h
	AssertTTL  time.Duration // the signed assertion: 5 min
	FreshLogin time.Duration // password change and deletion need a session this young: 5 min

	MaxFailures  int           // consecutive failures that lock an account: 100
	FreeFailures int           // failures before the backoff starts: 5
	BackoffBase  time.Duration // 1 s, doubling per failure, at most 1 h

	AddrRate      float64 // starts per second per client address: 10
	AddrBurst     int     // 40
	RegisterRate  float64 // registrations per second per address: 0.2
	RegisterBurst int     // 10

	// PurgeEvery is how often the Server removes expired flows and
	// sessions and idle counters from the store: 1 min; negative: never
	// (another instance, or the operator, does).
	PurgeEvery time.Duration

	KDF            KDFParams // for new SRP accounts: DefaultKDF
	InsecureCookie bool      // drop the cookie's Secure attribute (plain-HTTP development only)
	Issuer         string    // the assertion's iss: "kexlab"

	// Dispatcher runs the server's heavy steps (the group operations of a
	// login or registration round). Nil: the Server makes one with the
	// defaults (a worker per core, CPU backend) and closes it in Close.
	Dispatcher *dispatch.Dispatcher
	// AllowedOrigins are the browser origins (e.g. "https://app.example")
	// allowed to call the API cross-origin, with credentials (CORS).
	AllowedOrigins []string
	// ServerTiming adds a Server-Timing header to every answer (see
	// timing.go for what it holds, and why it is off by default).
	ServerTiming bool
	// Page, when set, serves GET / and GET /app/… (the sign-in page of
	// package server/web); the API's routes take precedence.
	Page http.Handler
	// Study adds what the Heterogeneous-PAKE study measured beside the
	// offered schemes, for comparison on a test machine only: SRP over
	// the 1024- and 1536-bit groups of RFC 5054 (too small for use), and
	// logins that send the password to be checked against a bcrypt or
	// Argon2id hash (hashlogin.go). kexlab serve allows it on loopback
	// addresses only.
	Study bool
}

func (c *Config) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.FlowTTL, 60*time.Second)
	def(&c.SessionTTL, 24*time.Hour)
	def(&c.AssertTTL, 5*time.Minute)
	def(&c.FreshLogin, 5*time.Minute)
	def(&c.BackoffBase, time.Second)
	if c.PurgeEvery == 0 {
		c.PurgeEvery = time.Minute
	}
	if c.MaxFailures <= 0 || c.MaxFailures > 100 {
		c.MaxFailures = 100
	}
	if c.FreeFailures <= 0 {
		c.FreeFailures = 5
	}
	if c.AddrRate <= 0 {
		c.AddrRate, c.AddrBurst = 10, 40
	}
	if c.RegisterRate <= 0 {
		c.RegisterRate, c.RegisterBurst = 0.2, 10
	}
	if c.KDF.Alg == "" {
		c.KDF = DefaultKDF
	}
	if c.Issuer == "" {
		c.Issuer = "kexlab"
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Server is the service's http.Handler.
type Server struct {
	cfg     Config
	st      store.Store
	log     *slog.Logger
	schemes map[string]scheme
	hashes  map[string]hashScheme // Config.Study's password hashes
	fakes   map[string][]byte     // the hashes' records for unknown users
	seal    cipher.AEAD
	signer  *signer
	mux     *http.ServeMux
	d       *dispatch.Dispatcher
	ownD    bool // d was made by New: Close closes it
	m       *metrics
	origins map[string]bool
	purge   *purger
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Secrets == nil {
		return nil, errors.New("server: Config.Store and Config.Secrets are required")
	}
	if err := cfg.Secrets.check(); err != nil {
		return nil, fmt.Errorf("server: secrets: %w", err)
	}
	cfg.defaults()
	if cfg.KDF.Alg != "scrypt" || cfg.KDF.N < 2 || cfg.KDF.N&(cfg.KDF.N-1) != 0 || cfg.KDF.R < 1 || cfg.KDF.P < 1 {
		return nil, fmt.Errorf("server: KDF %+v: want scrypt with N a power of 2, r, p >= 1", cfg.KDF)
	}
	block, err := aes.NewCipher(cfg.Secrets.State)
	if err != nil {
		return nil, err
	}
	seal, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, st: cfg.Store, log: cfg.Logger, seal: seal, signer: newSigner(cfg.Secrets, cfg.Issuer),
		d: cfg.Dispatcher, origins: map[string]bool{}}
	if s.d == nil {
		s.d, s.ownD = dispatch.New(dispatch.Config{}, nil, nil), true
	}
	s.m = newMetrics(s.d)
	for _, o := range cfg.AllowedOrigins {
		s.origins[o] = true
	}
	srp2048, err1 := newSRP(2048, cfg.Secrets, cfg.KDF)
	srp3072, err2 := newSRP(3072, cfg.Secrets, cfg.KDF)
	op, err3 := newOPAQUE(cfg.Secrets)
	sp, err4 := newSPAKE2Plus(cfg.Secrets, cfg.KDF)
	pq, err5 := newAPAKEPQ(cfg.Secrets, cfg.KDF)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		s.Close()
		return nil, err
	}
	s.schemes = map[string]scheme{"srp-2048": srp2048, "srp-3072": srp3072, "opaque": op, "spake2plus": sp, "apakepq": pq}
	if cfg.Study {
		srp1024, err1 := newSRP(1024, cfg.Secrets, cfg.KDF)
		srp1536, err2 := newSRP(1536, cfg.Secrets, cfg.KDF)
		s.hashes = hashSchemes()
		fakes, err3 := newFakeHashes(s.hashes)
		if err := errors.Join(err1, err2, err3); err != nil {
			s.Close()
			return nil, err
		}
		s.schemes["srp-1024"], s.schemes["srp-1536"], s.fakes = srp1024, srp1536, fakes
	}
	s.routes()
	s.startPurger()
	return s, nil
}

// Close stops the periodic purge and the dispatcher the Server made
// (after its queued steps). It does not close the store.
func (s *Server) Close() {
	s.stopPurger()
	if s.ownD {
		s.d.Close()
	}
}

// heavy runs a scheme's round on the dispatcher; a full queue is a 503.
func (s *Server) heavy(ctx context.Context, f func() error) error {
	err := s.d.Do(ctx, queued(ctx, f))
	if errors.Is(err, dispatch.ErrOverloaded) || errors.Is(err, dispatch.ErrClosed) {
		e := errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is busy; retry shortly")
		e.retryAfter = time.Second
		return e
	}
	return err
}

// Schemes lists the scheme names the API takes.
func (s *Server) Schemes() []string {
	return slices.Sorted(maps.Keys(s.schemes))
}

// HashSchemes lists the password-hash logins of Config.Study (none
// without it).
func (s *Server) HashSchemes() []string {
	return slices.Sorted(maps.Keys(s.hashes))
}

// pageRoutes are Config.Page's: the sign-in page, not part of the API
// (openapi.json).
var pageRoutes = []string{"GET /{$}", "GET /app/"}

// studyRoutes are Config.Study's password-hash logins (hashlogin.go): a
// baseline for measurements, not part of the API (openapi.json).
func (s *Server) studyRoutes() map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"POST /v1/hash/register": s.api(s.hashRegister),
		"POST /v1/hash/login":    s.api(s.hashLogin),
	}
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("POST /v1/register/start", s.api(s.registerStart))
	m.HandleFunc("POST /v1/register/finish", s.api(s.registerFinish))
	m.HandleFunc("POST /v1/login/params", s.api(s.loginParams))
	m.HandleFunc("POST /v1/login/start", s.api(s.loginStart))
	m.HandleFunc("POST /v1/login/finish", s.api(s.loginFinish))
	m.HandleFunc("POST /v1/logout", s.api(s.logout))
	m.HandleFunc("GET /v1/session", s.api(s.session))
	m.HandleFunc("POST /v1/password/start", s.api(s.passwordStart))
	m.HandleFunc("POST /v1/password/finish", s.api(s.passwordFinish))
	m.HandleFunc("DELETE /v1/account", s.api(s.deleteAccount))
	m.HandleFunc("GET /.well-known/jwks.json", s.api(s.jwks))
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]string{"status": "ok"}) })
	m.HandleFunc("GET /readyz", s.api(s.ready))
	m.HandleFunc("GET /v1/openapi.json", s.api(s.openapi))
	m.Handle("GET /metrics", s.m.handler())
	if s.cfg.Study {
		for p, h := range s.studyRoutes() {
			m.Handle(p, h)
		}
	}
	if s.cfg.Page != nil {
		for _, p := range pageRoutes {
			m.Handle(p, s.cfg.Page)
		}
	}
	// Everything else, JSON as well: a method the API never takes is 405,
	// any other unknown route 404.
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodPost && r.Method != http.MethodDelete {
			s.writeError(w, r, errorf(http.StatusMethodNotAllowed, CodeMethod, "method %s", r.Method))
			return
		}
		s.writeError(w, r, errorf(http.StatusNotFound, CodeNotFound, "no route %s %s", r.Method, r.URL.Path))
	})
	s.mux = m
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cors(w, r) {
		return
	}
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	r = s.withTiming(r, sw, start)
	s.mux.ServeHTTP(sw, r) // routes once, and sets r.Pattern to the route taken
	s.m.observe(r.Pattern, sw.code, time.Since(start))
}

// cors sets the CORS headers for an allowed Origin and answers a
// preflight request itself (it reports whether it did). A disallowed
// origin gets no CORS headers, so the browser keeps the answer from it.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	w.Header().Add("Vary", "Origin")
	allowed := s.origins[origin]
	if allowed {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Access-Control-Allow-Credentials", "true")
		// A rate-limited client reads Retry-After; the page reads
		// Server-Timing through the Performance API.
		w.Header().Set("Access-Control-Expose-Headers", "Retry-After")
		if s.cfg.ServerTiming {
			w.Header().Set("Timing-Allow-Origin", origin)
		}
	}
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	if allowed {
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization")
		w.Header().Set("Access-Control-Max-Age", "600")
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}

// api adapts a handler that returns an error to http.HandlerFunc, and
// turns a panic into a 500 (logged, never shown).
func (s *Server) api(h func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic in handler", "path", r.URL.Path, "panic", fmt.Sprint(p))
				s.writeError(w, r, errors.New("panic"))
			}
		}()
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.st.Ping(ctx); err != nil {
		s.log.Warn("store not ready", "err", err)
		return errorf(http.StatusServiceUnavailable, CodeUnavailable, "store not ready")
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}

// clientAddr is the request's remote IP (no proxy headers are trusted).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// throttle takes a token from bucket key or answers 429.
func (s *Server) throttle(ctx context.Context, key string, rate float64, burst int) error {
	ok, wait, err := s.st.TakeToken(ctx, key, s.cfg.Now(), rate, burst)
	if err != nil {
		return err
	}
	if !ok {
		e := errorf(http.StatusTooManyRequests, CodeRateLimited, "too many requests; retry later")
		e.retryAfter = wait
		return e
	}
	return nil
}

// pendingFlow is what a flow keeps between its rounds, sealed.
type pendingFlow struct {
	user   string
	scheme string
	state  []byte
}

// newHandle returns 16 random bytes.
func newHandle() ([]byte, error) {
	h := make([]byte, 16)
	_, err := rand.Read(h)
	return h, err
}

// putPending seals state under a new handle and stores it.
func (s *Server) putPending(ctx context.Context, kind, user, scheme string, state []byte) ([]byte, error) {
	handle, err := newHandle()
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, s.seal.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	sealed := s.seal.Seal(nonce, nonce, state, s.aad(handle, kind, user, scheme))
	clear(state)
	return handle, s.st.PutPending(ctx, store.Pending{Handle: handle, Kind: kind, User: user, Scheme: scheme,
		State: sealed, Expires: s.cfg.Now().Add(s.cfg.FlowTTL)})
}

// aad binds a sealed state to its handle, kind, user and scheme.
func (s *Server) aad(handle []byte, kind, user, scheme string) []byte {
	return fmt.Appendf(append([]byte(nil), handle...), "\x00%s\x00%s\x00%s", kind, scheme, user)
}

// takePending claims the flow of handle, which must be of kind.
func (s *Server) takePending(ctx context.Context, handle []byte, kind string) (*pendingFlow, error) {
	if len(handle) != 16 {
		return nil, badRequest("handle: want 16 bytes")
	}
	p, err := s.st.TakePending(ctx, handle, s.cfg.Now())
	if errors.Is(err, store.ErrNotFound) || (err == nil && p.Kind != kind) {
		return nil, errorf(http.StatusBadRequest, CodeUnknownFlow, "no %s flow with this handle (unknown, expired or already finished)", kind)
	}
	if err != nil {
		return nil, err
	}
	ns := s.seal.NonceSize()
	if len(p.State) < ns {
		return nil, errors.New("pending state too short")
	}
	state, err := s.seal.Open(nil, p.State[:ns], p.State[ns:], s.aad(handle, p.Kind, p.User, p.Scheme))
	if err != nil {
		return nil, fmt.Errorf("pending state does not open: %w", err)
	}
	return &pendingFlow{user: p.User, scheme: p.Scheme, state: state}, nil
}

func (s *Server) scheme(name string) (scheme, error) {
	sc, ok := s.schemes[name]
	if !ok {
		return nil, errorf(http.StatusBadRequest, CodeUnknownScheme, "scheme %q not offered (%v)", name, s.Schemes())
	}
	return sc, nil
}
