package pake

import (
	"crypto/rand"
	"strings"
	"testing"
)

// TestFloor checks that every registered scheme implements Floorer and that
// its floor lists its operations and runs: Online twice, and Password (the
// slow part, scrypt or PBKDF2, for most schemes) once. No timing is
// checked.
func TestFloor(t *testing.T) {
	for _, s := range All() {
		name := s.Info().Name
		t.Run(name, func(t *testing.T) {
			fl, ok := s.(Floorer)
			if !ok {
				t.Fatalf("%s does not implement Floorer", name)
			}
			f, err := fl.Floor(rand.Reader)
			if err != nil {
				t.Fatalf("Floor: %v", err)
			}
			if len(f.Ops) == 0 {
				t.Fatal("Floor lists no operations")
			}
			for _, op := range f.Ops {
				if !strings.Contains(op, " × ") {
					t.Errorf("op %q is not \"count × operation\"", op)
				}
			}
			if f.Online == nil {
				t.Fatal("Floor has no Online")
			}
			for range 2 {
				if err := f.Online(); err != nil {
					t.Fatalf("Online: %v", err)
				}
			}
			if f.Password != nil {
				if err := f.Password(); err != nil {
					t.Fatalf("Password: %v", err)
				}
			}
			// The server's share, which the service's benchmark compares
			// with a login over HTTP: every augmented scheme that the
			// service runs states it.
			if f.Server == nil && s.Info().Augmented && serviceScheme(name) {
				t.Fatal("an augmented scheme's floor has no Server share")
			}
			if f.Server != nil {
				for range 2 {
					if err := f.Server(); err != nil {
						t.Fatalf("Server: %v", err)
					}
				}
			}
		})
	}
}

// TestFloorPassword checks that the schemes whose parties stretch the
// password (Preparer) report that work in Password, and that a scheme's
// Ops name a password operation exactly when Password is set.
func TestFloorPassword(t *testing.T) {
	for _, s := range All() {
		fl, ok := s.(Floorer)
		if !ok {
			continue // TestFloor reports it
		}
		f, err := fl.Floor(rand.Reader)
		if err != nil {
			t.Fatalf("%s: Floor: %v", s.Info().Name, err)
		}
		if _, prep := s.(Preparer); prep && f.Password == nil {
			t.Errorf("%s: a Preparer with no Password in its floor", s.Info().Name)
		}
	}
}

// serviceScheme reports whether kexlab serve runs the scheme (its floor
// then has a Server share).
func serviceScheme(name string) bool {
	return strings.HasPrefix(name, "srp") || name == "spake2plus" || name == "opaque" || name == "apakepq"
}
