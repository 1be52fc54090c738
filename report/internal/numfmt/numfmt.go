// Package numfmt formats the numbers of the kexlab reports (package report
// and its sub-packages) the same way everywhere: times and counts to a few
// significant digits, bytes with SI prefixes.
package numfmt

import (
	"fmt"
	"time"
)

// Ns formats nanoseconds with three significant digits.
func Ns(ns float64) string {
	if ns < 0 {
		return "−" + Ns(-ns)
	}
	switch d := time.Duration(ns); {
	case d >= time.Second:
		return fmt.Sprintf("%.3g s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case d >= time.Microsecond:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

// Num formats a number with four significant digits.
func Num(v float64) string { return fmt.Sprintf("%.4g", v) }

// Bytes formats a byte count with SI prefixes.
func Bytes(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.3g GB", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3g MB", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3g kB", v/1e3)
	}
	return fmt.Sprintf("%.0f B", v)
}
