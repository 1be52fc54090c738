package mcu

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/internal/testvec"
	"github.com/kexlab/kexlab/wifi/lwc"
)

// testLog sends Run's progress to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func vectorDir(t *testing.T) string {
	return filepath.Dir(filepath.Dir(testvec.Path(t, "lwc/ACE.txt")))
}

// runPlatform runs Run, skipping when a toolchain is missing (unless
// KEXLAB_REQUIRE_MCU=1).
func runPlatform(t *testing.T, platform string, short bool) *Measurement {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	m, err := Run(ctx, Config{Platform: platform, Short: short, WorkDir: t.TempDir(), Log: testLog{t}, Vectors: vectorDir(t)})
	skipWithout(t, err)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkMeasurement checks what any run must give: every cipher of
// wifi/lwc in order, all KATs passed, and counts that make sense.
func checkMeasurement(t *testing.T, m *Measurement, short bool) {
	t.Helper()
	cs := lwc.Ciphers()
	if len(m.Ciphers) != len(cs) || m.ClockHz != 16e6 {
		t.Fatalf("%d ciphers at %v Hz", len(m.Ciphers), m.ClockHz)
	}
	for i, c := range m.Ciphers {
		if c.Cipher != cs[i].Name {
			t.Errorf("cipher %d is %q, want %q", i, c.Cipher, cs[i].Name)
		}
		want := map[bool]int{false: 1089, true: 100}[short]
		if c.Cipher == "ace" {
			want += map[bool]int{false: 1025, true: 16}[short]
		}
		if c.KATPassed != want || c.KATTotal != want {
			t.Errorf("%s: %d/%d KATs, want %d", c.Cipher, c.KATPassed, c.KATTotal, want)
		}
		if c.FlashBytes < 500 || c.StackBytes <= 0 || c.SRAMBytes < c.StackBytes {
			t.Errorf("%s: flash %d, SRAM %d, stack %d", c.Cipher, c.FlashBytes, c.SRAMBytes, c.StackBytes)
		}
		// the initialisation runs at least one permutation; the frame MIC
		// absorbs more than the talk's; AD adds work; the KDF encrypts six
		// blocks after the initialisation
		if c.PermCycles <= 0 || c.SetupCycles < c.PermCycles || c.MICFrameCycles <= c.MICTalkCycles ||
			c.AE128AD16Cycles <= c.AE128AD0Cycles || c.KDFCycles <= c.SetupCycles || c.CyclesPerByte <= 0 {
			t.Errorf("%s: implausible counts %+v", c.Cipher, c)
		}
		if (c.Cipher == "ace") != (c.HashCycles > 0) {
			t.Errorf("%s: hash cycles %d", c.Cipher, c.HashCycles)
		}
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if err := WriteJSON(path, m); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadJSON(path); err != nil || back.Ciphers[0].KDFCycles != m.Ciphers[0].KDFCycles {
		t.Fatalf("ReadJSON: %v", err)
	}
}

func logTable(t *testing.T, m *Measurement) {
	var b strings.Builder
	if err := m.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
}

// TestATmega128Short: the KAT subset and every measurement on simavr's
// ATmega128; cycles are exact there, so SPIX's KDF must also be within a
// factor of two of the talk's 44.08 ms.
func TestATmega128Short(t *testing.T) {
	m := runPlatform(t, "atmega128", true)
	checkMeasurement(t, m, true)
	logTable(t, m)
	if !strings.HasPrefix(m.CycleModel, "exact") {
		t.Errorf("cycle model %q", m.CycleModel)
	}
	for _, c := range m.Ciphers {
		if c.Cipher == "spix" {
			if ms := m.ms(c.KDFCycles); ms < 22 || ms > 88 {
				t.Errorf("SPIX KDF %.2f ms, the talk's 44.08 ms", ms)
			}
		}
	}
}

// TestCortexM3Short: the KAT subset and every measurement on QEMU's
// Cortex-M3 with the modelled cycles.
func TestCortexM3Short(t *testing.T) {
	m := runPlatform(t, "cortex-m3", true)
	checkMeasurement(t, m, true)
	logTable(t, m)
	for _, c := range m.Ciphers {
		if !strings.Contains(strings.Join(c.Notes, "\n"), "executed instructions: perm ") {
			t.Errorf("%s: no instruction counts in the notes", c.Cipher)
		}
	}
}

func TestRunPlatforms(t *testing.T) {
	for _, p := range []string{"msp430", "esp32", ""} {
		if _, err := Run(context.Background(), Config{Platform: p}); !errors.Is(err, ErrPlatform) {
			t.Errorf("Run(%q) = %v, want ErrPlatform", p, err)
		}
	}
	if got := Platforms(); len(got) != 2 || got[0] != "atmega128" || got[1] != "cortex-m3" {
		t.Errorf("Platforms() = %v", got)
	}
	if _, err := Run(context.Background(), Config{Platform: "atmega128", Vectors: t.TempDir()}); !errors.Is(err, ErrKAT) {
		t.Errorf("Run without KAT files = %v, want ErrKAT", err)
	}
}
