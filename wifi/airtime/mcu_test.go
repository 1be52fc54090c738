package airtime

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/wifi/lwc"
	"github.com/kexlab/kexlab/wifi/mcu"
)

// fixture is testdata/mcu-fixture-atmega128.json read with package
// wifi/mcu's reader (the file is in its format exactly): a hand-written
// FIXTURE, not a measurement. Its SPIX kdf_cycles and mic_talk_cycles are
// the talk's 44.08 ms and 56.08 ms at 16 MHz. edit, when given, replaces
// old by new in the file first.
func fixture(t *testing.T, edit ...string) *mcu.Measurement {
	t.Helper()
	b, err := os.ReadFile("testdata/mcu-fixture-atmega128.json")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(edit); i += 2 {
		if !strings.Contains(s, edit[i]) {
			t.Fatalf("fixture lacks %q", edit[i])
		}
		s = strings.Replace(s, edit[i], edit[i+1], 1)
	}
	m, err := mcu.DecodeJSON(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPlatformFixture(t *testing.T) {
	res := fixture(t)
	if res.Platform != "atmega128" || res.ClockHz != 16e6 || len(res.Ciphers) != 3 {
		t.Fatalf("%+v", res)
	}
	spix, ok := res.Cipher("spix")
	if !ok || spix.KDFCycles != 705280 || spix.MICTalkCycles != 897280 || spix.FlashBytes != 3000 || spix.KATPassed != 2 {
		t.Fatalf("spix: %+v", spix)
	}
	if _, ok := res.Cipher("ascon"); ok {
		t.Error("ascon is not in the fixture")
	}
	if d, err := MCUTime(res, spix.KDFCycles); err != nil || d != 44080*time.Microsecond {
		t.Errorf("MCUTime(kdf) = %v, %v", d, err)
	}
	if tp := Throughput(spix, res.ClockHz); tp != 16000 {
		t.Errorf("throughput %v bit/s, want 8 · 16 MHz / 8000 = 16000", tp)
	}
	if tp := Throughput(mcu.CipherResult{}, res.ClockHz); tp != 0 {
		t.Errorf("throughput without cycles per byte: %v", tp)
	}
	// The talk's table from the fixture: T_auth = Tx + 2·T_KDF + 3·T_MIC,
	// and SPIX's is the talk's 956.4 ms on the SDR preset.
	sdr, _, _ := lwc.ParseLink(lwc.PresetSDR)
	frames := map[string][4]int{}
	for _, c := range res.Ciphers {
		frames[c.Cipher] = lwc.CalibrationFrames
	}
	rows, err := Platform(res, frames, MICTalk, sdr)
	if err != nil || len(rows) != 3 {
		t.Fatalf("Platform: %d rows, %v", len(rows), err)
	}
	for _, r := range rows {
		mc, _ := res.Cipher(r.Key)
		kdf, _ := MCUTime(res, mc.KDFCycles)
		mic, _ := MCUTime(res, mc.MICTalkCycles)
		if r.Source != "atmega128" || r.MICShape != MICTalk || r.TKDF != kdf || r.TMIC != mic || r.MCU == nil || r.ClockHz != 16e6 ||
			r.Auth != r.Tx+2*kdf+3*mic || r.MCU.FlashBytes != mc.FlashBytes {
			t.Errorf("%s: %+v", r.Key, r)
		}
		if r.Key == "spix" && (r.Auth-956400*time.Microsecond).Abs() > 4 {
			t.Errorf("spix T_auth %v, want the talk's 956.4 ms", r.Auth)
		}
	}
	if rows, err = Platform(res, frames, MICFrame, sdr); err != nil || rows[1].TMIC != 75*time.Millisecond {
		t.Errorf("frame MIC: %v, %v", rows, err)
	}
	if _, err := Platform(res, map[string][4]int{}, MICTalk, sdr); !errors.Is(err, lwc.ErrInput) {
		t.Errorf("no frames: %v", err)
	}
	prot, err := PlatformProtect(res, sdr)
	if err != nil || len(prot) != 3 || prot[0].Cycles[OpHash] != 1500000 || prot[0].Time[OpHash] != 93750*time.Microsecond ||
		prot[1].Cycles[OpAE16] != 1250000 || prot[1].Time[OpPerm] != 3750*time.Microsecond {
		t.Fatalf("PlatformProtect: %+v, %v", prot, err)
	}
	if _, ok := prot[1].Time[OpHash]; ok {
		t.Error("spix has no hash")
	}
	if tx, _, _ := sdr.Tx([]int{ProtectedFrameOctets}); prot[1].Tx != tx || prot[1].FrameOctets != 160 {
		t.Errorf("protected frame: %d octets, Tx %v", prot[1].FrameOctets, prot[1].Tx)
	}
}

// TestPlatformErrors: figures a table needs but the file lacks, and
// counts whose time does not fit, are an lwc.ErrInput naming them, never
// a wrong or negative time. (The file's format is mcu.DecodeJSON's to
// check: wifi/mcu's TestJSON and FuzzDecodeJSON.)
func TestPlatformErrors(t *testing.T) {
	frames := map[string][4]int{"ace": {}, "spix": {}, "wage": {}}
	model := lwc.Model{LinkBps: 1e6}
	for _, c := range []struct {
		edit  []string
		shape string
		want  string
	}{
		{[]string{`"mic_talk_cycles": 897280`, `"mic_talk_cycles": 0`}, MICTalk, "spix has no mic_talk_cycles"},
		{[]string{`"mic_frame_cycles": 1200000`, `"mic_frame_cycles": 0`}, MICFrame, "spix has no mic_frame_cycles"},
		{[]string{`"kdf_cycles": 900000`, `"kdf_cycles": 0`}, MICTalk, "ace has no kdf_cycles"},
		// mcu.DecodeJSON takes any count at any clock above 0 Hz
		{[]string{`"kdf_cycles": 705280`, `"kdf_cycles": 9223372036854775807`}, MICTalk, "9223372036854775807 cycles at 1.6e+07 Hz out of range"},
		{[]string{`"clock_hz": 16000000`, `"clock_hz": 1e-300`}, MICTalk, "cycles at 1e-300 Hz out of range (0 to 1000h0m0s)"},
	} {
		if _, err := Platform(fixture(t, c.edit...), frames, c.shape, model); !errors.Is(err, lwc.ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: Platform = %v, want lwc.ErrInput with %q", c.edit, err, c.want)
		}
	}
	if _, err := PlatformProtect(fixture(t, `"clock_hz": 16000000`, `"clock_hz": 1e-300`), model); !errors.Is(err, lwc.ErrInput) {
		t.Errorf("PlatformProtect at 1e-300 Hz: %v", err)
	}
	// the largest time that fits, and the conversions' own bounds
	m := &mcu.Measurement{Platform: "atmega128", ClockHz: 1}
	if d, err := MCUTime(m, 3_600_000); err != nil || d != maxMCUTime {
		t.Errorf("MCUTime(1000 h) = %v, %v", d, err)
	}
	for _, c := range []struct {
		clock  float64
		cycles int64
	}{{1, 3_600_001}, {1, -1}, {0, 1}, {-16e6, 1}} {
		m.ClockHz = c.clock
		if d, err := MCUTime(m, c.cycles); !errors.Is(err, lwc.ErrInput) {
			t.Errorf("MCUTime(%d cycles at %v Hz) = %v, %v; want lwc.ErrInput", c.cycles, c.clock, d, err)
		}
	}
}
