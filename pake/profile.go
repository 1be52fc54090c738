package pake

import (
	"fmt"
	"slices"
	"strings"
)

// Profiles: which registered schemes a comparison measures.
const (
	// ProfileStudy is the configuration of the Android PAKE study's
	// primitives table, scheme by scheme: OEKE (MODP-3072 and P-256,
	// AES-CBC, SHA-256) and aPAKE-PQC (ML-KEM-512, AES-GCM) without a
	// password KDF; OCAKE (ML-KEM-512, AES-CBC) and PACE IM and GM with
	// PBKDF2; Dragonfly hunting and pecking with HKDF, constant time and
	// with the (INSECURE) early exit the study also timed; SPAKE2 with HKDF
	// and no memory-hard function; CPace; SRP-3072 with SHA-1 and with
	// SHA-256; SPAKE2+ with HKDF and scrypt at registration. Several of
	// these are not safe to deploy (the schemes' suites say which).
	ProfileStudy = "study"
	// ProfileRecommended is kexlab's hardened configuration of every
	// scheme: memory-hard or iterated password stretching wherever the
	// password meets the wire, constant-time password mapping, SHA-256.
	ProfileRecommended = "recommended"
	// ProfileAll is every registered scheme, each once.
	ProfileAll = "all"
)

var profiles = map[string][]string{
	ProfileStudy: {"oeke-modp3072-nokdf", "oeke-p256-nokdf", "ocake", "dragonfly", "dragonfly-early-exit",
		"spake2-hkdf", "pace-im", "pace-gm", "cpace", "srp-sha1", "srp", "spake2plus", "apakepq-nokdf"},
	ProfileRecommended: {"cpace", "dragonfly", "sae", "oeke-modp3072", "oeke-p256", "ocake", "pace-gm", "pace-im",
		"spake2", "spake2plus", "srp", "opaque", "apakepq"},
}

// ProfileNames lists the profiles Profile knows.
func ProfileNames() []string { return []string{ProfileStudy, ProfileRecommended, ProfileAll} }

// Profile returns the schemes of a profile, sorted by name.
func Profile(name string) ([]Scheme, error) {
	if name == ProfileAll {
		return All(), nil
	}
	names, ok := profiles[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown profile %q (known: %s)", ErrInvalidParameter, name, strings.Join(ProfileNames(), ", "))
	}
	out := make([]Scheme, 0, len(names))
	for _, n := range names {
		s, err := Lookup(n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Scheme) int { return strings.Compare(a.Info().Name, b.Info().Name) })
	return out, nil
}

// ProfilesOf returns the profiles (study, recommended) a scheme belongs to,
// in that order; nil for a scheme in neither.
func ProfilesOf(scheme string) []string {
	var out []string
	for _, p := range []string{ProfileStudy, ProfileRecommended} {
		if slices.Contains(profiles[p], scheme) {
			out = append(out, p)
		}
	}
	return out
}

// stretchNote marks, in a suite, the study's configurations without
// password stretching.
func stretchNote(iterations int) string {
	if iterations == 1 {
		return ", NO password stretching (1 PBKDF2-HMAC-SHA256 iteration)"
	}
	return ""
}
