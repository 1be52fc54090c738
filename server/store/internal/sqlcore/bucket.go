package sqlcore

import (
	"math"
	"time"
)

// bucket is a token bucket as stored: the tokens it held at updated
// (microseconds since 1970, UTC).
type bucket struct {
	tokens  float64
	updated int64
}

// slack (a billionth of a token) forgives the rounding of
// tokens+elapsed*rate: a bucket that holds 1-slack tokens gives one.
const slack = 1e-9

// maxWait bounds a wait, so that a tiny rate does not overflow a Duration.
const maxWait = time.Duration(math.MaxInt64)

// take refills b at rate tokens per second, up to burst, for the time from
// b.updated to now (microseconds) and takes one token if there is one. It
// returns the bucket to store, whether a token was taken and, if not, how
// long until one is available (waitFor: in whole microseconds, the
// resolution at which times are stored). A now before b.updated (clocks of two
// instances disagreeing) refills nothing and does not move updated back.
// rate must be positive and finite and burst at least 1 (checkBucket).
func take(b bucket, now int64, rate float64, burst int) (bucket, bool, time.Duration) {
	full := float64(burst)
	tokens := b.tokens
	if !(tokens >= 0) { // negative or NaN: not written by take; start empty
		tokens = 0
	}
	if now > b.updated {
		tokens += float64(now-b.updated) / 1e6 * rate
		b.updated = now
	}
	if tokens > full {
		tokens = full
	}
	if tokens >= 1-slack {
		b.tokens = math.Max(tokens-1, 0)
		return b, true, 0
	}
	b.tokens = tokens
	return b, false, waitFor(tokens, rate)
}

// waitFor is the least whole number of microseconds after which a bucket
// holding tokens (< 1-slack) has refilled to 1-slack at rate, computed
// the way take computes the refill, so that a taker coming back after it
// gets its token and one coming back a microsecond earlier does not.
func waitFor(tokens, rate float64) time.Duration {
	est := math.Ceil((1 - slack - tokens) / rate * 1e6)
	if est >= float64(maxWait/time.Microsecond) {
		return maxWait
	}
	enough := func(us int64) bool { return tokens+float64(us)/1e6*rate >= 1-slack }
	us := max(int64(est), 1)
	// est is off by rounding at most; a few steps correct it.
	for i := 0; i < 8 && !enough(us); i++ {
		us++
	}
	for i := 0; i < 8 && us > 1 && enough(us-1); i++ {
		us--
	}
	return time.Duration(us) * time.Microsecond
}
