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
//
// # MIC shapes
//
// The handshake computes each MIC over the whole EAPOL frame (95 octets
// and more); the talk timed a MIC over four 64-bit blocks of associated
// data and no message (AD = 4, M = 0). [Config.MIC] selects which of the
// two enters T_MIC: MICFrame, the MIC calls of the handshakes, or MICTalk,
// the talk's shape timed after each handshake under its KCK. The frames on
// the air are the same either way.
//
// # The talk's link
//
// The talk measured T_4way_tx = 690–730 ms on its USRP/GNU Radio 802.11a
// link at an effective 16.82 kbit/s, and its T_auth figures use 700 ms
// (SPIX on the ATmega128: 956.4 = 700 + 2·44.08 + 3·56.08 ms). At 16.82
// kbit/s the four frames (99 + 121 + 155 + 99 octets, each with 36 octets
// of 802.11 framing) take 293.9 ms; the rest is the SDR chain's cost per
// frame. The link preset lwc.PresetSDR ("sdr-16.82k") is 16.82 kbit/s, 36
// octets and lwc.SDRPerFrame = 101.516052 ms per frame, calibrated so that
// the four frames take 700 ms (699.999999 ms: the per-frame time is
// rounded down to the nanosecond). An "-overhead 249" did the same in
// octets: 249 octets per frame at 16.82 kbit/s give 699.17 ms.
//
// # Other platforms
//
// T_KDF and T_MIC measured elsewhere enter the model through [Given]
// (times from real hardware) or [Platform] (the cycle counts of a
// simulated microcontroller, package wifi/mcu's [mcu.Measurement], at its
// clock). The data-protection table ([MeasureProtect], [PlatformProtect])
// times one permutation, the authenticated encryption of 128 octets with 0
// and 16 octets of associated data, and ACE-Hash of 128 octets, with the
// airtime of the protected frame (128 + 16 + 16 octets plus framing).
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
	"github.com/kexlab/kexlab/wifi/mcu"
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
	// MIC is the MIC shape whose time enters the model: MICFrame (the
	// default) or MICTalk, which Measure then also times, as many calls
	// per handshake as the handshake makes MIC calls.
	MIC string
}

// The MIC shapes ([Config.MIC]).
const (
	// MICFrame is the MIC over each whole EAPOL frame as sent: the calls
	// the handshake makes.
	MICFrame = "frame"
	// MICTalk is the talk's MIC: four 64-bit blocks (32 octets) of
	// associated data and an empty message (AD = 4, M = 0).
	MICTalk = "talk"
)

// TalkMICOctets is the associated data of the talk's MIC: four 64-bit
// blocks.
const TalkMICOctets = 32

// ParseMICShape checks a MIC shape's name ("" is MICFrame).
func ParseMICShape(s string) (string, error) {
	switch s {
	case "", MICFrame:
		return MICFrame, nil
	case MICTalk:
		return MICTalk, nil
	}
	return "", fmt.Errorf("%w: unknown MIC shape %q (have frame, talk)", pakeerr.ErrInvalidParameter, s)
}

// MICShapeAbout says what a MIC shape is, for the tables' notes.
func MICShapeAbout(shape string) string {
	if shape == MICTalk {
		return "talk: the talk's MIC shape, AD = 4 × 64-bit blocks (32 octets), M = ε (the frames on the air still carry the whole-frame MIC)"
	}
	return "frame: the MIC over each whole EAPOL frame as sent (AD = the frame with its MIC field zeroed, M = ε), every call of the handshakes"
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
	// MICShape is Config.MIC; MICTalk holds the talk-shape MIC samples
	// when it is MICTalk.
	MICShape string    `json:"mic_shape"`
	MICTalk  []float64 `json:"mic_talk_ns,omitempty"`
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
	shape, err := ParseMICShape(cfg.MIC)
	if err != nil {
		return nil, err
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
	m := &Measurement{Suite: s.Suite.Name(), Key: s.Key, N: cfg.N, MICShape: shape}
	talkAD := make([]byte, TalkMICOctets)
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
		if shape == MICTalk { // under this handshake's KCK, after it
			ptk, err := a.PTK()
			if err != nil {
				return nil, err
			}
			for range t.mic {
				start := time.Now()
				_, err := s.Suite.MIC(ptk.KCK, talkAD)
				m.MICTalk = append(m.MICTalk, float64(time.Since(start)))
				if err != nil {
					return nil, err
				}
			}
		}
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

// Row is one line of the talk's table: a suite on a link, with T_KDF and
// T_MIC measured here (Source "measured"), given on the command line
// ("given"), or from a microcontroller's measurement file (its platform).
type Row struct {
	Suite  string `json:"suite"`
	Key    string `json:"key"`
	Link   string `json:"link"`
	Source string `json:"source"`
	N      int    `json:"n"` // 0 unless measured here
	// KDF, MIC and Handshake summarise the samples (ns); zero unless
	// measured here. MIC is of the shape MICShape.
	KDF       stats.Summary `json:"t_kdf"`
	MIC       stats.Summary `json:"t_mic"`
	Handshake stats.Summary `json:"handshake_cpu"`
	MICShape  string        `json:"mic_shape"`
	// TKDF and TMIC are the times of one KDF and one MIC that entered the
	// model: the medians, the given times, or cycles / clock.
	TKDF   time.Duration `json:"t_kdf_model_ns"`
	TMIC   time.Duration `json:"t_mic_model_ns"`
	Frames [4]int        `json:"frames"`
	// MCU is the microcontroller's figures for this cipher, ClockHz its
	// clock (platform rows only).
	MCU     *mcu.CipherResult `json:"mcu,omitempty"`
	ClockHz float64           `json:"clock_hz,omitempty"`
	lwc.Breakdown
}

// Sources of a row's T_KDF and T_MIC other than a platform's name.
const (
	SourceMeasured = "measured"
	SourceGiven    = "given"
)

// Evaluate puts a measurement on a link: the medians of T_KDF and T_MIC
// (of the measurement's MIC shape) into the model.
func Evaluate(m *Measurement, model lwc.Model) (Row, error) {
	shape, err := ParseMICShape(m.MICShape)
	if err != nil {
		return Row{}, err
	}
	r := Row{Suite: m.Suite, Key: m.Key, Link: model.Label(), Source: SourceMeasured, N: m.N, Frames: m.Frames, MICShape: shape}
	mic := m.MIC
	if shape == MICTalk {
		mic = m.MICTalk
	}
	for _, x := range []struct {
		dst *stats.Summary
		xs  []float64
	}{{&r.KDF, m.KDF}, {&r.MIC, mic}, {&r.Handshake, m.Handshake}} {
		if *x.dst, err = stats.Summarize(slices.Clone(x.xs)); err != nil {
			return r, fmt.Errorf("%s: %w", m.Suite, err)
		}
	}
	return r.model(model, time.Duration(r.KDF.Median), time.Duration(r.MIC.Median))
}

// Given is the row of a suite whose T_KDF and T_MIC (of MIC shape shape)
// were measured elsewhere, on a link; frames are the suite's EAPOL frame
// lengths ([Frames]). source is SourceGiven or a platform's name.
func Given(s Suite, frames [4]int, kdf, mic time.Duration, shape, source string, model lwc.Model) (Row, error) {
	shape, err := ParseMICShape(shape)
	if err != nil {
		return Row{}, err
	}
	r := Row{Suite: s.Suite.Name(), Key: s.Key, Link: model.Label(), Source: source, Frames: frames, MICShape: shape}
	return r.model(model, kdf, mic)
}

// model evaluates T_auth for r with one KDF and one MIC taking kdf and mic.
func (r Row) model(model lwc.Model, kdf, mic time.Duration) (Row, error) {
	var err error
	r.TKDF, r.TMIC = kdf, mic
	if r.Breakdown, err = model.Auth(r.Frames[:], kdf, mic); err != nil {
		return r, fmt.Errorf("%s on %s: %w", r.Suite, r.Link, err)
	}
	return r, nil
}

// Frames returns the lengths of the four EAPOL frames a handshake with s
// sends (one handshake under a random PMK; the lengths do not depend on
// the keys).
func Frames(s Suite) ([4]int, error) {
	m, err := Measure(s, Config{N: 1})
	if err != nil {
		return [4]int{}, err
	}
	return m.Frames, nil
}

// Assumptions are the model's, printed with every table: the MIC shape
// and, for each model, its framing.
func Assumptions(models []lwc.Model, shape string) []string {
	out := []string{
		"T_auth = T_4way_tx + 2·T_KDF + 3·T_MIC (the talk's model)",
		"T_MIC shape " + MICShapeAbout(shape),
	}
	presets := map[string]string{}
	for _, p := range lwc.Presets() {
		presets[p.Name] = p.About
	}
	seen := map[lwc.Model]bool{}
	for _, m := range models {
		if seen[m] {
			continue
		}
		seen[m] = true
		line := fmt.Sprintf("T_4way_tx on %s: the four EAPOL frames as sent, each plus %d octets of framing and %v per frame, at %s",
			m.Label(), m.FrameOverhead, m.PerFrame, lwc.FormatRate(m.LinkBps))
		if about, ok := presets[m.Name]; ok {
			line += " (" + about + ")"
		}
		out = append(out, line)
	}
	return append(out, "no contention for the medium, no retransmission, no other processing")
}
