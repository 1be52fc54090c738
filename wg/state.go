package wg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kexlab/kexlab/internal/fileio"
)

// Mode is a PSK schedule.
type Mode uint8

const (
	// Timestamp (v1): the PSK of the current UTC hour.
	Timestamp Mode = iota + 1
	// HashRatchet (v2.1): PSK_0 from the hardware, then HMAC steps.
	HashRatchet
	// HardwareRatchet (v2.2): every step through the hardware.
	HardwareRatchet
	// Fresh (v3): every step through the hardware with fresh ML-KEM material.
	Fresh
)

var modeNames = map[Mode]string{
	Timestamp:       "timestamp",
	HashRatchet:     "hash-ratchet",
	HardwareRatchet: "hardware-ratchet",
	Fresh:           "fresh",
}

func (m Mode) String() string {
	if s, ok := modeNames[m]; ok {
		return s
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode parses a mode's String form.
func ParseMode(s string) (Mode, error) {
	for m, n := range modeNames {
		if n == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown mode %q", ErrInvalidState, s)
}

// StateVersion is the version of the state file format.
const StateVersion = 1

// DefaultMaxFailures is the number of consecutive failed handshakes after
// which both sides fall back to the timestamp PSK.
const DefaultMaxFailures = 3

// State is a rotator's position for one peer: enough to compute the next
// PSK with the hardware, never a PSK. It is what the daemon persists.
type State struct {
	Version int
	Mode    Mode
	// Epoch numbers the chain; Index counts steps within it.
	Epoch, Index uint64
	// LastHash is Hash of the PSK at Index (zero before the chain starts).
	LastHash [32]byte
	// Failures counts consecutive failed handshakes.
	Failures int
	// MaxFailures is the fallback threshold (0 means DefaultMaxFailures).
	MaxFailures int
	// FallenBack is set while the peers use the timestamp PSK after too
	// many failures, until the daemon restarts the chain (StartChain).
	FallenBack bool
}

// NewState returns the state of a chain not yet started (StartChain starts
// it; Timestamp needs no chain).
func NewState(m Mode) State { return State{Version: StateVersion, Mode: m} }

func (s *State) check() error {
	if s.Version != StateVersion {
		return fmt.Errorf("%w: version %d", ErrInvalidState, s.Version)
	}
	if _, ok := modeNames[s.Mode]; !ok {
		return fmt.Errorf("%w: mode %d", ErrInvalidState, s.Mode)
	}
	if s.Failures < 0 || s.MaxFailures < 0 || s.MaxFailures > 1000 {
		return fmt.Errorf("%w: failure counts", ErrInvalidState)
	}
	return nil
}

func (s *State) advance(psk *PSK) {
	s.Index++
	s.LastHash = psk.Hash()
	s.Failures = 0
}

// Failed records a failed handshake and reports whether the peers must now
// use the timestamp PSK: after MaxFailures consecutive failures (the other
// side counts the same failed handshakes, so both fall back together; a
// successful handshake with the fallback PSK then restarts the chain).
func (s *State) Failed() (fallback bool) {
	if s.Failures < 1<<30 {
		s.Failures++
	}
	max := s.MaxFailures
	if max == 0 {
		max = DefaultMaxFailures
	}
	if s.Failures >= max {
		s.FallenBack = true
	}
	return s.FallenBack
}

// stateJSON is the file format. last_psk_hash is lowercase hex; uint64
// fields are JSON numbers (exact up to 2^53 in other JSON readers; Go
// reads all 64 bits).
type stateJSON struct {
	Version     int    `json:"version"`
	Mode        string `json:"mode"`
	Epoch       uint64 `json:"epoch"`
	Index       uint64 `json:"index"`
	LastHash    string `json:"last_psk_hash"`
	Failures    int    `json:"failures"`
	MaxFailures int    `json:"max_failures,omitempty"`
	FallenBack  bool   `json:"fallen_back,omitempty"`
}

// MarshalJSON encodes s as
//
//	{"version":1,"mode":"hardware-ratchet","epoch":E,"index":I,
//	 "last_psk_hash":"<64 hex digits>","failures":F}
func (s State) MarshalJSON() ([]byte, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return json.Marshal(stateJSON{
		Version: s.Version, Mode: s.Mode.String(), Epoch: s.Epoch, Index: s.Index,
		LastHash: hex.EncodeToString(s.LastHash[:]), Failures: s.Failures,
		MaxFailures: s.MaxFailures, FallenBack: s.FallenBack,
	})
}

// maxStateFile bounds the state file.
const maxStateFile = 4096

// ParseState decodes a state file strictly: unknown fields, a version
// other than StateVersion, an unknown mode, a malformed hash or trailing
// data are errors (ErrInvalidState).
func ParseState(b []byte) (State, error) {
	if len(b) > maxStateFile {
		return State{}, fmt.Errorf("%w: state file too large", ErrInvalidState)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var j stateJSON
	if err := d.Decode(&j); err != nil {
		return State{}, fmt.Errorf("%w: %v", ErrInvalidState, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return State{}, fmt.Errorf("%w: trailing data", ErrInvalidState)
	}
	m, err := ParseMode(j.Mode)
	if err != nil {
		return State{}, err
	}
	s := State{Version: j.Version, Mode: m, Epoch: j.Epoch, Index: j.Index,
		Failures: j.Failures, MaxFailures: j.MaxFailures, FallenBack: j.FallenBack}
	if len(j.LastHash) != 64 || hex.EncodeToString(mustHex(j.LastHash)) != j.LastHash {
		return State{}, fmt.Errorf("%w: last_psk_hash must be 64 lowercase hex digits", ErrInvalidState)
	}
	copy(s.LastHash[:], mustHex(j.LastHash))
	if err := s.check(); err != nil {
		return State{}, err
	}
	return s, nil
}

// mustHex decodes s, or returns nil.
func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// UnmarshalJSON implements json.Unmarshaler with ParseState.
func (s *State) UnmarshalJSON(b []byte) error {
	st, err := ParseState(b)
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// Save writes s to path atomically: a temporary file in the same directory
// (mode 0600) is written and fsynced, renamed over path, and the directory
// is fsynced, so after a crash path holds either the old or the new state.
func (s State) Save(path string) (err error) {
	b, err := s.MarshalJSON()
	if err != nil {
		return err
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(b); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// LoadState reads and parses a state file written by Save. A missing file
// is an error matching fs.ErrNotExist; one that is not a regular file or
// is over the 4 KiB limit is ErrInvalidState (fileio.ReadFile).
func LoadState(path string) (State, error) {
	b, err := fileio.ReadFile(path, maxStateFile)
	if errors.Is(err, fileio.ErrTooLarge) || errors.Is(err, fileio.ErrNotRegular) {
		return State{}, fmt.Errorf("%w: %w", ErrInvalidState, err)
	}
	if err != nil {
		return State{}, err
	}
	return ParseState(b)
}
