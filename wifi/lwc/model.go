package lwc

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Model is the talk's authentication-time model of one 4-way handshake:
//
//	T_auth = T_4way_tx + 2·T_KDF + 3·T_MIC
//
// T_4way_tx is the airtime of the four EAPOL-Key frames at the link rate,
// each frame counted with a fixed number of octets of framing and a fixed
// per-frame time. The model assumes what the talk did: one station pair, no
// contention for the medium, no retransmission, no processing other than
// KDF and MIC, and frames sent back to back.
//
// A model is only evaluated within physical bounds ([Model.Validate]): a
// link rate from [MinLinkBps] to [MaxLinkBps], at most [MaxFrameOverhead]
// octets of framing and at most [MaxPerFrame] per frame. Within them, and
// for frames of at most [MaxFrameOctets], the arithmetic is checked: a
// result that would not fit a time.Duration is an error, never a wrapped
// or infinite number.
type Model struct {
	// Name is the link preset's name ([Presets]); empty for a model built
	// from a rate and the framing flags.
	Name string `json:"name,omitempty"`
	// LinkBps is the link rate in bits per second.
	LinkBps float64
	// FrameOverhead is the octets each EAPOL frame carries on the air
	// besides itself. DefaultFrameOverhead counts an 802.11 data frame's
	// MAC header (24), LLC/SNAP (8) and FCS (4).
	FrameOverhead int
	// PerFrame is a fixed time per frame (PHY preamble, SIFS, ACK, …);
	// zero by default, as in the talk.
	PerFrame time.Duration
}

// DefaultFrameOverhead is MAC header (24) + LLC/SNAP (8) + FCS (4) octets.
const DefaultFrameOverhead = 36

// Bounds of the model's parameters.
const (
	// MinLinkBps and MaxLinkBps bound the link rate: 1 bit/s to 1 Tbit/s
	// (802.11be peaks near 46 Gbit/s; LoRa-class links near 300 bit/s).
	MinLinkBps = 1.0
	MaxLinkBps = 1e12
	// MaxFrameOverhead is the most framing octets per frame: a 16-bit
	// length's worth.
	MaxFrameOverhead = 65535
	// MaxPerFrame is the longest fixed time per frame.
	MaxPerFrame = time.Hour
	// MaxFrameOctets is the longest EAPOL frame: a 4-octet header and a
	// body whose length is a 16-bit field (IEEE Std 802.1X-2020 §11.3).
	MaxFrameOctets = 4 + 65535
)

// Breakdown is the model's result for one handshake.
type Breakdown struct {
	Tx, KDF, MIC, Auth time.Duration
	TxBits             int // bits on the air, framing included
}

// Validate reports whether m is within the model's bounds, with an error
// wrapping ErrInput that names the parameter and its range.
func (m Model) Validate() error {
	if !(m.LinkBps >= MinLinkBps && m.LinkBps <= MaxLinkBps) { // also NaN
		return fmt.Errorf("%w: link rate %v bit/s out of range (1 bps to 1 Tbps)", ErrInput, m.LinkBps)
	}
	if m.FrameOverhead < 0 || m.FrameOverhead > MaxFrameOverhead {
		return fmt.Errorf("%w: frame overhead %d octets out of range (0 to %d octets per frame)", ErrInput, m.FrameOverhead, MaxFrameOverhead)
	}
	if m.PerFrame < 0 || m.PerFrame > MaxPerFrame {
		return fmt.Errorf("%w: per-frame time %v out of range (0 to %v)", ErrInput, m.PerFrame, MaxPerFrame)
	}
	return nil
}

// errOverflow is the error of a result too large for a time.Duration.
func errOverflow(what string) error {
	return fmt.Errorf("%w: %s overflows a time.Duration (about 292 years)", ErrInput, what)
}

// mulDur returns n·d for n, d ≥ 0, or false if it overflows.
func mulDur(n int64, d time.Duration) (time.Duration, bool) {
	if d != 0 && n > math.MaxInt64/int64(d) {
		return 0, false
	}
	return time.Duration(n) * d, true
}

// addDur returns a+b for a, b ≥ 0, or false if it overflows.
func addDur(a, b time.Duration) (time.Duration, bool) {
	if a > math.MaxInt64-b {
		return 0, false
	}
	return a + b, true
}

// Tx is the airtime of frames (EAPOL frame lengths in octets) and the bits
// they put on the air. It fails for a model out of bounds, a frame length
// outside 0 to MaxFrameOctets, or a time that does not fit a Duration.
func (m Model) Tx(frames []int) (time.Duration, int, error) {
	if err := m.Validate(); err != nil {
		return 0, 0, err
	}
	bits := 0
	for i, f := range frames {
		if f < 0 || f > MaxFrameOctets {
			return 0, 0, fmt.Errorf("%w: frame %d of %d octets (want 0 to %d)", ErrInput, i+1, f, MaxFrameOctets)
		}
		b := 8 * (f + m.FrameOverhead) // at most 8·(65539+65535): fits any int
		if bits > math.MaxInt-b {
			return 0, 0, errOverflow("the bit count")
		}
		bits += b
	}
	// bits ≥ 0 and LinkBps ≥ 1, so ns is finite and not negative.
	ns := math.Round(float64(bits) / m.LinkBps * 1e9)
	if ns >= math.MaxInt64 { // float64(MaxInt64) is 2⁶³: ns < 2⁶³ converts exactly
		return 0, 0, errOverflow("T_4way_tx")
	}
	per, ok := mulDur(int64(len(frames)), m.PerFrame)
	if !ok {
		return 0, 0, errOverflow("the per-frame time")
	}
	tx, ok := addDur(time.Duration(ns), per)
	if !ok {
		return 0, 0, errOverflow("T_4way_tx")
	}
	return tx, bits, nil
}

// Auth evaluates T_auth for the four frames of a handshake and measured
// times of one KDF and one MIC (neither negative).
func (m Model) Auth(frames []int, kdf, mic time.Duration) (Breakdown, error) {
	if kdf < 0 || mic < 0 {
		return Breakdown{}, fmt.Errorf("%w: negative T_KDF %v or T_MIC %v", ErrInput, kdf, mic)
	}
	var b Breakdown
	var err error
	if b.Tx, b.TxBits, err = m.Tx(frames); err != nil {
		return Breakdown{}, err
	}
	var ok1, ok2, ok3, ok4 bool
	b.KDF, ok1 = mulDur(2, kdf)
	b.MIC, ok2 = mulDur(3, mic)
	b.Auth, ok3 = addDur(b.Tx, b.KDF)
	b.Auth, ok4 = addDur(b.Auth, b.MIC)
	if !(ok1 && ok2 && ok3 && ok4) {
		return Breakdown{}, errOverflow("T_auth")
	}
	return b, nil
}

// rateUnits are the units ParseRate reads, as powers of ten of bit/s.
var rateUnits = map[string]int{
	"bps": 0, "kbps": 3, "Kbps": 3, "Mbps": 6, "Gbps": 9,
	"bit/s": 0, "kbit/s": 3, "Kbit/s": 3, "Mbit/s": 6, "Gbit/s": 9,
}

// rateNumber is an unsigned decimal number with an optional exponent.
var rateNumber = regexp.MustCompile(`^(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?$`)

// ParseRate parses a link rate such as "16.82kbps", "54Mbps", "1.3Gbps",
// "250000bps" or "250kbit/s" into bits per second. The unit is required
// and case-sensitive (bps, kbps or Kbps, Mbps, Gbps, or the same with
// bit/s), so that neither a bare number nor bytes per second ("MBps") is
// taken for a bit rate; the number is an unsigned decimal, optionally with
// an exponent, so NaN, Inf, signs and hexadecimal are refused. The result
// is the float64 nearest to the decimal value, and lies within MinLinkBps
// to MaxLinkBps; every error wraps ErrInput.
func ParseRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !strings.ContainsRune("0123456789.eE+-", r) })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	m := rateNumber.FindStringSubmatch(num)
	switch shift, known := rateUnits[unit]; {
	case m == nil:
		return 0, fmt.Errorf("%w: rate %q is not a positive decimal number with a unit (e.g. 16.82kbps, 54Mbps)", ErrInput, s)
	case unit == "":
		return 0, fmt.Errorf("%w: rate %s has no unit (bps, kbps, Mbps, Gbps)", ErrInput, s)
	case !known:
		return 0, fmt.Errorf("%w: rate %q has unknown unit %q (bps, kbps, Mbps, Gbps)", ErrInput, s, unit)
	default:
		exp := 0
		if m[2] != "" {
			var err error
			if exp, err = strconv.Atoi(m[2]); err != nil || exp < -1000 || exp > 1000 {
				return 0, errRateRange(s)
			}
		}
		// Shift the decimal exponent rather than multiply, so that the
		// result is the correctly rounded value of the decimal number.
		v, err := strconv.ParseFloat(m[1]+"e"+strconv.Itoa(exp+shift), 64)
		if err != nil || !(v >= MinLinkBps && v <= MaxLinkBps) { // ParseFloat's only error here is ErrRange
			return 0, errRateRange(s)
		}
		return v, nil
	}
}

func errRateRange(s string) error {
	return fmt.Errorf("%w: rate %s out of range (1 bps to 1 Tbps)", ErrInput, s)
}

// FormatRate formats bits per second the way ParseRate reads them;
// ParseRate(FormatRate(v)) == v for every v ParseRate returns.
func FormatRate(bps float64) string {
	unit, shift := "bps", 0
	switch {
	case math.IsInf(bps, 0): // no digits to shift
	case bps >= 1e9:
		unit, shift = "Gbps", 9
	case bps >= 1e6:
		unit, shift = "Mbps", 6
	case bps >= 1e3:
		unit, shift = "kbps", 3
	}
	// The shortest decimal that reads back as bps, with its point moved
	// left by shift digits (the integer part has more than shift digits).
	d := strconv.FormatFloat(bps, 'f', -1, 64)
	whole, frac, _ := strings.Cut(d, ".")
	n := len(whole) - shift
	whole, frac = whole[:n], strings.TrimRight(whole[n:]+frac, "0")
	if frac != "" {
		whole += "." + frac
	}
	return whole + unit
}

// The talk's link and its measured airtime.
//
// The talk ran 802.11a OFDM between two USRPs driven by GNU Radio and
// reports an effective rate of 16.82 kbit/s and a measured airtime of the
// four EAPOL-Key frames of 690 to 730 ms. Its T_auth figures are
// T_4way_tx + 2·T_KDF + 3·T_MIC with T_4way_tx = 700 ms: on the ATmega128,
// SPIX's 956.4 ms = 700 + 2·44.08 + 3·56.08 ms. [TalkTx] is that 700 ms,
// inside the measured range (midpoint 710 ms).
const (
	TalkLinkBps = 16820
	TalkTx      = 700 * time.Millisecond
	TalkTxMin   = 690 * time.Millisecond
	TalkTxMax   = 730 * time.Millisecond
)

// CalibrationFrames are the EAPOL-Key frames (octets) the SDR preset is
// calibrated on: messages 1–4 as kexlab's handshake sends them with a
// 16-octet MIC (every suite here): 99, 121 (with the RSNE), 155 (RSNE and
// wrapped GTK) and 99, 474 octets in all.
var CalibrationFrames = [4]int{99, 121, 155, 99}

// SDRPerFrame is the per-frame time of the sdr-16.82k preset. At 16.82
// kbit/s with 36 octets of 802.11 framing per frame, the four frames are
// 8·(474 + 4·36) = 4944 bits, 293.935791 ms; the rest of the talk's
// 700 ms, 406.064209 ms, is the SDR chain's fixed cost per frame (GNU
// Radio and USRP buffering and turnaround, PHY preamble): 101.516052 ms
// for each of the four frames (rounded down to the nanosecond, so the
// modelled T_4way_tx is 699.999999 ms).
//
// The undocumented "-overhead 249" used before put the same cost into
// framing octets: (700 ms · 16820 bit/s / 8 − 474) / 4 = 249.4 octets per
// frame, 213 of them beyond the 36 of 802.11 framing, i.e. 101.3 ms of the
// SDR chain's per-frame time expressed as link bits; with 249 the four
// frames take 699.17 ms. The preset keeps the framing real and the fixed
// cost a time, so a frame of another length (a protected data frame) gets
// its own airtime plus the same per-frame cost.
const SDRPerFrame = 101516052 * time.Nanosecond

// PresetSDR is the name of the talk's SDR link preset.
const PresetSDR = "sdr-16.82k"

// LinkPreset is a named link model.
type LinkPreset struct {
	Name  string
	Model Model
	About string
}

// Presets returns the link presets: the talk's SDR link, calibrated to its
// measured T_4way_tx (see [SDRPerFrame]).
func Presets() []LinkPreset {
	return []LinkPreset{{
		Name:  PresetSDR,
		Model: Model{Name: PresetSDR, LinkBps: TalkLinkBps, FrameOverhead: DefaultFrameOverhead, PerFrame: SDRPerFrame},
		About: "the talk's USRP/GNU Radio 802.11a link, its per-frame time calibrated so that the four EAPOL frames " +
			"(99+121+155+99 octets) take the talk's 700 ms (measured: 690–730 ms)",
	}}
}

// ParseLink reads a link: a preset's name, whose model it returns with
// preset true, or a rate as ParseRate reads it, returned as a model with
// that rate and no framing (the caller adds its own). Errors wrap ErrInput.
func ParseLink(s string) (m Model, preset bool, err error) {
	t := strings.TrimSpace(s)
	for _, p := range Presets() {
		if t == p.Name {
			return p.Model, true, nil
		}
	}
	bps, err := ParseRate(s)
	if err != nil {
		if t == "" || !strings.ContainsRune("0123456789.", rune(t[0])) { // a name, not a number
			var names []string
			for _, p := range Presets() {
				names = append(names, p.Name)
			}
			return Model{}, false, fmt.Errorf("%w (or a link preset: %s)", err, strings.Join(names, ", "))
		}
		return Model{}, false, err
	}
	return Model{LinkBps: bps}, false, nil
}

// Label is how tables name the model's link: the preset's name, or the
// rate.
func (m Model) Label() string {
	if m.Name != "" {
		return m.Name
	}
	return FormatRate(m.LinkBps)
}
