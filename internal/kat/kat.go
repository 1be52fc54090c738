// Package kat describes known-answer tests that are compiled into the
// binary, so that `kexlab vectors` can run them on any machine without the
// source tree. Each scheme package exports its own list; the vectors are
// transcribed from the specification (with the section cited next to the
// data) into the package's testdata/ and embedded.
package kat

import "fmt"

// Test is one known-answer test: Name says which vector (spec section and
// case), Run recomputes the vector's outputs and compares them.
type Test struct {
	Name string
	Run  func() error
}

// Result is the outcome of running a list of Tests.
type Result struct {
	Passed   int
	Failed   int
	Failures []error // one per failed test, prefixed with its name
}

// RunAll runs every test and collects the outcome. A panicking test is
// recorded as a failure, never propagated.
func RunAll(tests []Test) Result {
	var r Result
	for _, t := range tests {
		if err := runOne(t); err != nil {
			r.Failed++
			r.Failures = append(r.Failures, fmt.Errorf("%s: %w", t.Name, err))
			continue
		}
		r.Passed++
	}
	return r
}

func runOne(t Test) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return t.Run()
}

// Mismatch is the error a Test returns when a computed value differs from
// the expected one.
func Mismatch(what string, got, want []byte) error {
	return fmt.Errorf("%s: got %x, want %x", what, got, want)
}
