// Package sysrand holds the one rule kexlab's schemes share about their
// randomness: every function that takes an io.Reader for randomness (so that
// tests can replay a specification's fixed values) treats a nil reader as
// the system's generator, crypto/rand.Reader.
package sysrand

import (
	"crypto/rand"
	"io"
)

// Or returns r, or crypto/rand.Reader when r is nil.
func Or(r io.Reader) io.Reader {
	if r == nil {
		return rand.Reader
	}
	return r
}
