package pake_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/pake"
)

// The study profile is the Android study's primitives table, one entry per
// row it measured; the recommended one has none of its unsafe settings;
// every registered scheme belongs to one of them.
func TestProfiles(t *testing.T) {
	study, err := pake.Profile(pake.ProfileStudy)
	if err != nil {
		t.Fatal(err)
	}
	if len(study) != 13 {
		t.Errorf("study profile: %d schemes, want the study's 13 rows", len(study))
	}
	insecure := func(i pake.Info) bool {
		return strings.Contains(i.Suite, "INSECURE") || strings.Contains(i.Suite, "NO ") || strings.Contains(i.Suite, "SHA-1")
	}
	nInsecure := 0
	for _, s := range study {
		if insecure(s.Info()) {
			nInsecure++
		}
	}
	// dragonfly-early-exit, srp-sha1, spake2-hkdf, oeke-*-nokdf, apakepq-nokdf
	if nInsecure != 6 {
		t.Errorf("study profile: %d schemes whose suite marks them unsafe, want 6", nInsecure)
	}
	rec, err := pake.Profile(pake.ProfileRecommended)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rec {
		if insecure(s.Info()) {
			t.Errorf("recommended profile has %s (%s)", s.Info().Name, s.Info().Suite)
		}
	}
	for _, s := range pake.All() {
		if len(pake.ProfilesOf(s.Info().Name)) == 0 {
			t.Errorf("%s is in no profile", s.Info().Name)
		}
	}
	all, err := pake.Profile(pake.ProfileAll)
	if err != nil || len(all) != len(pake.All()) {
		t.Errorf("profile all: %d schemes, %v", len(all), err)
	}
	if _, err := pake.Profile("fast"); !errors.Is(err, pake.ErrInvalidParameter) {
		t.Errorf("unknown profile: %v", err)
	}
}
