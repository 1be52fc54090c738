package protocol

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
)

func TestParse(t *testing.T) {
	g := group.NewGenerator().BytesCompressed()
	offCurve, _ := hex.DecodeString("02" + "0000000000000000000000000000000000000000000000000000000000000001") // x^3-3x+b is not a square
	bad := map[string][]byte{
		"identity":     append([]byte{0}, make([]byte, 32)...),
		"uncompressed": append([]byte{4}, g[1:]...),
		"prefix 05":    append([]byte{5}, g[1:]...),
		"x >= p":       append([]byte{2}, bytes.Repeat([]byte{0xff}, 32)...),
		"off curve":    offCurve,
	}
	type parser func([]byte) error
	cases := []struct {
		name     string
		size     int
		elements []int
		parse    parser
	}{
		{"RegistrationRequest", RegistrationRequestSize, []int{0}, func(b []byte) error { _, err := ParseRegistrationRequest(b); return err }},
		{"RegistrationResponse", RegistrationResponseSize, []int{0, Noe}, func(b []byte) error { _, err := ParseRegistrationResponse(b); return err }},
		{"RegistrationRecord", RegistrationRecordSize, []int{0}, func(b []byte) error { _, err := ParseRegistrationRecord(b); return err }},
		{"KE1", KE1Size, []int{0, Noe + Nn}, func(b []byte) error { _, err := ParseKE1(b); return err }},
		{"KE2", KE2Size, []int{0, ke2Keyshare}, func(b []byte) error { _, err := ParseKE2(b); return err }},
		{"KE3", KE3Size, nil, func(b []byte) error { _, err := ParseKE3(b); return err }},
	}
	for _, c := range cases {
		good := make([]byte, c.size)
		for _, off := range c.elements {
			copy(good[off:], g)
		}
		if err := c.parse(good); err != nil {
			t.Errorf("%s: valid message rejected: %v", c.name, err)
		}
		for _, b := range [][]byte{nil, good[:c.size-1], append(bytes.Clone(good), 0)} {
			if err := c.parse(b); !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Errorf("%s of %d bytes: %v, want ErrInvalidMessage", c.name, len(b), err)
			}
		}
		for _, off := range c.elements {
			for name, e := range bad {
				b := bytes.Clone(good)
				copy(b[off:], e)
				if err := c.parse(b); !errors.Is(err, pakeerr.ErrInvalidMessage) {
					t.Errorf("%s with %s element at %d: %v, want ErrInvalidMessage", c.name, name, off, err)
				}
			}
		}
	}
}

// Every parser must reject bad input with a typed error and never panic;
// whatever parses must encode back to the same bytes.

func seedVectors(f *testing.F, output string) {
	var vs []struct{ Outputs map[string]string }
	testvec.JSON(f, "opaque/vectors.json", &vs)
	for _, v := range vs {
		if b, err := hex.DecodeString(v.Outputs[output]); err == nil && len(b) == sizes[output] {
			f.Add(b)
		}
	}
}

// sizes are the P-256 sizes of the vectors' outputs, whose other
// configurations have other sizes.
var sizes = map[string]int{
	"registration_request": RegistrationRequestSize, "registration_response": RegistrationResponseSize,
	"registration_upload": RegistrationRecordSize, "KE1": KE1Size, "KE2": KE2Size, "KE3": KE3Size,
}

func fuzzParse[M interface{ Bytes() []byte }](f *testing.F, output string, parse func([]byte) (M, error)) {
	seedVectors(f, output)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parse(b)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidMessage) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if !bytes.Equal(m.Bytes(), b) {
			t.Fatalf("round trip: %x became %x", b, m.Bytes())
		}
	})
}

func FuzzParseRegistrationRequest(f *testing.F) {
	fuzzParse(f, "registration_request", ParseRegistrationRequest)
}

func FuzzParseRegistrationResponse(f *testing.F) {
	fuzzParse(f, "registration_response", ParseRegistrationResponse)
}

func FuzzParseRegistrationRecord(f *testing.F) {
	fuzzParse(f, "registration_upload", ParseRegistrationRecord)
}

func FuzzParseKE1(f *testing.F) { fuzzParse(f, "KE1", ParseKE1) }
func FuzzParseKE2(f *testing.F) { fuzzParse(f, "KE2", ParseKE2) }
func FuzzParseKE3(f *testing.F) { fuzzParse(f, "KE3", ParseKE3) }
