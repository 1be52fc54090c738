// Package airtime measures complete 4-way handshakes with any key suite
// (package wifi/keys: the standard suites or the lightweight sponge suites
// over package wifi/lwc) and evaluates the authentication-time model of
// "Implementation of three LWC schemes in the WiFi 4-way handshake"
// (Yi, Gong, Mandal, NIST LWC workshop 2019):
//
//	T_auth = T_4way_tx + 2·T_KDF + 3·T_MIC
//
// T_KDF and T_MIC are measured, not modelled: every PTK derivation and
// every MIC computed inside n real in-process handshakes (both stations,
// frames built, parsed and checked) is timed, and the medians enter the
// model. T_4way_tx is modelled from the lengths of the four frames those
// handshakes actually sent (lwc.Model: link rate, framing octets and a
// per-frame time; no contention, no retransmission).
package airtime

import (
	"crypto/rand"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi"
	"github.com/kexlab/kexlab/wifi/keys"
	"github.com/kexlab/kexlab/wifi/lwc"
)

// Suite is a named key suite the command line can select.
type Suite struct {
	Key   string // command-line name: "standard", "sae", "ace", …
	Suite keys.KeySuite
	About string
}

// Suites returns the standard suites the talk compared with (WPA2's PSK
// with HMAC-SHA-1, and WPA3's SAE with KDF-SHA-256 and AES-128-CMAC) and
// one sponge suite per lightweight cipher.
func Suites() []Suite {
	out := []Suite{
		{"standard", keys.SuitePSK, "WPA2-PSK: PRF-384 (HMAC-SHA-1), MIC HMAC-SHA-1-128"},
		{"sae", keys.SuiteSAE, "WPA3-SAE (AKM 8): KDF-SHA-256, MIC AES-128-CMAC"},
	}
	for _, c := range lwc.Ciphers() {
		out = append(out, Suite{c.Name, keys.LWCSuite(c), c.Spec + " sponge KDF and MIC"})
	}
	return out
}

// Lookup returns the suite whose Key is key.
func Lookup(key string) (Suite, error) {
	var keys []string
	for _, s := range Suites() {
		if s.Key == key {
			return s, nil
		}
		keys = append(keys, s.Key)
	}
	return Suite{}, fmt.Errorf("%w: unknown KDF/MIC %q (have %s)", pakeerr.ErrInvalidParameter, key, strings.Join(keys, ", "))
}

// Config are the settings of [Measure].
type Config struct {
	N    int       // handshakes (default 200)
	PMK  []byte    // 32 octets; nil draws one from Rand
	Rand io.Reader // nil means crypto/rand
	AA   [6]byte   // authenticator address (default 02:00:00:00:00:01)
	SPA  [6]byte   // supplicant address (default 02:00:00:00:00:02)
}

// Measurement is what n handshakes with one suite cost on this machine.
type Measurement struct {
	Suite string `json:"suite"`
	Key   string `json:"key"`
	N     int    `json:"n"`
	// Samples of one PTK derivation, one MIC computation (or check), and
	// one whole handshake (both stations, in process), in nanoseconds.
	KDF       []float64 `json:"kdf_ns"`
	MIC       []float64 `json:"mic_ns"`
	Handshake []float64 `json:"handshake_ns"`
	// Frames are the lengths of messages 1–4 in octets (EAPOL frames).
	Frames [4]int `json:"frames"`
}

// Measure runs cfg.N complete handshakes with s, timing every KDF and MIC
// call of both stations and each handshake as a whole.
func Measure(s Suite, cfg Config) (*Measurement, error) {
	if cfg.N <= 0 {
		cfg.N = 200
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.AA == ([6]byte{}) {
		cfg.AA = [6]byte{2, 0, 0, 0, 0, 1}
	}
	if cfg.SPA == ([6]byte{}) {
		cfg.SPA = [6]byte{2, 0, 0, 0, 0, 2}
	}
	pmk := cfg.PMK
	if pmk == nil {
		pmk = make([]byte, 32)
		if _, err := io.ReadFull(cfg.Rand, pmk); err != nil {
			return nil, fmt.Errorf("%w: %v", pakeerr.ErrRandom, err)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t := &timed{KeySuite: s.Suite}
	m := &Measurement{Suite: s.Suite.Name(), Key: s.Key, N: cfg.N}
	for i := 0; i <= cfg.N; i++ { // handshake 0 warms up and is dropped
		t.kdf, t.mic = t.kdf[:0], t.mic[:0]
		c := wifi.Config{Suite: t, PMK: pmk, AA: cfg.AA, SPA: cfg.SPA, Rand: cfg.Rand}
		start := time.Now()
		a, err := wifi.NewAuthenticator(c)
		if err != nil {
			return nil, err
		}
		sp, err := wifi.NewSupplicant(c)
		if err != nil {
			return nil, err
		}
		tr, err := wifi.RunHandshake(a, sp)
		d := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("%s handshake: %w", s.Suite.Name(), err)
		}
		if err := sameKeys(a, sp); err != nil {
			return nil, err
		}
		if i == 0 {
			m.Frames = [4]int{len(tr.Msg1), len(tr.Msg2), len(tr.Msg3), len(tr.Msg4)}
			continue
		}
		m.Handshake = append(m.Handshake, float64(d))
		m.KDF = append(m.KDF, t.kdf...)
		m.MIC = append(m.MIC, t.mic...)
	}
	return m, nil
}

// sameKeys checks that both stations installed the same TK.
func sameKeys(a *wifi.Authenticator, s *wifi.Supplicant) error {
	pa, err := a.PTK()
	if err != nil {
		return err
	}
	ps, err := s.PTK()
	if err != nil {
		return err
	}
	if string(pa.TK) != string(ps.TK) {
		return fmt.Errorf("%w: the stations installed different keys", pakeerr.ErrAuthFailed)
	}
	return nil
}

// timed wraps a suite and times its KDF and MIC calls.
type timed struct {
	keys.KeySuite
	kdf, mic []float64
}

func (t *timed) DerivePTK(pmk []byte, aa, spa [6]byte, anonce, snonce []byte) (keys.PTK, error) {
	start := time.Now()
	p, err := t.KeySuite.DerivePTK(pmk, aa, spa, anonce, snonce)
	t.kdf = append(t.kdf, float64(time.Since(start)))
	return p, err
}

func (t *timed) MIC(kck, frame []byte) ([]byte, error) {
	start := time.Now()
	m, err := t.KeySuite.MIC(kck, frame)
	t.mic = append(t.mic, float64(time.Since(start)))
	return m, err
}

// RSNE and TKSize pass the wrapped suite's through.
func (t *timed) RSNE() []byte {
	if r, ok := t.KeySuite.(keys.RSNElementer); ok {
		return r.RSNE()
	}
	return keys.SuitePSK.RSNE()
}

func (t *timed) TKSize() int {
	if k, ok := t.KeySuite.(keys.TKSizer); ok {
		return k.TKSize()
	}
	return 16
}

// Row is one line of the talk's table: a suite on a link.
type Row struct {
	Suite     string        `json:"suite"`
	Key       string        `json:"key"`
	Link      string        `json:"link"`
	N         int           `json:"n"`
	KDF       stats.Summary `json:"t_kdf"` // ns
	MIC       stats.Summary `json:"t_mic"` // ns
	Handshake stats.Summary `json:"handshake_cpu"`
	Frames    [4]int        `json:"frames"`
	lwc.Breakdown
}

// Evaluate puts a measurement on a link: the medians of T_KDF and T_MIC
// into the model.
func Evaluate(m *Measurement, model lwc.Model) (Row, error) {
	r := Row{Suite: m.Suite, Key: m.Key, Link: lwc.FormatRate(model.LinkBps), N: m.N, Frames: m.Frames}
	var err error
	for _, x := range []struct {
		dst *stats.Summary
		xs  []float64
	}{{&r.KDF, m.KDF}, {&r.MIC, m.MIC}, {&r.Handshake, m.Handshake}} {
		if *x.dst, err = stats.Summarize(slices.Clone(x.xs)); err != nil {
			return r, fmt.Errorf("%s: %w", m.Suite, err)
		}
	}
	if r.Breakdown, err = model.Auth(m.Frames[:], time.Duration(r.KDF.Median), time.Duration(r.MIC.Median)); err != nil {
		return r, fmt.Errorf("%s on %s: %w", m.Suite, r.Link, err)
	}
	return r, nil
}

// Assumptions are the model's, printed with every table.
func Assumptions(m lwc.Model) []string {
	return []string{
		"T_auth = T_4way_tx + 2·T_KDF + 3·T_MIC (the talk's model); T_KDF and T_MIC are medians measured in real handshakes here",
		fmt.Sprintf("T_4way_tx: the four EAPOL frames as sent, each plus %d octets of framing and %v per frame, at the link rate", m.FrameOverhead, m.PerFrame),
		"no contention for the medium, no retransmission, no other processing",
	}
}
