package daemon

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kexlab/kexlab/wg/keysource"
)

// healthInput is what the watcher derives to probe a failing key source:
// a label no schedule uses (every schedule's input starts with
// "kexlab-wg v1 " and a mode name), so its output is no PSK.
var healthInput = []byte("kexlab-wg v1 health probe")

// watchedSource is the daemon's key source: it records whether the last
// Derive failed, so that watch can probe a failing source (which makes
// the PKCS#11 and TPM sources reconnect) and give up after a bound.
type watchedSource struct {
	keysource.Source

	mu           sync.Mutex
	failingSince time.Time // zero while the source works
	lastErr      error
}

func newWatchedSource(s keysource.Source) *watchedSource { return &watchedSource{Source: s} }

// Derive implements keysource.Source.
func (w *watchedSource) Derive(input []byte) ([32]byte, error) {
	out, err := w.Source.Derive(input)
	w.record(err)
	return out, err
}

func (w *watchedSource) record(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		w.failingSince, w.lastErr = time.Time{}, nil
		return
	}
	if w.failingSince.IsZero() {
		w.failingSince = time.Now()
	}
	w.lastErr = err
}

func (w *watchedSource) failing() (since time.Time, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failingSince, w.lastErr
}

// probeEvery spaces the probes of the source.
const probeEvery = time.Minute

// watch probes the source every probeEvery (or timeout/4 if shorter), so a
// broken key source (a TPM restarted, a token pulled) is found, and the
// PKCS#11 and TPM sources reconnect, before a handshake needs it. It
// returns ErrSourceUnusable, naming the last error, once every Derive has
// failed for timeout; it logs the first failure and the recovery.
func (w *watchedSource) watch(ctx context.Context, timeout time.Duration, l *logger) error {
	every := min(probeEvery, max(timeout/4, 10*time.Millisecond))
	t := time.NewTicker(every)
	defer t.Stop()
	reported := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		out, err := w.Derive(healthInput)
		clear(out[:])
		since, _ := w.failing()
		switch {
		case err == nil && reported:
			reported = false
			l.printf("key source %s usable again", w.Name())
		case err == nil:
		case !reported:
			reported = true
			l.printf("key source %s failing since %s (%v); probing every %v, exiting after %v", w.Name(), since.UTC().Format(time.RFC3339), err, every, timeout)
			fallthrough
		default:
			if time.Since(since) >= timeout {
				return fmt.Errorf("%w: %s failed for %v (last error: %v); exiting so that a supervisor restarts the daemon",
					ErrSourceUnusable, w.Name(), time.Since(since).Round(time.Millisecond), err)
			}
		}
	}
}
