package lwc

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{
		"16.82kbps": 16820, "54Mbps": 54e6, "1.3Gbps": 1.3e9, "250000bps": 250000,
		"250kbit/s": 250000, "11 Mbps": 11e6, " 2Kbps ": 2000, "1bps": MinLinkBps, "1000Gbps": MaxLinkBps,
		"1e3Gbps": MaxLinkBps, "0.001kbps": 1, ".5kbps": 500, "5.kbps": 5000, "1E-3Mbps": 1000,
		"1.001Mbps": 1001000, // 1.001e6 exactly, where 1.001 × 1e6 rounds to 1000999.9999999999
	} {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"54":                        "rate 54 has no unit (bps, kbps, Mbps, Gbps)",
		"2M":                        `unknown unit "M"`,
		"54MBps":                    `unknown unit "MBps"`, // bytes, not bits
		"54mbps":                    `unknown unit "mbps"`,
		"1Tbps":                     `unknown unit "Tbps"`,
		"":                          "not a positive decimal number",
		"fast":                      "not a positive decimal number",
		"-1Mbps":                    "not a positive decimal number",
		"+1Mbps":                    "not a positive decimal number",
		"NaN":                       "not a positive decimal number",
		"NaNbps":                    "not a positive decimal number",
		"Inf":                       "not a positive decimal number",
		"+Inf":                      "not a positive decimal number",
		"Infbps":                    "not a positive decimal number",
		"+Infbps":                   "not a positive decimal number",
		"0x10bps":                   `unknown unit "x10bps"`,
		"1_000bps":                  `unknown unit "_000bps"`,
		"1e3e3bps":                  "not a positive decimal number",
		"0kbps":                     "out of range (1 bps to 1 Tbps)",
		"0.5bps":                    "out of range",
		"1e-300bps":                 "out of range",
		"1e300Gbps":                 "out of range",
		"1e400bps":                  "out of range",
		"1001Gbps":                  "out of range",
		"1e99999999999999999999bps": "out of range",
	} {
		_, err := ParseRate(in)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseRate(%q) = %v, want ErrInput with %q", in, err, msg)
		}
	}
	for bps, want := range map[float64]string{
		16820: "16.82kbps", 54e6: "54Mbps", 1e9: "1Gbps", 1: "1bps", 999.5: "999.5bps", 1000: "1kbps",
		1.25e12: "1250Gbps", 300000: "300kbps", 1e6 + 0.5: "1.0000005Mbps",
	} {
		if s := FormatRate(bps); s != want {
			t.Errorf("FormatRate(%v) = %s, want %s", bps, s, want)
		}
	}
	for _, bad := range []float64{math.Inf(1), math.Inf(-1), math.NaN(), -5} { // no panic
		if s := FormatRate(bad); !strings.HasSuffix(s, "bps") {
			t.Errorf("FormatRate(%v) = %s", bad, s)
		}
	}
}

// FuzzParseRate: no input panics; every error wraps ErrInput; an accepted
// rate is finite, within the bounds, and survives FormatRate unchanged.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"16.82kbps", "54Mbps", "1.3Gbps", "250kbit/s", "54", "NaN", "+Inf",
		"1e-300bps", "1e300Gbps", "1.001Mbps", "999.9999999999999Gbps", ".5 Kbps"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("ParseRate(%q): untyped error %v", s, err)
			}
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < MinLinkBps || v > MaxLinkBps {
			t.Fatalf("ParseRate(%q) = %v, outside [%v, %v]", s, v, MinLinkBps, MaxLinkBps)
		}
		if err := (Model{LinkBps: v}).Validate(); err != nil {
			t.Fatalf("ParseRate(%q) = %v, which the model refuses: %v", s, v, err)
		}
		if back, err := ParseRate(FormatRate(v)); err != nil || back != v {
			t.Fatalf("ParseRate(%q) = %v; FormatRate gives %q, which reads back as %v, %v", s, v, FormatRate(v), back, err)
		}
	})
}

func TestModel(t *testing.T) {
	// Four frames of 121, 121, 155 and 99 octets plus 36 octets of framing
	// each: 8 × (496 + 144) = 5120 bits. At 54 Mbit/s that is
	// 5120 / 54e6 s = 94.815 µs; at 16.82 kbit/s, 304.399524 ms.
	frames := []int{121, 121, 155, 99}
	m := Model{LinkBps: 54e6, FrameOverhead: DefaultFrameOverhead}
	b, err := m.Auth(frames, 10*time.Microsecond, 2*time.Microsecond)
	if err != nil || b.TxBits != 5120 || b.Tx != 94815*time.Nanosecond || b.KDF != 20*time.Microsecond ||
		b.MIC != 6*time.Microsecond || b.Auth != b.Tx+26*time.Microsecond {
		t.Errorf("54 Mbps: %+v, %v", b, err)
	}
	m.LinkBps = 16820
	if tx, _, err := m.Tx(frames); err != nil || tx != 304399524*time.Nanosecond {
		t.Errorf("16.82 kbps: Tx = %v, %v", tx, err)
	}
	m.PerFrame = time.Millisecond
	if tx, _, err := m.Tx(frames); err != nil || tx != 308399524*time.Nanosecond {
		t.Errorf("per-frame time: Tx = %v, %v", tx, err)
	}
}

// TestModelBounds: parameters outside the bounds are refused, and at the
// far corner of the bounds (1 bit/s, the most framing, the longest frames,
// an hour per frame) the arithmetic is still exact; results that do not fit
// a Duration are errors.
func TestModelBounds(t *testing.T) {
	ok := Model{LinkBps: 54e6, FrameOverhead: DefaultFrameOverhead}
	for _, m := range []Model{
		{}, {LinkBps: 0.5}, {LinkBps: 1.000001e12}, {LinkBps: math.NaN()}, {LinkBps: math.Inf(1)}, {LinkBps: -1},
		{LinkBps: 1, FrameOverhead: -1}, {LinkBps: 1, FrameOverhead: MaxFrameOverhead + 1},
		{LinkBps: 1, FrameOverhead: 9000000000000000000}, {LinkBps: 1, PerFrame: -1},
		{LinkBps: 1, PerFrame: MaxPerFrame + 1}, {LinkBps: 1, PerFrame: 2562047 * time.Hour},
	} {
		if err := m.Validate(); !errors.Is(err, ErrInput) {
			t.Errorf("Validate(%+v) = %v, want ErrInput", m, err)
		}
		if _, err := m.Auth([]int{99}, 0, 0); !errors.Is(err, ErrInput) {
			t.Errorf("Auth with %+v = %v, want ErrInput", m, err)
		}
	}
	for _, frames := range [][]int{{-1}, {MaxFrameOctets + 1}, {99, math.MaxInt}} {
		if _, _, err := ok.Tx(frames); !errors.Is(err, ErrInput) {
			t.Errorf("Tx(%v) = %v, want ErrInput", frames, err)
		}
	}
	for _, d := range [][2]time.Duration{{-1, 0}, {0, -1}, {math.MaxInt64 / 2, 0}, {0, math.MaxInt64 / 3}, {math.MaxInt64 / 4, math.MaxInt64 / 6}} {
		if _, err := ok.Auth([]int{99}, d[0], d[1]); !errors.Is(err, ErrInput) {
			t.Errorf("Auth(kdf %d, mic %d) = %v, want ErrInput", d[0], d[1], err)
		}
	}
	// 4 × 8 × (65539 + 65535) bits at 1 bit/s, plus 4 hours.
	worst := Model{LinkBps: MinLinkBps, FrameOverhead: MaxFrameOverhead, PerFrame: MaxPerFrame}
	frames := []int{MaxFrameOctets, MaxFrameOctets, MaxFrameOctets, MaxFrameOctets}
	b, err := worst.Auth(frames, time.Hour, time.Hour)
	const bits = 4 * 8 * (MaxFrameOctets + MaxFrameOverhead)
	if err != nil || b.TxBits != bits || b.Tx != bits*time.Second+4*time.Hour || b.Auth != b.Tx+5*time.Hour {
		t.Errorf("worst case: %+v, %v", b, err)
	}
	// Enough frames at the worst case overflow 2⁶³ ns instead of wrapping.
	many := make([]int, 1<<18)
	for i := range many {
		many[i] = MaxFrameOctets
	}
	if _, _, err := worst.Tx(many); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("Tx of %d longest frames at 1 bit/s = %v, want an overflow error", len(many), err)
	}
}

// TestPresetCalibration: the SDR preset reproduces the talk's T_4way_tx
// for the calibration frames within rounding (the per-frame time is rounded
// down to the nanosecond), lies within the talk's measured 690–730 ms, and
// the talk's T_auth for SPIX on the ATmega128 (956.4 ms from T_KDF 44.08 ms
// and T_MIC 56.08 ms) follows. "-overhead 249" gave 699.17 ms.
func TestPresetCalibration(t *testing.T) {
	m, preset, err := ParseLink(PresetSDR)
	if err != nil || !preset || m.Name != PresetSDR || m.LinkBps != TalkLinkBps || m.FrameOverhead != DefaultFrameOverhead || m.PerFrame != SDRPerFrame {
		t.Fatalf("ParseLink(%s) = %+v, %v, %v", PresetSDR, m, preset, err)
	}
	tx, bits, err := m.Tx(CalibrationFrames[:])
	if err != nil || bits != 4944 {
		t.Fatalf("Tx = %v, %d bits, %v", tx, bits, err)
	}
	if d := TalkTx - tx; d < 0 || d >= 4*time.Nanosecond || tx < TalkTxMin || tx > TalkTxMax {
		t.Errorf("preset Tx = %v, want the talk's %v within 4 ns (one ns of rounding per frame)", tx, TalkTx)
	}
	// The per-frame time is what is left of 700 ms after the bits, over four frames.
	bitsTime := time.Duration(math.Round(float64(bits) / TalkLinkBps * 1e9))
	if want := (TalkTx - bitsTime) / 4; SDRPerFrame != want {
		t.Errorf("SDRPerFrame = %v, calibration gives %v", SDRPerFrame, want)
	}
	b, err := m.Auth(CalibrationFrames[:], 44080*time.Microsecond, 56080*time.Microsecond)
	if err != nil || b.Auth != b.Tx+88160*time.Microsecond+168240*time.Microsecond ||
		math.Abs(float64(b.Auth-956400*time.Microsecond)) > 4 {
		t.Errorf("talk's SPIX T_auth: %+v, %v; want 956.4 ms", b, err)
	}
	old := Model{LinkBps: TalkLinkBps, FrameOverhead: 249}
	if tx, _, err := old.Tx(CalibrationFrames[:]); err != nil || tx.Round(10*time.Microsecond) != 699170*time.Microsecond {
		t.Errorf("-overhead 249: Tx = %v, %v; want 699.17 ms", tx, err)
	}
	if m.Label() != PresetSDR || (Model{LinkBps: 54e6}).Label() != "54Mbps" {
		t.Errorf("labels %q, %q", m.Label(), Model{LinkBps: 54e6}.Label())
	}
}

func TestParseLink(t *testing.T) {
	if m, preset, err := ParseLink("54Mbps"); err != nil || preset || m.LinkBps != 54e6 || m.FrameOverhead != 0 || m.Name != "" {
		t.Errorf("ParseLink(54Mbps) = %+v, %v, %v", m, preset, err)
	}
	for in, msg := range map[string]string{
		"sdr-16.82K": "or a link preset: sdr-16.82k",
		"sdr":        "or a link preset",
		"54":         "has no unit",
		"1e300Gbps":  "out of range",
	} {
		if _, _, err := ParseLink(in); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseLink(%q) = %v, want ErrInput with %q", in, err, msg)
		}
	}
	for _, p := range Presets() {
		if err := p.Model.Validate(); err != nil || p.Model.Name != p.Name || p.About == "" {
			t.Errorf("preset %s: %+v, %v", p.Name, p.Model, err)
		}
	}
}
