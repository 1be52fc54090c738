package airtime

import (
	"bytes"
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Shapes are the operations [Shape] can repeat: one PTK derivation ("kdf"),
// one MIC over the talk's four 64-bit blocks of associated data ("mic4"),
// and one MIC over a 121-octet EAPOL frame, message 2's length ("mic").
var Shapes = []string{"kdf", "mic4", "mic"}

// Shape returns a function that performs op with suite s once per call,
// on fixed inputs. It is what `kexlab wifi shape` repeats under
// `valgrind --tool=callgrind --toggle-collect=…airtime.shape*`, which
// counts the instructions of the calls and nothing else: deterministic
// figures to set beside the talk's microcontroller cycle counts.
func Shape(s Suite, op string) (func() error, error) {
	pmk := bytes.Repeat([]byte{0x5a}, 32)
	an, sn := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	aa, spa := [6]byte{2, 0, 0, 0, 0, 1}, [6]byte{2, 0, 0, 0, 0, 2}
	ptk, err := s.Suite.DerivePTK(pmk, aa, spa, an, sn)
	if err != nil {
		return nil, err
	}
	switch op {
	case "kdf":
		return func() error { return shapeKDF(s, pmk, aa, spa, an, sn) }, nil
	case "mic4":
		ad := make([]byte, 32)
		return func() error { return shapeMIC(s, ptk.KCK, ad) }, nil
	case "mic":
		frame := make([]byte, 121)
		return func() error { return shapeMIC(s, ptk.KCK, frame) }, nil
	}
	return nil, fmt.Errorf("%w: unknown shape %q (have kdf, mic4, mic)", pakeerr.ErrInvalidParameter, op)
}

//go:noinline
func shapeKDF(s Suite, pmk []byte, aa, spa [6]byte, an, sn []byte) error {
	_, err := s.Suite.DerivePTK(pmk, aa, spa, an, sn)
	return err
}

//go:noinline
func shapeMIC(s Suite, kck, frame []byte) error {
	_, err := s.Suite.MIC(kck, frame)
	return err
}
