package pake_test

import (
	"testing"

	"github.com/kexlab/kexlab/pake"
	"github.com/kexlab/kexlab/pake/paketest"
)

// TestConformance runs the conformance suite against every registered
// scheme.
func TestConformance(t *testing.T) {
	schemes := pake.All()
	if len(schemes) == 0 {
		t.Fatal("no schemes registered")
	}
	for _, s := range schemes {
		s := s
		t.Run(s.Info().Name, func(t *testing.T) {
			t.Parallel()
			paketest.Conformance(t, s)
		})
	}
}

// TestKnownAnswers runs every scheme's compiled-in vectors.
func TestKnownAnswers(t *testing.T) {
	for _, s := range pake.All() {
		tests := s.KnownAnswerTests()
		if len(tests) == 0 {
			t.Errorf("%s: no known-answer tests", s.Info().Name)
		}
		for _, k := range tests {
			if err := k.Run(); err != nil {
				t.Errorf("%s: %s: %v", s.Info().Name, k.Name, err)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	for _, s := range pake.All() {
		got, err := pake.Lookup(s.Info().Name)
		if err != nil || got.Info().Name != s.Info().Name {
			t.Errorf("Lookup(%q) = %v, %v", s.Info().Name, got, err)
		}
	}
	if _, err := pake.Lookup("no-such-scheme"); err == nil {
		t.Error("Lookup of an unknown name succeeded")
	}
}
