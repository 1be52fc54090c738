package rotator

import (
	"fmt"
	"time"

	"github.com/kexlab/kexlab/wg"
)

// hourTime is the start of timestamp hour h in UTC, as logs show it.
func hourTime(h uint64) string {
	if h > 1<<40 {
		return fmt.Sprintf("hour %d", h)
	}
	return time.Unix(int64(h)*3600, 0).UTC().Format("2006-01-02T15:04Z")
}

// failureReason says why the rotator falls back after failed handshakes,
// and whether a clock skew is a likely cause.
// onTimestamp says whether the failed handshakes used a timestamp PSK.
func (r *Rotator) failureReason(onTimestamp bool) string {
	base := r.lastHS
	what := "the last handshake at " + base.UTC().Format(time.RFC3339)
	if base.IsZero() {
		base, what = r.since, "the start at "+r.since.UTC().Format(time.RFC3339)+" (no handshake seen)"
	}
	s := fmt.Sprintf("%d failed handshake window(s) of %v after %s", r.st.Failures, r.cfg.FailWindow, what)
	if !onTimestamp {
		return s
	}
	return s + r.skewHint(base)
}

// mismatchReason explains EventKeyMismatch: what the rotator applies and
// what an operator compares on both peers.
func (r *Rotator) mismatchReason() string {
	now := r.cfg.Now()
	return fmt.Sprintf("still failing with the timestamp PSK of hour %d (%s; local clock %s): compare 'kexlab wg key -kcv' and the clocks (date -u) of both peers",
		r.curHour, hourTime(r.curHour), now.UTC().Format(time.RFC3339)) + r.skewHint(r.lastHS)
}

// skewHint suspects a clock skew when handshakes fail on a timestamp PSK
// (fallen back, or the timestamp mode) and an hour boundary has passed
// since base, the last good handshake: peers whose clocks differ switch
// to the next hour's PSK at different moments, so handshakes fail from
// the boundary on for as long as the skew (an hour or more: for good).
// The rotator cannot see the peer's clock (WireGuard's TAI64N timestamp
// stays inside the device), so this is a hint, not a measurement.
func (r *Rotator) skewHint(base time.Time) string {
	if base.IsZero() {
		return ""
	}
	hb, err1 := wg.Hour(base)
	hn, err2 := wg.Hour(r.cfg.Now())
	if err1 != nil || err2 != nil || hb == hn {
		return ""
	}
	return fmt.Sprintf("; the hour changed at %s since the last handshake, so a clock skew between the peers is likely (check NTP on both)", hourTime(hn))
}
