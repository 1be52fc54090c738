package lwc

import (
	"fmt"
	"math"
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
type Model struct {
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

// Breakdown is the model's result for one handshake.
type Breakdown struct {
	Tx, KDF, MIC, Auth time.Duration
	TxBits             int // bits on the air, framing included
}

// Tx is the airtime of frames (EAPOL frame lengths in octets).
func (m Model) Tx(frames []int) (time.Duration, int) {
	bits := 0
	for _, f := range frames {
		bits += 8 * (f + m.FrameOverhead)
	}
	if m.LinkBps <= 0 {
		return 0, bits
	}
	sec := float64(bits) / m.LinkBps
	return time.Duration(math.Round(sec*1e9)) + time.Duration(len(frames))*m.PerFrame, bits
}

// Auth evaluates T_auth for the four frames of a handshake and measured
// times of one KDF and one MIC.
func (m Model) Auth(frames []int, kdf, mic time.Duration) Breakdown {
	b := Breakdown{KDF: 2 * kdf, MIC: 3 * mic}
	b.Tx, b.TxBits = m.Tx(frames)
	b.Auth = b.Tx + b.KDF + b.MIC
	return b
}

// ParseRate parses a link rate such as "16.82kbps", "54Mbps", "1.3Gbps",
// "250000bps" or "250kbit/s" into bits per second.
func ParseRate(s string) (float64, error) {
	t := strings.ToLower(strings.ReplaceAll(s, " ", ""))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "/s"), "ps")
	t = strings.TrimSuffix(strings.TrimSuffix(t, "bit"), "b")
	mult := 1.0
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1e3, t[:len(t)-1]
	case strings.HasSuffix(t, "m"):
		mult, t = 1e6, t[:len(t)-1]
	case strings.HasSuffix(t, "g"):
		mult, t = 1e9, t[:len(t)-1]
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%w: link rate %q (want e.g. 16.82kbps, 54Mbps)", ErrInput, s)
	}
	return v * mult, nil
}

// FormatRate formats bits per second the way ParseRate reads them.
func FormatRate(bps float64) string {
	switch {
	case bps >= 1e9:
		return strconv.FormatFloat(bps/1e9, 'f', -1, 64) + "Gbps"
	case bps >= 1e6:
		return strconv.FormatFloat(bps/1e6, 'f', -1, 64) + "Mbps"
	case bps >= 1e3:
		return strconv.FormatFloat(bps/1e3, 'f', -1, 64) + "kbps"
	}
	return strconv.FormatFloat(bps, 'f', -1, 64) + "bps"
}
