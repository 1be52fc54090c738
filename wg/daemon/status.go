package daemon

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/rotator"
)

// Status is one peer's line of `kexlab wg status`: its position from the
// state file and, from the status file the daemon writes beside it
// (<peer hex>.status, rewritten at every logged event), the last
// handshake and event. It holds no PSK (only positions and times).
type Status struct {
	Peer          string    `json:"peer"` // base64 public key
	Interface     string    `json:"interface,omitempty"`
	PID           int       `json:"pid,omitempty"`
	Mode          string    `json:"mode"`
	Epoch         uint64    `json:"epoch"`
	Index         uint64    `json:"index"`
	FallenBack    bool      `json:"fallen_back,omitempty"`
	Failures      int       `json:"failures"`
	LastHandshake time.Time `json:"last_handshake,omitzero"`
	LastEvent     string    `json:"last_event,omitempty"`
	LastEventAt   time.Time `json:"last_event_at,omitzero"`
	Updated       time.Time `json:"updated,omitzero"`
	// Problem says what is wrong with the files, if anything.
	Problem string `json:"problem,omitempty"`
}

// maxStatusFile bounds a status file (a line of text and a few numbers).
const maxStatusFile = 16 << 10

// ErrStatus: a status file does not parse.
var ErrStatus = errors.New("wg daemon: malformed status file")

// ParseStatus decodes a status file strictly (unknown fields, trailing
// data, a peer that is not a base64 WireGuard key are errors, ErrStatus).
func ParseStatus(b []byte) (Status, error) {
	var s Status
	if len(b) > maxStatusFile {
		return s, fmt.Errorf("%w: larger than %s", ErrStatus, fileio.FormatSize(maxStatusFile))
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return Status{}, fmt.Errorf("%w: %v", ErrStatus, err)
	}
	if d.More() {
		return Status{}, fmt.Errorf("%w: data after the JSON object", ErrStatus)
	}
	if _, err := decodeKey(s.Peer); err != nil {
		return Status{}, fmt.Errorf("%w: %v", ErrStatus, err)
	}
	if s.Failures < 0 || s.PID < 0 || len(s.LastEvent) > 4096 {
		return Status{}, fmt.Errorf("%w: out-of-range field", ErrStatus)
	}
	return s, nil
}

// ReadStatus reads every peer's state (<hex>.state) and status file in
// dir. A peer whose files are unreadable is listed with Problem set.
func ReadStatus(dir string) ([]Status, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	peers := make(map[[32]byte]bool)
	for _, e := range ents {
		name := e.Name()
		hexKey, ok := strings.CutSuffix(name, ".state")
		if !ok {
			hexKey, ok = strings.CutSuffix(name, ".status")
		}
		if k, err := hex.DecodeString(hexKey); ok && err == nil && len(k) == 32 && hex.EncodeToString(k) == hexKey {
			peers[[32]byte(k)] = true
		}
	}
	var out []Status
	for pub := range peers {
		out = append(out, readPeerStatus(dir, pub))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Peer < out[j].Peer })
	return out, nil
}

// readPeerStatus reads one peer's status and state files. Without a state
// file (a daemon that has seen no handshake yet) the status file's
// position stands.
func readPeerStatus(dir string, pub [32]byte) Status {
	s := Status{Peer: base64.StdEncoding.EncodeToString(pub[:])}
	b, err := fileio.ReadFile(filepath.Join(dir, fmt.Sprintf("%x.status", pub)), maxStatusFile)
	switch {
	case err == nil:
		if st, perr := ParseStatus(b); perr != nil {
			s.Problem = perr.Error()
		} else if st.Peer != s.Peer {
			s.Problem = fmt.Sprintf("%v: written for peer %s", ErrStatus, st.Peer)
		} else {
			s = st
		}
	case !errors.Is(err, fs.ErrNotExist):
		s.Problem = err.Error()
	}
	st, err := wg.LoadState(filepath.Join(dir, fmt.Sprintf("%x.state", pub)))
	switch {
	case err == nil:
		s.Mode, s.Epoch, s.Index, s.FallenBack, s.Failures = st.Mode.String(), st.Epoch, st.Index, st.FallenBack, st.Failures
	case !errors.Is(err, fs.ErrNotExist):
		s.Problem = err.Error()
	}
	return s
}

// peerLog is one peer's event sink: it logs events (repeated errors
// through an errorLog) and rewrites the peer's status file.
type peerLog struct {
	l      *logger
	name   string
	status Status
	path   string
	errs   errorLog
	mu     sync.Mutex
}

func newPeerLog(l *logger, c *Config, pub [32]byte) *peerLog {
	b64 := base64.StdEncoding.EncodeToString(pub[:])
	return &peerLog{l: l, name: b64[:8], path: filepath.Join(c.StateDir, fmt.Sprintf("%x.status", pub)),
		status: Status{Peer: b64, Interface: c.Interface, PID: os.Getpid()}}
}

func (p *peerLog) event(e rotator.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	text := e.String()
	switch e.Kind {
	case rotator.EventError:
		show, repeats := p.errs.admit(now, text)
		if !show {
			return
		}
		if repeats > 0 {
			text += fmt.Sprintf(" (repeated %d times since the last line; next report in %v)", repeats, p.errs.delay)
		}
	case rotator.EventRecovered:
		p.errs = errorLog{}
	}
	// The status file first: whoever reads the log line finds the file
	// saying the same.
	s := &p.status
	s.Mode, s.Epoch, s.Index, s.FallenBack, s.Failures = e.Mode.String(), e.Epoch, e.Index, e.FallenBack, e.Failures
	s.LastHandshake, s.LastEvent, s.LastEventAt, s.Updated = e.Handshake, text, now.UTC(), now.UTC()
	werr := writeStatus(p.path, s)
	p.l.printf("%s: %s", p.name, text)
	if werr != nil {
		p.l.printf("%s: status file %s: %v", p.name, p.path, werr)
	}
}

// writeStatus replaces path with s (a temporary file renamed over it; a
// status file is informative, so it is not fsynced).
func writeStatus(path string, s *Status) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Error backoff: a repeated error is logged first, then after
// firstErrorDelay, doubling up to maxErrorDelay, with the count of the
// repeats not shown (an interface deleted for an hour is a handful of
// lines, not 3600).
const (
	firstErrorDelay = 10 * time.Second
	maxErrorDelay   = 10 * time.Minute
)

// errorLog decides which of a run of errors to log.
type errorLog struct {
	text    string
	repeats int
	next    time.Time
	delay   time.Duration
}

// admit reports whether the error text at now is logged and, if so, how
// many repeats were held back since the last line.
func (g *errorLog) admit(now time.Time, text string) (show bool, repeats int) {
	if text != g.text {
		*g = errorLog{text: text, delay: firstErrorDelay, next: now.Add(firstErrorDelay)}
		return true, 0
	}
	g.repeats++
	if now.Before(g.next) {
		return false, 0
	}
	repeats, g.repeats = g.repeats, 0
	g.delay = min(2*g.delay, maxErrorDelay)
	g.next = now.Add(g.delay)
	return true, repeats
}
