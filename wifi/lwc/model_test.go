package lwc

import (
	"errors"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{
		"16.82kbps": 16820, "54Mbps": 54e6, "1.3Gbps": 1.3e9, "250000bps": 250000,
		"250kbit/s": 250000, "11 Mbps": 11e6, "2M": 2e6,
	} {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "fast", "-1Mbps", "0kbps", "NaNbps", "1e400bps"} {
		if _, err := ParseRate(in); !errors.Is(err, ErrInput) {
			t.Errorf("ParseRate(%q) = %v, want ErrInput", in, err)
		}
	}
	if s := FormatRate(16820); s != "16.82kbps" {
		t.Errorf("FormatRate = %s", s)
	}
}

func TestModel(t *testing.T) {
	// Four frames of 121, 121, 155 and 99 octets plus 36 octets of framing
	// each: 8 × (496 + 144) = 5120 bits. At 54 Mbit/s that is
	// 5120 / 54e6 s = 94.815 µs; at 16.82 kbit/s, 304.399524 ms.
	frames := []int{121, 121, 155, 99}
	m := Model{LinkBps: 54e6, FrameOverhead: DefaultFrameOverhead}
	b := m.Auth(frames, 10*time.Microsecond, 2*time.Microsecond)
	if b.TxBits != 5120 || b.Tx != 94815*time.Nanosecond || b.KDF != 20*time.Microsecond ||
		b.MIC != 6*time.Microsecond || b.Auth != b.Tx+26*time.Microsecond {
		t.Errorf("54 Mbps: %+v", b)
	}
	m.LinkBps = 16820
	if tx, _ := m.Tx(frames); tx != 304399524*time.Nanosecond {
		t.Errorf("16.82 kbps: Tx = %v", tx)
	}
	m.PerFrame = time.Millisecond
	if tx, _ := m.Tx(frames); tx != 308399524*time.Nanosecond {
		t.Errorf("per-frame time: Tx = %v", tx)
	}
}
