package airtime

import (
	"fmt"
	"math"
	"time"

	"github.com/kexlab/kexlab/wifi/lwc"
	"github.com/kexlab/kexlab/wifi/mcu"
)

// The figures of a microcontroller are package wifi/mcu's: a
// [mcu.Measurement] (read with mcu.ReadJSON from out/wifi-mcu/<platform>.json,
// which make wifi-mcu and kexlab wifi mcu write), one [mcu.CipherResult]
// per cipher. Cycle counts are per call; a count of 0 is not measured
// (hash_cycles for a cipher without a hash), and whoever uses a count
// checks that it is there.

// maxMCUTime bounds a time converted from cycles: mcu.DecodeJSON accepts
// any non-negative int64 count at any clock above 0 Hz, which need not fit
// a Duration, and the model adds five of them.
const maxMCUTime = 1000 * time.Hour

// MCUTime converts a cycle count of m to time at m's clock, rounded to
// the nanosecond; a time over 1000 hours (or a clock that is not above 0)
// is an lwc.ErrInput.
func MCUTime(m *mcu.Measurement, cycles int64) (time.Duration, error) {
	ns := float64(cycles) / m.ClockHz * 1e9
	if !(m.ClockHz > 0) || cycles < 0 || math.IsNaN(ns) || ns > float64(maxMCUTime) {
		return 0, fmt.Errorf("%w: %s: %d cycles at %v Hz out of range (0 to %v)", lwc.ErrInput, m.Platform, cycles, m.ClockHz, maxMCUTime)
	}
	return time.Duration(math.Round(ns)), nil
}

// MCUCycles returns c's cycles of one KDF and of one MIC of shape
// (mic_talk_cycles for MICTalk, else mic_frame_cycles), or an
// lwc.ErrInput naming the count that is missing.
func MCUCycles(c mcu.CipherResult, shape string) (kdf, mic int64, err error) {
	mic, name := c.MICFrameCycles, "mic_frame_cycles"
	if shape == MICTalk {
		mic, name = c.MICTalkCycles, "mic_talk_cycles"
	}
	switch {
	case c.KDFCycles <= 0:
		return 0, 0, fmt.Errorf("%w: %s has no kdf_cycles", lwc.ErrInput, c.Cipher)
	case mic <= 0:
		return 0, 0, fmt.Errorf("%w: %s has no %s", lwc.ErrInput, c.Cipher, name)
	}
	return c.KDFCycles, mic, nil
}

// Throughput is c's encryption throughput in bits per second at clock hz
// from its cycles per byte (0 when not measured).
func Throughput(c mcu.CipherResult, hz float64) float64 {
	if c.CyclesPerByte <= 0 {
		return 0
	}
	return 8 * hz / c.CyclesPerByte
}

// Platform evaluates the talk's model for every cipher of the measurement
// m (in lwc.Ciphers order) with T_KDF and T_MIC of shape taken from its
// cycle counts, frames[key] the cipher's EAPOL frame lengths.
func Platform(m *mcu.Measurement, frames map[string][4]int, shape string, model lwc.Model) ([]Row, error) {
	var rows []Row
	for _, c := range lwc.Ciphers() {
		mc, ok := m.Cipher(c.Name)
		if !ok {
			continue
		}
		kc, mcyc, err := MCUCycles(mc, shape)
		if err != nil {
			return nil, err
		}
		kdf, err := MCUTime(m, kc)
		if err != nil {
			return nil, err
		}
		mic, err := MCUTime(m, mcyc)
		if err != nil {
			return nil, err
		}
		s, err := Lookup(c.Name)
		if err != nil {
			return nil, err
		}
		f, ok := frames[c.Name]
		if !ok {
			return nil, fmt.Errorf("%w: no frame lengths for %s", lwc.ErrInput, c.Name)
		}
		row, err := Given(s, f, kdf, mic, shape, m.Platform, model)
		if err != nil {
			return nil, err
		}
		row.MCU, row.ClockHz = &mc, m.ClockHz
		rows = append(rows, row)
	}
	return rows, nil
}
