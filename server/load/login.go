package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/kexlab/kexlab/pake/opaque"
	"github.com/kexlab/kexlab/server/client"
)

// Config is a run against a service.
type Config struct {
	Loop
	URL      string // the service, e.g. http://127.0.0.1:8080 (loopback only)
	Scheme   string // srp-2048, srp-3072, spake2plus, opaque or apakepq
	Accounts int    // registered before the run (not timed), logged in to round robin
	// Registered says the accounts exist already (an earlier Run against
	// the same service made them): Run skips the registrations.
	Registered bool
	// HTTP is the client's HTTP client; nil: one with a connection pool
	// of Concurrency connections and a 30 s timeout per request.
	HTTP     *http.Client
	Progress func(Progress)
}

// Check reports a configuration Run refuses: a service not on a loopback
// address (load tests stay on this machine), out-of-range counts.
func (cfg *Config) Check() error {
	if err := cfg.checkTarget(); err != nil {
		return err
	}
	return cfg.Loop.check()
}

// checkTarget checks the service and the accounts (what Register uses).
func (cfg *Config) checkTarget() error {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("load: URL %q: want http(s)://host:port", cfg.URL)
	}
	if !IsLoopbackHost(u.Hostname()) {
		return fmt.Errorf("load: URL %s: the load generator drives loopback services only", cfg.URL)
	}
	if cfg.Accounts < 1 || cfg.Accounts > 100000 {
		return fmt.Errorf("load: accounts %d: want 1 to 100000", cfg.Accounts)
	}
	return nil
}

// IsLoopbackHost reports whether host (a name or an address, without a
// port) is this machine's loopback: "localhost" or a loopback IP.
func IsLoopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// The accounts' names and password: "load-<scheme>-<i>", one password, so
// that a later run finds the accounts an earlier one made.
func account(scheme string, i int) string { return fmt.Sprintf("load-%s-%d", scheme, i) }

var password = []byte("kexlab load generator")

// Run registers cfg.Accounts accounts (those that exist already are
// reused) and runs cfg's loop of logins.
//
// The client does not stretch passwords, so that a load generator on the
// same machine spends its CPU on the protocol only: OPAQUE with the
// identity KSF, which the server never sees (registrations and logins of
// this package agree); SRP, SPAKE2+ and apakepq stretch with the
// parameters the server gives each account, so run the server with cheap
// ones for a load test (`kexlab serve -scrypt-n 2`), as its benchmark does.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	c := cfg.client()
	if !cfg.Registered {
		if err := registerAll(ctx, c, cfg); err != nil {
			return nil, err
		}
	}
	var next atomic.Int64
	op := func(ctx context.Context) error {
		i := int(next.Add(1)-1) % cfg.Accounts
		_, err := c.Login(ctx, cfg.Scheme, account(cfg.Scheme, i), password)
		return err
	}
	res, err := run(ctx, cfg.Loop, op, cfg.Progress)
	if err != nil {
		return nil, err
	}
	res.Scheme = cfg.Scheme
	return res, nil
}

// Register registers cfg's accounts (those that exist already are reused)
// and runs no logins; cfg.Loop is not used.
func Register(ctx context.Context, cfg Config) error {
	if err := cfg.checkTarget(); err != nil {
		return err
	}
	return registerAll(ctx, cfg.client(), cfg)
}

// client returns the generator's client for cfg.
func (cfg *Config) client() *client.Client {
	hc := cfg.HTTP
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.Concurrency // 0 (Register): net/http's default
		hc = &http.Client{Transport: tr, Timeout: 30 * time.Second}
	}
	c := client.New(cfg.URL, hc)
	c.OPAQUE = opaque.Config{KSF: opaque.Identity}
	return c
}

func registerAll(ctx context.Context, c *client.Client, cfg Config) error {
	for i := range cfg.Accounts {
		if err := register(ctx, c, cfg.Scheme, account(cfg.Scheme, i)); err != nil {
			return fmt.Errorf("load: registering %s: %w", account(cfg.Scheme, i), err)
		}
	}
	return nil
}

// register creates one account; an existing one is kept, and a rate
// limit is waited out (Retry-After) up to a minute per account.
func register(ctx context.Context, c *client.Client, scheme, user string) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := c.Register(ctx, scheme, user, password)
		var ce *client.Error
		switch {
		case err == nil || client.IsCode(err, "user_exists"):
			return nil
		case errors.As(err, &ce) && ce.Code == "rate_limited" && time.Now().Add(ce.RetryAfter).Before(deadline):
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(max(ce.RetryAfter, 100*time.Millisecond)):
			}
		default:
			return err
		}
	}
}
