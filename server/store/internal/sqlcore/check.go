package sqlcore

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrInvalid is wrapped by the errors of arguments no back end can store:
// strings that are not UTF-8 or hold NUL (PostgreSQL's text refuses both,
// so SQLite refuses them too, to behave alike), times outside the years
// 1-9999, token-bucket parameters that are not positive and finite.
var ErrInvalid = errors.New("invalid argument")

func checkString(field, s string) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%w: %s is not UTF-8 without NUL", ErrInvalid, field)
	}
	return nil
}

func checkStrings(fields ...string) error {
	for i := 0; i+1 < len(fields); i += 2 {
		if err := checkString(fields[i], fields[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// checkTime accepts the years 1 to 9999 (UTC): RFC 3339's range, which
// microseconds since 1970 in an int64 and PostgreSQL's timestamptz both
// hold.
func checkTime(field string, t time.Time) error {
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return fmt.Errorf("%w: %s is outside the years 1 to 9999", ErrInvalid, field)
	}
	return nil
}

func checkBucket(rate float64, burst int) error {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return fmt.Errorf("%w: rate %v is not positive and finite", ErrInvalid, rate)
	}
	if burst < 1 {
		return fmt.Errorf("%w: burst %d is less than 1", ErrInvalid, burst)
	}
	return nil
}

// blob returns b, or an empty non-nil slice for nil: a nil slice would be
// stored as NULL, an empty one as an empty value, and the store treats the
// two alike.
func blob(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
