package server_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/pake/apakepq"
	"github.com/kexlab/kexlab/pake/opaque"
	"github.com/kexlab/kexlab/pake/spake2plus"
	"github.com/kexlab/kexlab/pake/srp"
	"github.com/kexlab/kexlab/server"
	"github.com/kexlab/kexlab/server/store"
)

// The enumeration test's numbers, per scheme.
const (
	// enumPairs login attempts of each kind: a known user with a wrong
	// password, and an unknown user. Even pairs use a fresh name on both
	// sides (an account that never failed, a name never asked for), odd
	// pairs one of enumRepeated names on both sides (a counter row that
	// exists and grows).
	enumPairs    = 1000
	enumRepeated = 8 // each repeated name gets enumPairs/2/enumRepeated = 63 failures, under MaxFailures
	enumWarmup   = 40
	// enumAlpha is the family-wise level of the timing tests, after the
	// Holm adjustment over the scheme's six comparisons (start and finish;
	// all pairs, fresh names, repeated names). It is small because the
	// test runs on every `make test`, on a shared 2-core machine among
	// other packages' tests: a false alarm must be rare (≤ 0.1% per scheme
	// when nothing leaks), while a real difference of a few percent in the
	// median is still found at n = 1000 (z ≈ 3.9 at α = 0.001 two-sided
	// only needs a Cliff's delta of about 0.1).
	enumAlpha = 0.001
)

// TestEnumeration: an unknown user gets the same status codes, body shapes
// and sizes, round trips and timing distribution as a known user with a
// wrong password (the enumeration requirement). For each scheme it
// runs enumPairs logins of each kind, interleaved (K U U K K U U K ...,
// so that neither kind always goes first), each a login/start and a
// login/finish over HTTP on loopback, timed by the client per request, and
// checks the answers' shapes and sizes and, by Mann–Whitney, the times.
//
// The client side is precomputed: one message 1 (SRP's A, OPAQUE's KE1)
// per scheme, reused by every attempt, and a random message 3 (SRP's M1,
// OPAQUE's KE3), which the server checks as it would a wrong password's.
// The server does its full work each time: account and counter lookups,
// the fake record, B = kv + g^b and S for SRP, KE2 for OPAQUE, the sealed
// state in the store.
//
// The known accounts are copies of one real registration under other
// names, written into the store directly (registering 500 accounts over
// the API would cost 500 client-side scrypt runs): the server reads and
// parses a copied record exactly as the original.
func TestEnumeration(t *testing.T) {
	for _, sc := range []string{"srp-2048", "srp-3072", "opaque", "spake2plus", "apakepq"} {
		t.Run(sc, func(t *testing.T) { testEnumeration(t, sc) })
	}
}

// The rounds of a login attempt: params (SPAKE2+ only), start, finish.
const (
	phParams = iota
	phStart
	phFinish
	nPhases
)

var phaseNames = [nPhases]string{"login/params", "login/start", "login/finish"}

// enumSample is one login attempt as the client saw it.
type enumSample struct {
	dur  [nPhases]time.Duration
	key  [nPhases]string // status, error code, JSON shape, header names
	size [nPhases]int    // body size; the start's less its msg field
	// msgLen is the decoded msg of the start answer.
	msgLen int
}

type enumRig struct {
	hs     *httptest.Server
	scheme string
	params bool   // the scheme has a login/params round
	msg1   string // base64url
	msg3   int    // length of the last client message
	// startFails: the server sees the wrong password in message 1
	// (apakepq) and answers login/start with 401; there is no finish.
	startFails bool
}

func testEnumeration(t *testing.T, sc string) {
	began := time.Now()
	var st store.Store
	c, hs, _ := start(t, func(cfg *server.Config) {
		st = cfg.Store
		// No backoff before MaxFailures (the repeated names stay below it),
		// and an address bucket that never runs dry (start's clock stands
		// still, so the bucket does not refill).
		cfg.FreeFailures, cfg.MaxFailures = 100, 100
		cfg.AddrBurst = 1 << 20
	})
	ctx := t.Context()
	rig := &enumRig{hs: hs, scheme: sc}
	var msg1 []byte
	switch sc {
	case "opaque":
		cl, err := opaque.NewClient(opaque.Config{})
		if err != nil {
			t.Fatal(err)
		}
		_, ke1, err := cl.GenerateKE1(nil, []byte("wrong password"))
		if err != nil {
			t.Fatal(err)
		}
		msg1, rig.msg3 = ke1.Bytes(), opaque.KE3Size
	case "spake2plus":
		// Any w0, w1 make a well-formed shareP; the server checks none of
		// it before the finish.
		fake := func(_ []byte, n int) ([]byte, error) { return bytes.Repeat([]byte{7}, n), nil }
		w0, w1, _, err := spake2plus.Register([]byte("wrong password"), nil, nil, fake)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := spake2plus.NewProver(nil, server.SPAKE2PlusContext, []byte("k-x-0000"), server.SPAKE2PlusVerifierID, w0, w1)
		if err != nil {
			t.Fatal(err)
		}
		if msg1, err = pr.Start(); err != nil {
			t.Fatal(err)
		}
		rig.params, rig.msg3 = true, spake2plus.ConfirmSize
	case "apakepq":
		// A client under a wrong (stretched) password: message 1 opens
		// to an ML-KEM key under neither the real nor a fake record's rw.
		cl, err := apakepq.NewClient(nil, []byte("wrong password"), apakepq.Session{ClientID: []byte("k-x-0000"), ServerID: server.APAKEPQServerID, Context: server.APAKEPQContext}, server.APAKEPQIterations)
		if err != nil {
			t.Fatal(err)
		}
		if msg1, err = cl.Next(nil); err != nil {
			t.Fatal(err)
		}
		rig.params, rig.startFails = true, true
	default:
		bits := map[string]int{"srp-2048": 2048, "srp-3072": 3072}[sc]
		p, err := srp.NewParams(bits, crypto.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := srp.NewClientWithoutPassword(nil, p, []byte("k-x-0000"))
		if err != nil {
			t.Fatal(err)
		}
		if msg1, err = cl.Next(nil); err != nil {
			t.Fatal(err)
		}
		rig.msg3 = p.HashSize()
	}
	rig.msg1 = base64.RawURLEncoding.EncodeToString(msg1)

	// One real account, copied under the known names. Names all have the
	// same length, so requests have the same size.
	if err := c.Register(ctx, sc, "k-x-0000", []byte("correct horse")); err != nil {
		t.Fatal(err)
	}
	orig, err := st.GetAccount(ctx, "k-x-0000")
	if err != nil {
		t.Fatal(err)
	}
	// The known and the unknown name of a pair are neighbours in the
	// store's key order ("d-0007-k", "d-0007-u"), so that both lookups
	// descend to the same B-tree page: the test compares the service's
	// paths, not the cache locality of where a name happens to sort
	// (which is the same for known and unknown names at one place; with
	// all unknown names after all known ones, the misses always hit the
	// same hot page, 3–4 µs faster).
	name := func(kind, mode byte, i int) string { return fmt.Sprintf("%c-%04d-%c", mode, i, kind) }
	var known []string
	for i := range enumPairs / 2 {
		known = append(known, name('k', 'd', i))
	}
	for i := range enumRepeated {
		known = append(known, name('k', 'r', i))
	}
	for i := range enumWarmup {
		known = append(known, name('k', 'w', i))
	}
	for _, u := range known {
		a := orig
		a.User = u
		if err := st.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	setup := time.Since(began)

	for i := range enumWarmup {
		rig.attempt(t, ctx, name('k', 'w', i))
		rig.attempt(t, ctx, name('u', 'w', i))
	}

	var K, U []enumSample
	var modes []byte
	for i := range enumPairs {
		mode, j := byte('d'), i/2
		if i%2 == 1 {
			mode, j = 'r', (i/2)%enumRepeated
		}
		k, u := name('k', mode, j), name('u', mode, j)
		if (i/2)%2 == 0 {
			K = append(K, rig.attempt(t, ctx, k))
			U = append(U, rig.attempt(t, ctx, u))
		} else {
			U = append(U, rig.attempt(t, ctx, u))
			K = append(K, rig.attempt(t, ctx, k))
		}
		modes = append(modes, mode)
		if t.Failed() {
			t.FailNow()
		}
	}
	phases := []int{phStart, phFinish}
	if rig.startFails {
		phases = phases[:1]
	}
	if rig.params {
		phases = append([]int{phParams}, phases...)
	}
	// The attempts did not lock or slow anyone down, and did not log in.
	for _, s := range append(slices.Clone(K), U...) {
		last := s.key[phFinish]
		if rig.startFails {
			last = s.key[phStart]
		} else if !strings.HasPrefix(s.key[phStart], "200 ") {
			last = ""
		}
		if (rig.params && !strings.HasPrefix(s.key[phParams], "200 ")) || !strings.HasPrefix(last, "401 auth_failed ") {
			t.Fatalf("an attempt was answered %q", s.key)
		}
	}

	// Status codes, error codes, JSON shapes, header names and sizes (the
	// start's without its msg): one value per round, the same for both
	// kinds.
	for _, ph := range phases {
		for _, what := range []string{"answer", "size"} {
			key := func(s enumSample) string { return s.key[ph] }
			if what == "size" {
				key = func(s enumSample) string { return fmt.Sprint(s.size[ph]) }
			}
			hk, hu := histogram(K, key), histogram(U, key)
			t.Logf("%s %s: known %v, unknown %v", phaseNames[ph], what, hk, hu)
			if len(hk) != 1 || len(hu) != 1 || !sameKeys(hk, hu) {
				t.Errorf("%s %s differs: known %v, unknown %v", phaseNames[ph], what, hk, hu)
			}
		}
	}
	if !rig.startFails {
		rig.checkMsgLengths(t, K, U)
	}

	// Times: Mann–Whitney, known vs unknown, per round, on all pairs and
	// on each half.
	type cmp struct {
		what   string
		r      stats.MWResult
		mk, mu float64
	}
	var cmps []cmp
	for _, ph := range phases {
		for _, mode := range []byte{0, 'd', 'r'} {
			var xk, xu []float64
			for i := range K {
				if mode == 0 || modes[i] == mode {
					xk, xu = append(xk, float64(K[i].dur[ph])), append(xu, float64(U[i].dur[ph]))
				}
			}
			r, err := stats.MannWhitney(xk, xu, nil)
			if err != nil {
				t.Fatal(err)
			}
			mk, _ := stats.Quantile(xk, 0.5)
			mu, _ := stats.Quantile(xu, 0.5)
			what := phaseNames[ph] + map[byte]string{0: ", all", 'd': ", fresh names", 'r': ", repeated names"}[mode]
			cmps = append(cmps, cmp{what, r, mk, mu})
		}
	}
	ps := make([]float64, len(cmps))
	for i, c := range cmps {
		ps[i] = c.r.P
	}
	adj, err := stats.Holm(ps)
	if err != nil {
		t.Fatal(err)
	}
	us := func(ns float64) string { return fmt.Sprintf("%.0fµs", ns/1e3) }
	for i, c := range cmps {
		t.Logf("%s: n %d+%d, median known %s, unknown %s, HL shift %s, Cliff's delta %+.3f, p %.3g (Holm %.3g)",
			c.what, c.r.N1, c.r.N2, us(c.mk), us(c.mu), us(c.r.Shift), c.r.Delta, c.r.P, adj[i])
		if adj[i] < enumAlpha {
			t.Errorf("%s: the times of known and unknown users differ (p %.3g after Holm, α %g): median known %s, unknown %s",
				c.what, adj[i], enumAlpha, us(c.mk), us(c.mu))
		}
	}
	t.Logf("%s: setup %v, %d attempts of each kind in %v", sc, setup.Round(time.Millisecond), len(K), time.Since(began).Round(time.Millisecond))
}

// checkMsgLengths compares the lengths of the start answers' msg.
func (r *enumRig) checkMsgLengths(t *testing.T, K, U []enumSample) {
	// The start answer's msg: OPAQUE's KE2 and SPAKE2+'s shareV || confirmV
	// have one size; SRP's B is sent without leading zero bytes (RFC 5054),
	// so it is a byte shorter in 1/256 of the answers, for both kinds
	// alike: compare the distributions, not the pairs.
	hk := histogram(K, func(s enumSample) string { return fmt.Sprint(s.msgLen) })
	hu := histogram(U, func(s enumSample) string { return fmt.Sprint(s.msgLen) })
	t.Logf("login/start msg lengths: known %v, unknown %v", hk, hu)
	full := 0
	for _, s := range append(slices.Clone(K), U...) {
		full = max(full, s.msgLen)
	}
	if hk[fmt.Sprint(full)] == 0 || hu[fmt.Sprint(full)] == 0 {
		t.Errorf("the longest msg is not seen for both kinds: %v, %v", hk, hu)
	}
	for kind, h := range map[string]map[string]int{"known": hk, "unknown": hu} {
		short := 0
		for l, n := range h {
			switch {
			case l == fmt.Sprint(full):
			case strings.HasPrefix(r.scheme, "srp-") && (l == fmt.Sprint(full-1) || l == fmt.Sprint(full-2)):
				short += n
			default:
				t.Errorf("%s: login/start msg of %s bytes (longest %d)", kind, l, full)
			}
		}
		// Binomial(1000, 1/256): mean 3.9; P(more than 20) < 1e-8.
		if short > len(K)/50 {
			t.Errorf("%s: %d of %d start answers have a short msg", kind, short, len(K))
		}
	}
}

func histogram(xs []enumSample, key func(enumSample) string) map[string]int {
	h := map[string]int{}
	for _, x := range xs {
		h[key(x)]++
	}
	return h
}

func sameKeys(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// attempt runs one login of user with a wrong password: params (if the
// scheme has them), start, then finish with a random message 3.
func (r *enumRig) attempt(t *testing.T, ctx context.Context, user string) enumSample {
	t.Helper()
	var s enumSample
	if r.params {
		body := fmt.Sprintf(`{"user":%q,"scheme":%q}`, user, r.scheme)
		status, hdr, data, d := r.post(t, ctx, "/v1/login/params", body)
		s.dur[phParams], s.size[phParams], s.key[phParams] = d, len(data), answerKey(status, hdr, data)
	}
	body := fmt.Sprintf(`{"user":%q,"scheme":%q,"msg":%q}`, user, r.scheme, r.msg1)
	status, hdr, data, d := r.post(t, ctx, "/v1/login/start", body)
	s.dur[phStart], s.key[phStart] = d, answerKey(status, hdr, data)
	var ans struct {
		Handle string `json:"handle"`
		Msg    string `json:"msg"`
	}
	if r.startFails {
		s.size[phStart] = len(data)
		return s
	}
	if err := json.Unmarshal(data, &ans); err != nil || status != http.StatusOK {
		t.Errorf("login/start of %s: %d %q", user, status, data)
		return s
	}
	s.size[phStart] = len(data) - len(ans.Msg)
	msg, err := base64.RawURLEncoding.DecodeString(ans.Msg)
	if err != nil {
		t.Errorf("login/start of %s: msg: %v", user, err)
	}
	s.msgLen = len(msg)
	m3 := make([]byte, r.msg3)
	rand.Read(m3)
	body = fmt.Sprintf(`{"handle":%q,"msg":%q}`, ans.Handle, base64.RawURLEncoding.EncodeToString(m3))
	status, hdr, data, d = r.post(t, ctx, "/v1/login/finish", body)
	s.dur[phFinish], s.size[phFinish], s.key[phFinish] = d, len(data), answerKey(status, hdr, data)
	return s
}

// post sends a JSON body and returns the answer and the time from sending
// the request to reading the whole answer.
func (r *enumRig) post(t *testing.T, ctx context.Context, path, body string) (int, http.Header, []byte, time.Duration) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.hs.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	resp, err := r.hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	d := time.Since(t0)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data, d
}

// answerKey is what must not differ between the kinds: the status, the
// error code, the JSON shape (keys and value types, recursively) and the
// header names.
func answerKey(status int, hdr http.Header, data []byte) string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(data, &e)
	var v any
	shape := "not JSON"
	if json.Unmarshal(data, &v) == nil {
		shape = jsonShape(v)
	}
	var names []string
	for k := range hdr {
		names = append(names, k)
	}
	sort.Strings(names)
	code := e.Error.Code
	if code == "" {
		code = "-"
	}
	return fmt.Sprintf("%d %s %s %s", status, code, shape, strings.Join(names, ","))
}

func jsonShape(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b bytes.Buffer
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s:%s", k, jsonShape(v[k]))
		}
		b.WriteByte('}')
		return b.String()
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = jsonShape(x)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		return "s"
	case float64:
		return "n"
	case bool:
		return "b"
	case nil:
		return "null"
	}
	return "?"
}
