package mcu

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/kexlab/kexlab/internal/fileio"
)

// ErrJSON is wrapped by the errors of ReadJSON and DecodeJSON.
var ErrJSON = errors.New("mcu: invalid measurement file")

// maxJSON bounds a measurement file (one is some 6 KB).
const maxJSON = 1 << 20

// WriteJSON writes m to path (indented, mode 0644), creating its
// directory; the file is replaced atomically.
func WriteJSON(path string, m *Measurement) error {
	if err := validate(m); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcu-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it 0600; results are not secret
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadJSON reads a file written by WriteJSON: a regular file of at most
// 1 MiB (internal/fileio: a FIFO or a device is refused, not read), then
// DecodeJSON. Errors of opening are os's (errors.Is(err, fs.ErrNotExist)
// works); a bad file's wrap ErrJSON.
func ReadJSON(path string) (*Measurement, error) {
	b, err := fileio.ReadFile(path, maxJSON)
	if errors.Is(err, fileio.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %v", ErrJSON, err)
	}
	if err != nil {
		return nil, err
	}
	return DecodeJSON(bytes.NewReader(b))
}

// Cipher returns the results of the cipher called name (a name of
// wifi/lwc.Ciphers()), and whether m has them.
func (m *Measurement) Cipher(name string) (CipherResult, bool) {
	for _, c := range m.Ciphers {
		if c.Cipher == name {
			return c, true
		}
	}
	return CipherResult{}, false
}

// DecodeJSON decodes one measurement strictly: at most 1 MiB, one JSON
// object with no unknown fields and nothing after it, a known platform,
// each cipher of wifi/lwc at most once, and no negative or non-finite
// number.
func DecodeJSON(r io.Reader) (*Measurement, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxJSON+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxJSON {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrJSON, maxJSON)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m Measurement
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the object", ErrJSON)
	}
	if err := validate(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

func validate(m *Measurement) error {
	if m == nil {
		return fmt.Errorf("%w: no measurement", ErrJSON)
	}
	known := false
	for _, p := range Platforms() {
		known = known || m.Platform == p
	}
	if !known {
		return fmt.Errorf("%w: platform %q", ErrJSON, m.Platform)
	}
	if !(m.ClockHz > 0 && m.ClockHz < 1e10) {
		return fmt.Errorf("%w: clock %v Hz", ErrJSON, m.ClockHz)
	}
	if len(m.Ciphers) > len(cipherOrder) {
		return fmt.Errorf("%w: %d ciphers", ErrJSON, len(m.Ciphers))
	}
	seen := map[string]bool{}
	for _, c := range m.Ciphers {
		if !knownCiphers[c.Cipher] || seen[c.Cipher] {
			return fmt.Errorf("%w: cipher %q unknown or repeated", ErrJSON, c.Cipher)
		}
		seen[c.Cipher] = true
		ints := []int64{int64(c.KATPassed), int64(c.KATTotal), int64(c.FlashBytes), int64(c.SRAMBytes), int64(c.StackBytes),
			c.SetupCycles, c.PermCycles, c.KDFCycles, c.MICTalkCycles, c.MICFrameCycles, c.AE128AD0Cycles, c.AE128AD16Cycles, c.HashCycles}
		for _, v := range ints {
			if v < 0 {
				return fmt.Errorf("%w: %s: a negative count", ErrJSON, c.Cipher)
			}
		}
		if c.KATPassed > c.KATTotal {
			return fmt.Errorf("%w: %s: %d of %d KATs passed", ErrJSON, c.Cipher, c.KATPassed, c.KATTotal)
		}
		if c.CyclesPerByte < 0 || math.IsNaN(c.CyclesPerByte) || math.IsInf(c.CyclesPerByte, 0) {
			return fmt.Errorf("%w: %s: cycles per byte %v", ErrJSON, c.Cipher, c.CyclesPerByte)
		}
		if len(c.Notes) > 64 {
			return fmt.Errorf("%w: %s: %d notes", ErrJSON, c.Cipher, len(c.Notes))
		}
	}
	return nil
}
