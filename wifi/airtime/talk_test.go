package airtime

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi/lwc"
)

// TestMeasureTalkMIC: with the talk's MIC shape, Measure also times the
// 4-block MIC (as many calls as the handshakes' MICs), Evaluate puts its
// median into the model and names the shape, and Results names it apart.
func TestMeasureTalkMIC(t *testing.T) {
	s, _ := Lookup("spix")
	m, err := Measure(s, Config{N: 3, MIC: MICTalk})
	if err != nil {
		t.Fatal(err)
	}
	if m.MICShape != MICTalk || len(m.MICTalk) != len(m.MIC) || len(m.MIC) != 18 {
		t.Fatalf("shape %q: %d talk, %d frame MIC samples", m.MICShape, len(m.MICTalk), len(m.MIC))
	}
	row, err := Evaluate(m, lwc.Model{LinkBps: 1e6, FrameOverhead: lwc.DefaultFrameOverhead})
	if err != nil {
		t.Fatal(err)
	}
	if row.MICShape != MICTalk || row.Source != SourceMeasured || row.TMIC != time.Duration(row.MIC.Median) || row.MIC.N != 18 ||
		row.Auth != row.Tx+2*row.TKDF+3*row.TMIC {
		t.Errorf("row %+v", row)
	}
	r := Results([]*Measurement{m}, "")
	var names []string
	for _, si := range r.Schemes {
		names = append(names, si.Name)
	}
	if strings.Join(names, ",") != "spix KDF,spix MIC,spix MIC-talk,spix handshake" {
		t.Errorf("results names %v", names)
	}
	if _, err := Measure(s, Config{N: 2, MIC: "4blocks"}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("MIC shape 4blocks: %v", err)
	}
	m.MICShape = "x"
	if _, err := Evaluate(m, lwc.Model{LinkBps: 1e6}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("Evaluate with shape x: %v", err)
	}
}

// TestGiven: times measured elsewhere enter the model exactly:
// T_auth = T_4way_tx + 2·T_KDF + 3·T_MIC, to the nanosecond.
func TestGiven(t *testing.T) {
	s, _ := Lookup("spix")
	frames, err := Frames(s)
	if err != nil || frames != lwc.CalibrationFrames {
		t.Fatalf("Frames = %v, %v; want the calibration frames %v", frames, err, lwc.CalibrationFrames)
	}
	sdr, _, _ := lwc.ParseLink(lwc.PresetSDR)
	for _, c := range []struct{ kdf, mic time.Duration }{
		{44080 * time.Microsecond, 56080 * time.Microsecond}, {1, 1}, {time.Hour, time.Hour}, {3 * time.Millisecond, 7 * time.Nanosecond},
	} {
		r, err := Given(s, frames, c.kdf, c.mic, MICTalk, SourceGiven, sdr)
		if err != nil {
			t.Fatal(err)
		}
		tx, _, _ := sdr.Tx(frames[:])
		if r.Source != SourceGiven || r.Link != lwc.PresetSDR || r.TKDF != c.kdf || r.TMIC != c.mic || r.Tx != tx ||
			r.Auth != tx+2*c.kdf+3*c.mic || r.KDF.N != 0 {
			t.Errorf("Given(%v, %v) = %+v", c.kdf, c.mic, r)
		}
	}
	if _, err := Given(s, frames, -1, 1, MICTalk, SourceGiven, sdr); !errors.Is(err, lwc.ErrInput) {
		t.Errorf("negative T_KDF: %v", err)
	}
	if _, err := Given(s, frames, 1<<62, 1, MICTalk, SourceGiven, sdr); !errors.Is(err, lwc.ErrInput) {
		t.Errorf("overflow: %v", err)
	}
	if _, err := Given(s, frames, 1, 1, "x", SourceGiven, sdr); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("shape x: %v", err)
	}
}

func TestAssumptions(t *testing.T) {
	sdr, _, _ := lwc.ParseLink(lwc.PresetSDR)
	a := strings.Join(Assumptions([]lwc.Model{sdr, {LinkBps: 54e6, FrameOverhead: 36}, sdr}, MICTalk), "\n")
	for _, want := range []string{"2·T_KDF + 3·T_MIC", "AD = 4 × 64-bit blocks", "on sdr-16.82k", "101.516052ms per frame",
		"talk's 700 ms", "on 54Mbps", "no retransmission"} {
		if !strings.Contains(a, want) {
			t.Errorf("assumptions lack %q:\n%s", want, a)
		}
	}
	if strings.Count(a, "on sdr-16.82k") != 1 {
		t.Errorf("a model repeated:\n%s", a)
	}
}

// TestMeasureProtect: every cipher's data-protection ops are timed (the
// hash for ace only) and the protected frame's airtime is the model's.
func TestMeasureProtect(t *testing.T) {
	model := lwc.Model{LinkBps: 1e6, FrameOverhead: lwc.DefaultFrameOverhead}
	for _, c := range lwc.Ciphers() {
		r, err := MeasureProtect(c, 3, model)
		if err != nil {
			t.Fatal(err)
		}
		wantOps := 3
		if c.Name == "ace" {
			wantOps = 4
		}
		if len(r.Time) != wantOps || r.Summary[OpAE16].N != 3 || r.Batch[OpPerm] < 1 || r.Time[OpPerm] <= 0 {
			t.Errorf("%s: %+v", c.Name, r)
		}
		if r.FrameOctets != 160 || r.Tx != time.Duration(8*(160+36))*time.Microsecond {
			t.Errorf("%s: frame %d octets, Tx %v", c.Name, r.FrameOctets, r.Tx)
		}
	}
	if _, err := MeasureProtect(lwc.Ciphers()[0], 1, model); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("n = 1: %v", err)
	}
	if _, err := protectOp(lwc.Ciphers()[0], "prf"); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("op prf: %v", err)
	}
}
