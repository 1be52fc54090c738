package airtime

import (
	"errors"
	"testing"
	"time"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi/lwc"
)

func TestMeasureEverySuite(t *testing.T) {
	for _, s := range Suites() {
		m, err := Measure(s, Config{N: 4})
		if err != nil {
			t.Fatalf("%s: %v", s.Key, err)
		}
		// Per handshake: one PTK derivation per station, and a MIC
		// computed and checked for messages 2, 3 and 4.
		if len(m.KDF) != 8 || len(m.MIC) != 24 || len(m.Handshake) != 4 {
			t.Errorf("%s: %d KDF, %d MIC, %d handshake samples", s.Key, len(m.KDF), len(m.MIC), len(m.Handshake))
		}
		// Message 1 carries no key data; 2 the RSNE; 3 the RSNE and the
		// wrapped GTK; 4 nothing. EAPOL header 4 + key descriptor 95 + MIC.
		if m.Frames[0] != 99 || m.Frames[3] != 99 || m.Frames[1] <= 99 || m.Frames[2] <= m.Frames[1] {
			t.Errorf("%s: frame lengths %v", s.Key, m.Frames)
		}
		row, err := Evaluate(m, lwc.Model{LinkBps: 54e6, FrameOverhead: lwc.DefaultFrameOverhead})
		if err != nil {
			t.Fatal(err)
		}
		if row.Auth != row.Tx+2*time.Duration(row.KDF.Median)+3*time.Duration(row.MIC.Median) {
			t.Errorf("%s: T_auth %v is not the model's sum", s.Key, row.Auth)
		}
	}
}

// TestEvaluateOutOfRange: a model outside its bounds, or measured times
// whose model sum overflows, give an error rather than a row.
func TestEvaluateOutOfRange(t *testing.T) {
	m := &Measurement{Suite: "x", Key: "x", N: 2, KDF: []float64{1, 3}, MIC: []float64{1, 3}, Handshake: []float64{1, 3},
		Frames: [4]int{99, 121, 155, 99}}
	for _, model := range []lwc.Model{{}, {LinkBps: 1e13}, {LinkBps: 1, FrameOverhead: -1}, {LinkBps: 1, PerFrame: 2 * time.Hour}} {
		if _, err := Evaluate(m, model); !errors.Is(err, lwc.ErrInput) {
			t.Errorf("Evaluate with %+v: %v, want lwc.ErrInput", model, err)
		}
	}
	m.KDF = []float64{1 << 62, 1 << 62}
	if _, err := Evaluate(m, lwc.Model{LinkBps: 54e6}); !errors.Is(err, lwc.ErrInput) {
		t.Errorf("Evaluate with T_KDF of 2^62 ns: %v, want lwc.ErrInput", err)
	}
}

func TestLookup(t *testing.T) {
	if s, err := Lookup("wage"); err != nil || s.Suite.Name() != "LWC-wage/CCMP-128" {
		t.Errorf("Lookup(wage) = %v, %v", s.Key, err)
	}
	if _, err := Lookup("des"); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("Lookup(des) = %v", err)
	}
}

func TestResults(t *testing.T) {
	s, _ := Lookup("ascon")
	m, err := Measure(s, Config{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := Results([]*Measurement{m}, "x")
	if len(r.Schemes) != 3 || len(r.Samples) != 6+18+3 || r.Schemes[1].Name != "ascon MIC" {
		t.Errorf("results: %d schemes, %d samples", len(r.Schemes), len(r.Samples))
	}
}

func TestShape(t *testing.T) {
	for _, s := range Suites() {
		for _, op := range Shapes {
			f, err := Shape(s, op)
			if err != nil {
				t.Fatalf("%s %s: %v", s.Key, op, err)
			}
			if err := f(); err != nil {
				t.Fatalf("%s %s: %v", s.Key, op, err)
			}
		}
	}
	s, _ := Lookup("ace")
	if _, err := Shape(s, "prf"); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("Shape(prf) = %v", err)
	}
}
