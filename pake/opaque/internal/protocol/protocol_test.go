package protocol

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
	"github.com/kexlab/kexlab/pake/opaque/internal/ake"
	"github.com/kexlab/kexlab/pake/opaque/internal/envelope"
)

// sharedP256Vectors reads the shared vectors.json and keeps the P-256
// entries.
func sharedP256Vectors(t *testing.T) []vector {
	var all []vector
	testvec.JSON(t, "opaque/vectors.json", &all)
	var p256 []vector
	for _, v := range all {
		if v.Config["Group"] == "P256_XMD:SHA-256_SSWU_RO_" {
			p256 = append(p256, v)
		}
	}
	if len(p256) != 3 {
		t.Fatalf("%d P-256 vectors in the shared file, want 3 (2 real, 1 fake)", len(p256))
	}
	return p256
}

func TestVectors(t *testing.T) {
	for i, v := range sharedP256Vectors(t) {
		if err := runVector(v); err != nil {
			t.Errorf("vector %d (fake=%s): %v", i, v.Config["Fake"], err)
		}
	}
}

// TestVectorIntermediates checks the intermediate values of the real
// vectors against the functions that compute them.
func TestVectorIntermediates(t *testing.T) {
	for i, v := range sharedP256Vectors(t) {
		if v.Config["Fake"] == "True" {
			continue
		}
		in, mid, out := &hexMap{m: v.Inputs}, &hexMap{m: v.Intermediates}, &hexMap{m: v.Outputs}
		k, err := OPRFKey(in.get("oprf_seed"), in.get("credential_identifier"))
		if err != nil {
			t.Fatal(err)
		}
		eq := func(what string, got, want []byte) {
			t.Helper()
			if !bytes.Equal(got, want) {
				t.Errorf("vector %d: %s = %x, want %x", i, what, got, want)
			}
		}
		eq("oprf_key", k.Bytes(), mid.get("oprf_key"))

		// randomized_password from the registration response (§5.2.3).
		blindReg, err := group.NewScalar().SetCanonicalBytes(in.get("blind_registration"))
		if err != nil {
			t.Fatal(err)
		}
		z, err := oprf.DeserializeElement(out.get("registration_response")[:Noe])
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Stretch: Identity}
		rwd, err := cfg.randomizedPassword(in.get("password"), blindReg, z)
		if err != nil {
			t.Fatal(err)
		}
		eq("randomized_password", rwd, mid.get("randomized_password"))
		eq("masking_key", ake.Expand(rwd, []byte("MaskingKey"), Nh), mid.get("masking_key"))
		authKey, _, seed := envelope.Keys(rwd, in.get("envelope_nonce"))
		eq("auth_key", authKey, mid.get("auth_key"))
		_, pk, err := ake.DeriveDiffieHellmanKeyPair(seed, true)
		if err != nil {
			t.Fatal(err)
		}
		eq("client_public_key", pk, mid.get("client_public_key"))
		eq("envelope", out.get("registration_upload")[Npk+Nh:], mid.get("envelope"))

		// The MAC keys come from handshake_secret by Expand-Label (§6.4.2).
		hs := mid.get("handshake_secret")
		eq("server_mac_key", ake.ExpandLabel(hs, "ServerMAC", nil), mid.get("server_mac_key"))
		eq("client_mac_key", ake.ExpandLabel(hs, "ClientMAC", nil), mid.get("client_mac_key"))
		if in.err != nil || mid.err != nil || out.err != nil {
			t.Fatal(in.err, mid.err, out.err)
		}
	}
}

// TestVectorMismatch checks that runVector notices a wrong expected value.
func TestVectorMismatch(t *testing.T) {
	for _, v := range sharedP256Vectors(t) {
		for name := range v.Outputs {
			w := v
			w.Outputs = maps.Clone(v.Outputs)
			w.Outputs[name] = strings.Repeat("00", len(v.Outputs[name])/2)
			if runVector(w) == nil {
				t.Errorf("vector (fake=%s) with %s changed passed", v.Config["Fake"], name)
			}
		}
	}
}

// TestEmbeddedVectors checks that testdata holds exactly the P-256 entries
// of the shared file.
func TestEmbeddedVectors(t *testing.T) {
	var embedded []vector
	if err := json.Unmarshal(vectorsJSON, &embedded); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(embedded, sharedP256Vectors(t)) {
		t.Error("testdata/vectors_p256.json differs from the P-256 entries of the shared vectors.json")
	}
	for _, k := range KnownAnswerTests() {
		if err := k.Run(); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}

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
	var vs []vector
	if err := json.Unmarshal(vectorsJSON, &vs); err != nil {
		f.Fatal(err)
	}
	for _, v := range vs {
		if b, err := hex.DecodeString(v.Outputs[output]); err == nil && len(b) > 0 {
			f.Add(b)
		}
	}
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
